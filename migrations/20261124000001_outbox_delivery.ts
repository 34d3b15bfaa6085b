import type { Knex } from "knex";

/**
 * Mail delivery: the worker sends outbox rows through SMTP_URL (worker/mail-sender.server.ts), at least once, with
 * retries. A row waits for its attempt at `next_attempt_at` (NULL: nothing more to do, sent or given up);
 * `attempts` counts the tries and `last_error` keeps the latest failure (never the body). Rows written
 * before this migration were never meant to leave the machine: they get no attempt.
 */
export async function up(db: Knex) {
  await db.raw(`
    ALTER TABLE outbox
      ADD COLUMN sent_at timestamptz,
      ADD COLUMN attempts integer NOT NULL DEFAULT 0,
      ADD COLUMN last_error text,
      ADD COLUMN next_attempt_at timestamptz DEFAULT now();
    UPDATE outbox SET next_attempt_at = NULL;
    CREATE INDEX outbox_due_idx ON outbox (next_attempt_at, id) WHERE next_attempt_at IS NOT NULL;
  `);
}

export async function down(db: Knex) {
  await db.raw(`
    DROP INDEX IF EXISTS outbox_due_idx;
    ALTER TABLE outbox DROP COLUMN sent_at, DROP COLUMN attempts, DROP COLUMN last_error, DROP COLUMN next_attempt_at;
  `);
}
