import type { Knex } from "knex";

/**
 * Texts sent by SMS (ADR 050), one row per event: `event_key` is unique, so the same event (an order paid, a
 * code asked for) is never texted twice however often its operation or effect runs. `status` is ours (queued,
 * held until morning, sending, sent, failed after retries, refused by the gateway); `delivery_status` is what
 * the gateway's delivery reports say later (a hint, nothing else is taken from them). The cost is kept as the
 * gateway reported it ("UGX 35.0000": currency and amount) for the pipeline screen.
 */
export async function up(db: Knex) {
  await db.raw(`
    CREATE TABLE sms_messages (
      id bigserial PRIMARY KEY,
      user_id bigint REFERENCES users (id) ON DELETE SET NULL,
      to_number text NOT NULL CHECK (to_number ~ '^\\+2567[0-9]{8}$'),
      body text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 640),
      purpose text NOT NULL CHECK (purpose IN ('verification', 'order', 'message')),
      event_key text NOT NULL UNIQUE CHECK (char_length(event_key) <= 200),
      status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'held', 'sending', 'sent', 'failed', 'refused')),
      provider text,
      gateway_message_id text UNIQUE,
      gateway_status_code integer,
      cost_currency text CHECK (cost_currency ~ '^[A-Z]{3}$'),
      cost_amount numeric(14, 4),
      delivery_status text,
      delivery_failure text,
      delivery_reported_at timestamptz,
      attempts integer NOT NULL DEFAULT 0,
      last_error text,
      send_after timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )
  `);
  // The daily cap counts a member's texts of the day; the pipeline screen counts texts by day.
  await db.raw(`CREATE INDEX sms_messages_user_created_idx ON sms_messages (user_id, created_at)`);
  await db.raw(`CREATE INDEX sms_messages_created_idx ON sms_messages (created_at)`);
}

export async function down(db: Knex) {
  await db.raw(`DROP TABLE IF EXISTS sms_messages`);
}
