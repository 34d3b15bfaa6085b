import type { Knex } from "knex";

/**
 * Accounts: what a member keeps on their profile and in settings, password resets, the mail outbox and
 * the activity a dashboard shows.
 */
export async function up(db: Knex) {
  await db.raw(`
    ALTER TABLE users
      ADD COLUMN years_experience integer CHECK (years_experience BETWEEN 0 AND 60),
      ADD COLUMN portfolio_url text CHECK (char_length(portfolio_url) <= 300),
      ADD COLUMN avatar_key text,
      ADD COLUMN notify_email_orders boolean NOT NULL DEFAULT true,
      ADD COLUMN notify_email_messages boolean NOT NULL DEFAULT true,
      ADD COLUMN notify_email_marketing boolean NOT NULL DEFAULT false,
      ADD COLUMN notify_push_orders boolean NOT NULL DEFAULT true,
      ADD COLUMN notify_push_messages boolean NOT NULL DEFAULT true,
      ADD COLUMN mobile_money_number text CHECK (mobile_money_number ~ '^\\+2567[0-9]{8}$'),
      ADD COLUMN language text NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'lg', 'sw')),
      ADD COLUMN preferred_currency text NOT NULL DEFAULT 'UGX' CHECK (preferred_currency IN ('UGX', 'USD')),
      ADD COLUMN time_zone text NOT NULL DEFAULT 'EAT' CHECK (time_zone IN ('EAT', 'UTC'));

    -- A reset link carries a random token; only its SHA-256 is kept. Used once, then marked.
    CREATE TABLE password_resets (
      id text PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX password_resets_user_id_idx ON password_resets (user_id);

    -- Mail we would send. Without SMTP settings this table is the outbox a development page lists.
    CREATE TABLE outbox (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      to_address text NOT NULL,
      subject text NOT NULL,
      body text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    -- What happened on an account, newest first on the dashboard.
    CREATE TABLE activity (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      kind text NOT NULL,
      details jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX activity_user_id_created_at_idx ON activity (user_id, created_at DESC);

    -- How many shillings one unit of a currency buys; prices are stored in UGX and shown in USD at this rate.
    CREATE TABLE exchange_rates (
      currency text PRIMARY KEY CHECK (currency ~ '^[A-Z]{3}$'),
      ugx_per_unit numeric(12, 4) NOT NULL CHECK (ugx_per_unit > 0),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    INSERT INTO exchange_rates (currency, ugx_per_unit) VALUES ('USD', 3700);

    -- A client may start selling; "contacted sellers" needs a place until messaging arrives.
    CREATE TABLE saved_sellers (
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      seller_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, seller_id)
    );
  `);
}

export async function down(db: Knex) {
  await db.raw(`
    DROP TABLE IF EXISTS saved_sellers;
    DROP TABLE IF EXISTS exchange_rates;
    DROP TABLE IF EXISTS activity;
    DROP TABLE IF EXISTS outbox;
    DROP TABLE IF EXISTS password_resets;
    ALTER TABLE users
      DROP COLUMN years_experience, DROP COLUMN portfolio_url, DROP COLUMN avatar_key,
      DROP COLUMN notify_email_orders, DROP COLUMN notify_email_messages, DROP COLUMN notify_email_marketing,
      DROP COLUMN notify_push_orders, DROP COLUMN notify_push_messages, DROP COLUMN mobile_money_number,
      DROP COLUMN language, DROP COLUMN preferred_currency, DROP COLUMN time_zone;
  `);
}
