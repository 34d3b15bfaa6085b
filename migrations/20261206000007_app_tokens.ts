import type { Knex } from "knex";

/**
 * Sessions of apps as well as browsers (ADR 041). A browser's session is named by its cookie; an app's (a phone
 * app, a partner's program) by the Bearer token the JSON API handed it, and a token of one kind never works as
 * the other. An app's sign-in starts a family of tokens: each refresh replaces the token with a new one of the
 * same family and keeps the old row, marked `rotated_at`, until it would have expired, so a replaced token
 * presented again (stolen and used by someone else) is recognised and ends the whole family.
 *
 * Idempotency keys: a repeated POST with the same key and body gets the first answer again instead of a
 * second order, payout or message (kept a day).
 */
export async function up(db: Knex) {
  await db.raw(`
    ALTER TABLE sessions
      ADD COLUMN kind text NOT NULL DEFAULT 'browser' CHECK (kind IN ('browser', 'app')),
      ADD COLUMN family_id text,
      ADD COLUMN platform text CHECK (platform IN ('android', 'ios', 'api')),
      ADD COLUMN device_name text,
      ADD COLUMN rotated_at timestamptz,
      ADD COLUMN last_used_at timestamptz,
      ADD CONSTRAINT sessions_app_fields CHECK ((kind = 'app') = (family_id IS NOT NULL AND platform IS NOT NULL));
    CREATE INDEX sessions_family_id_idx ON sessions (family_id) WHERE family_id IS NOT NULL;

    CREATE TABLE idempotency_keys (
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      key text NOT NULL,
      -- The call and the SHA-256 of its body: the same key with another request is refused, not replayed.
      request text NOT NULL,
      request_hash text NOT NULL,
      -- Null while the first request is still being answered.
      status integer,
      body jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, key)
    );
    CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
  `);
}

export async function down(db: Knex) {
  await db.raw(`
    DROP TABLE IF EXISTS idempotency_keys;
    DELETE FROM sessions WHERE kind = 'app';
    ALTER TABLE sessions DROP CONSTRAINT IF EXISTS sessions_app_fields;
    DROP INDEX IF EXISTS sessions_family_id_idx;
    ALTER TABLE sessions DROP COLUMN IF EXISTS kind, DROP COLUMN IF EXISTS family_id, DROP COLUMN IF EXISTS platform,
      DROP COLUMN IF EXISTS device_name, DROP COLUMN IF EXISTS rotated_at, DROP COLUMN IF EXISTS last_used_at;
  `);
}
