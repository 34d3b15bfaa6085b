import type { Knex } from "knex";

/**
 * Deleting a member (ADR 017, the admin's Users screen). Orders, the ledger, reviews and messages name
 * their members and must keep doing so (money moved; the other party keeps their history), so a deleted
 * member's row stays: `deleted_at` says it is gone, and the operation (app/operations/admin-users.server.ts)
 * wipes what named the person (name, email, username, picture, profile, payout number, password) in the
 * same transaction. A deleted row is never active again (the CHECK), which every "active members only"
 * rule already honours.
 */
export async function up(db: Knex) {
  await db.raw(`
    ALTER TABLE users
      ADD COLUMN deleted_at timestamptz,
      ADD CONSTRAINT users_deleted_not_active CHECK (deleted_at IS NULL OR status <> 'active');
    CREATE INDEX users_created_idx ON users (created_at DESC, id DESC);
  `);
}

export async function down(db: Knex) {
  await db.raw(`
    DROP INDEX IF EXISTS users_created_idx;
    ALTER TABLE users DROP CONSTRAINT IF EXISTS users_deleted_not_active, DROP COLUMN IF EXISTS deleted_at;
  `);
}
