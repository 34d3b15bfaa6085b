import type { Knex } from "knex";

/**
 * The operations layer's after-commit effects (ADR 012): an operation writes what must happen once it has
 * committed (delete an image's files, record an analytics conversion, later notify a member) as a row in
 * the same transaction; the worker carries each row out at least once. `dedupe_key`, when given, makes the
 * same effect recorded twice one row. A row waits for `run_after`; `locked_until` is a worker's lease;
 * `done_at` marks it carried out, `failed_at` given up after too many attempts (kept for an admin to see).
 */
export async function up(db: Knex) {
  await db.raw(`
    CREATE TABLE effects (
      id bigserial PRIMARY KEY,
      kind text NOT NULL,
      payload jsonb NOT NULL DEFAULT '{}',
      dedupe_key text UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      run_after timestamptz NOT NULL DEFAULT now(),
      locked_until timestamptz,
      attempts integer NOT NULL DEFAULT 0,
      last_error text,
      done_at timestamptz,
      failed_at timestamptz
    );
    CREATE INDEX effects_due_idx ON effects (run_after, id) WHERE done_at IS NULL AND failed_at IS NULL;
  `);
}

export async function down(db: Knex) {
  await db.raw(`DROP TABLE IF EXISTS effects`);
}
