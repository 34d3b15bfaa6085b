import type { Knex } from "knex";

/**
 * Documents uploaded through the JSON API before the call that uses them (ADR 041): POST /upload/document stores
 * the file and answers its key; a message, an order's requirements or a delivery then names the key. A row says
 * whose the file is and what it is, so that nobody can use another member's upload; it goes when the file is
 * used (the message's or order's row names the file from then on) or after a day, when housekeeping removes the
 * file no row names any more.
 */
export async function up(db: Knex) {
  await db.raw(`
    CREATE TABLE uploaded_files (
      storage_key text PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      file_name text NOT NULL,
      content_type text NOT NULL,
      size_bytes integer NOT NULL CHECK (size_bytes >= 0),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX uploaded_files_user_id_idx ON uploaded_files (user_id);
    CREATE INDEX uploaded_files_created_at_idx ON uploaded_files (created_at);
  `);
}

export async function down(db: Knex) {
  await db.raw(`DROP TABLE IF EXISTS uploaded_files`);
}
