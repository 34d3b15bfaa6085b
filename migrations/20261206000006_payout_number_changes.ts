import type { Knex } from "knex";

/**
 * When a member last set their payout number (ADR 032). Withdrawals to a number wait 24 hours from then, so a
 * stolen session (even with the password) cannot point the earnings at another wallet and empty it before the
 * member reads the mail that says so. Null for a number from before this column, and for one the platform
 * set (the demo data): no hold for those.
 */
export async function up(db: Knex) {
  await db.raw(`ALTER TABLE users ADD COLUMN payout_number_set_at timestamptz`);
}

export async function down(db: Knex) {
  await db.raw(`ALTER TABLE users DROP COLUMN IF EXISTS payout_number_set_at`);
}
