import type { Knex } from "knex";

/**
 * The request behind a row (ADR 057): an operation's activity and admin audit rows, and the after-commit effects
 * it queued, keep the id of the HTTP request that caused them (null for the worker's own work and older rows), so
 * a line in the logs leads to the rows and back. The effect's id goes into the worker's log lines for running it.
 */
export async function up(db: Knex) {
  await db.raw(`ALTER TABLE activity ADD COLUMN request_id text`);
  await db.raw(`ALTER TABLE admin_audit_log ADD COLUMN request_id text`);
  await db.raw(`ALTER TABLE effects ADD COLUMN request_id text`);
}

export async function down(db: Knex) {
  await db.raw(`ALTER TABLE effects DROP COLUMN request_id`);
  await db.raw(`ALTER TABLE admin_audit_log DROP COLUMN request_id`);
  await db.raw(`ALTER TABLE activity DROP COLUMN request_id`);
}
