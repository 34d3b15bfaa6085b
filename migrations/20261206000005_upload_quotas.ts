import type { Knex } from "knex";

/**
 * What a member stores, in bytes (ADR 031): every stored file is counted against the member's storage cap,
 * the sum of the files their rows still name. Order files and message attachments kept their size from the
 * start; gig images (`uploads`) and profile pictures (`users`) now keep the bytes written for them (every
 * size of the image). Rows from before this migration say 0: their bytes are not known without reading
 * the disk, and they are few.
 *
 * Two indexes make the sum a lookup per member: a member's order files, and a member's messages that carry
 * files (a partial index: most messages are text).
 */
export async function up(db: Knex) {
  await db.raw(`
    ALTER TABLE uploads ADD COLUMN size_bytes bigint NOT NULL DEFAULT 0 CHECK (size_bytes >= 0);
    ALTER TABLE users ADD COLUMN avatar_size_bytes bigint NOT NULL DEFAULT 0 CHECK (avatar_size_bytes >= 0);
    CREATE INDEX order_files_uploader_idx ON order_files (uploader_id);
    CREATE INDEX messages_file_sender_idx ON messages (sender_id) WHERE message_type = 'file';
  `);
}

export async function down(db: Knex) {
  await db.raw(`
    DROP INDEX IF EXISTS messages_file_sender_idx;
    DROP INDEX IF EXISTS order_files_uploader_idx;
    ALTER TABLE users DROP COLUMN IF EXISTS avatar_size_bytes;
    ALTER TABLE uploads DROP COLUMN IF EXISTS size_bytes;
  `);
}
