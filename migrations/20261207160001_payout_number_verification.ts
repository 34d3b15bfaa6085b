import type { Knex } from "knex";

/**
 * A payout number is proven by a code texted to it (ADR 055): `users.payout_number_verified_at` says when, and
 * withdrawals wait for it. A number saved before this has none, so its member proves it once before their next
 * withdrawal. `phone_codes.purpose` gains `payout`: a right code of that purpose makes its number the payout
 * number.
 */
export async function up(db: Knex) {
  await db.raw(`ALTER TABLE users ADD COLUMN payout_number_verified_at timestamptz`);
  await db.raw(`ALTER TABLE phone_codes DROP CONSTRAINT phone_codes_purpose_check`);
  await db.raw(`ALTER TABLE phone_codes ADD CONSTRAINT phone_codes_purpose_check CHECK (purpose IN ('phone', 'payout'))`);
}

export async function down(db: Knex) {
  await db.raw(`DELETE FROM phone_codes WHERE purpose = 'payout'`);
  await db.raw(`ALTER TABLE phone_codes DROP CONSTRAINT phone_codes_purpose_check`);
  await db.raw(`ALTER TABLE phone_codes ADD CONSTRAINT phone_codes_purpose_check CHECK (purpose IN ('phone'))`);
  await db.raw(`ALTER TABLE users DROP COLUMN payout_number_verified_at`);
}
