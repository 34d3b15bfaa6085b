import type { Knex } from "knex";

/**
 * What buyers trust and how sellers are reached: the columns several parts read, added once.
 * - `email_verified_at`: when the member followed the link mailed to their current address (null: not yet).
 * - `phone`, `phone_verified_at`: the member's own Ugandan mobile number (+2567XXXXXXXX) and when a code sent to
 *   it by SMS was entered; texts go only to a verified number.
 * - `vetted_at`, `vetted_by`, `vetted_note`: an admin checked the freelancer's portfolio (an audited, revocable
 *   operation); null when not vetted.
 * - `notify_sms_orders`, `notify_sms_messages`: the member's SMS choices in Settings › Notifications.
 * - `data_saver`: the member's data-saver preference (visitors keep theirs in a cookie).
 */
export async function up(db: Knex) {
  await db.raw(`
    ALTER TABLE users
      ADD COLUMN email_verified_at timestamptz,
      ADD COLUMN phone text CHECK (phone ~ '^\\+2567[0-9]{8}$'),
      ADD COLUMN phone_verified_at timestamptz,
      ADD COLUMN vetted_at timestamptz,
      ADD COLUMN vetted_by bigint REFERENCES users (id) ON DELETE SET NULL,
      ADD COLUMN vetted_note text CHECK (char_length(vetted_note) <= 1000),
      ADD COLUMN notify_sms_orders boolean NOT NULL DEFAULT true,
      ADD COLUMN notify_sms_messages boolean NOT NULL DEFAULT true,
      ADD COLUMN data_saver boolean NOT NULL DEFAULT false,
      ADD CONSTRAINT users_phone_verified_has_phone CHECK (phone_verified_at IS NULL OR phone IS NOT NULL),
      ADD CONSTRAINT users_vetted_note_with_vetting CHECK (vetted_at IS NOT NULL OR vetted_note IS NULL)
  `);
  await db.raw(`CREATE INDEX users_vetted_idx ON users (vetted_at) WHERE vetted_at IS NOT NULL`);
}

export async function down(db: Knex) {
  await db.raw(`
    ALTER TABLE users
      DROP COLUMN IF EXISTS email_verified_at,
      DROP COLUMN IF EXISTS phone_verified_at,
      DROP COLUMN IF EXISTS phone,
      DROP COLUMN IF EXISTS vetted_note,
      DROP COLUMN IF EXISTS vetted_by,
      DROP COLUMN IF EXISTS vetted_at,
      DROP COLUMN IF EXISTS notify_sms_orders,
      DROP COLUMN IF EXISTS notify_sms_messages,
      DROP COLUMN IF EXISTS data_saver
  `);
}
