import type { Knex } from "knex";

/**
 * Codes texted to verify a phone number (ADR 050): six digits, kept only as an HMAC with the server's key, valid
 * 10 minutes, 5 tries, used once. `purpose` says what a right code does: `phone` verifies the member's own
 * number. A newer code for the same member and purpose replaces the older one (`superseded_at`).
 */
export async function up(db: Knex) {
  await db.raw(`
    CREATE TABLE phone_codes (
      id bigserial PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      phone text NOT NULL CHECK (phone ~ '^\\+2567[0-9]{8}$'),
      purpose text NOT NULL DEFAULT 'phone' CHECK (purpose IN ('phone')),
      code_hash text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      superseded_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `);
  await db.raw(`CREATE INDEX phone_codes_user_idx ON phone_codes (user_id, purpose, id DESC)`);
}

export async function down(db: Knex) {
  await db.raw(`DROP TABLE IF EXISTS phone_codes`);
}
