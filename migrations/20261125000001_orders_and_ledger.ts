import type { Knex } from "knex";

/**
 * Orders, their payments into escrow, the double-entry ledger that holds the money, payouts, disputes and
 * notifications (docs/product.md, ADR 014 on the ledger, ADR 015 on payment providers).
 *
 * What the database itself guarantees, whatever the code does:
 * - every journal sums to zero (a deferred constraint trigger checks each journal at commit);
 * - ledger entries are never changed or deleted (a trigger refuses), so every balance is the sum of its entries;
 * - one journal per idempotency key, one order per buyer and checkout key, one payment per reference,
 *   one open dispute per order, one review per order.
 */
export async function up(db: Knex) {
  await db.raw(`
    CREATE TABLE orders (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      buyer_id bigint NOT NULL REFERENCES users (id),
      seller_id bigint NOT NULL REFERENCES users (id),
      gig_id bigint REFERENCES gigs (id) ON DELETE SET NULL,
      -- What was bought, as it was when it was bought: a later edit of the gig changes no order.
      gig_title text NOT NULL,
      tier text NOT NULL CHECK (tier IN ('basic', 'standard', 'premium')),
      package_name text NOT NULL,
      price_ugx bigint NOT NULL CHECK (price_ugx > 0),
      buyer_fee_ugx bigint NOT NULL CHECK (buyer_fee_ugx >= 0),
      seller_fee_ugx bigint NOT NULL CHECK (seller_fee_ugx >= 0 AND seller_fee_ugx <= price_ugx),
      ugx_per_usd numeric(12, 4) NOT NULL CHECK (ugx_per_usd > 0),
      delivery_days integer NOT NULL CHECK (delivery_days > 0),
      revisions_allowed integer NOT NULL CHECK (revisions_allowed >= 0),
      revisions_used integer NOT NULL DEFAULT 0 CHECK (revisions_used >= 0),
      requirements text NOT NULL DEFAULT '' CHECK (char_length(requirements) <= 5000),
      status text NOT NULL DEFAULT 'pending_payment'
        CHECK (status IN ('pending_payment', 'in_progress', 'delivered', 'completed', 'cancelled')),
      checkout_key text NOT NULL CHECK (char_length(checkout_key) BETWEEN 8 AND 100),
      -- Who asked to cancel by agreement, while the other party has not answered.
      cancel_requested_by bigint REFERENCES users (id),
      due_at timestamptz,
      paid_at timestamptz,
      delivered_at timestamptz,
      completed_at timestamptz,
      cancelled_at timestamptz,
      cleared_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (buyer_id, checkout_key),
      CHECK (buyer_id <> seller_id)
    );
    CREATE INDEX orders_buyer_idx ON orders (buyer_id, created_at DESC);
    CREATE INDEX orders_seller_idx ON orders (seller_id, created_at DESC);
    CREATE INDEX orders_status_idx ON orders (status, updated_at);

    CREATE TABLE order_events (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      order_id bigint NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
      actor_id bigint REFERENCES users (id),
      actor_role text NOT NULL CHECK (actor_role IN ('buyer', 'seller', 'admin', 'system')),
      kind text NOT NULL,
      from_status text,
      to_status text NOT NULL,
      reason text NOT NULL DEFAULT '' CHECK (char_length(reason) <= 2000),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX order_events_order_idx ON order_events (order_id, id);

    CREATE TABLE deliveries (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      order_id bigint NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
      message text NOT NULL CHECK (char_length(message) BETWEEN 1 AND 5000),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX deliveries_order_idx ON deliveries (order_id, id);

    -- Files a buyer attaches to requirements or a seller to a delivery; only the order's parties may read them.
    CREATE TABLE order_files (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      order_id bigint NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
      delivery_id bigint REFERENCES deliveries (id) ON DELETE CASCADE,
      uploader_id bigint NOT NULL REFERENCES users (id),
      storage_key text NOT NULL UNIQUE,
      file_name text NOT NULL CHECK (char_length(file_name) BETWEEN 1 AND 200),
      content_type text NOT NULL,
      size_bytes integer NOT NULL CHECK (size_bytes > 0),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX order_files_order_idx ON order_files (order_id, id);

    CREATE TABLE payments (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      order_id bigint NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
      provider text NOT NULL CHECK (provider IN ('sandbox', 'mtn', 'airtel')),
      network text NOT NULL CHECK (network IN ('mtn', 'airtel')),
      msisdn text NOT NULL CHECK (msisdn ~ '^\\+2567[0-9]{8}$'),
      reference uuid NOT NULL UNIQUE,
      amount_ugx bigint NOT NULL CHECK (amount_ugx > 0),
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'successful', 'failed')),
      provider_transaction_id text,
      failure_reason text,
      polls integer NOT NULL DEFAULT 0,
      next_poll_at timestamptz NOT NULL DEFAULT now(),
      created_at timestamptz NOT NULL DEFAULT now(),
      settled_at timestamptz
    );
    CREATE INDEX payments_order_idx ON payments (order_id);
    CREATE INDEX payments_pending_idx ON payments (next_poll_at) WHERE status = 'pending';
    -- At most one payment of an order is ever taken.
    CREATE UNIQUE INDEX payments_one_taken_idx ON payments (order_id) WHERE status = 'successful';

    -- Money leaving the platform: a seller's withdrawal, or a buyer's refund.
    CREATE TABLE payouts (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users (id),
      kind text NOT NULL CHECK (kind IN ('withdrawal', 'refund')),
      order_id bigint REFERENCES orders (id),
      provider text NOT NULL CHECK (provider IN ('sandbox', 'mtn', 'airtel')),
      network text NOT NULL CHECK (network IN ('mtn', 'airtel')),
      msisdn text NOT NULL CHECK (msisdn ~ '^\\+2567[0-9]{8}$'),
      reference uuid NOT NULL UNIQUE,
      amount_ugx bigint NOT NULL CHECK (amount_ugx > 0),
      status text NOT NULL DEFAULT 'in_transit' CHECK (status IN ('in_transit', 'paid', 'failed')),
      request_key text NOT NULL,
      provider_transaction_id text,
      failure_reason text,
      polls integer NOT NULL DEFAULT 0,
      next_poll_at timestamptz NOT NULL DEFAULT now(),
      created_at timestamptz NOT NULL DEFAULT now(),
      settled_at timestamptz,
      UNIQUE (user_id, request_key)
    );
    CREATE INDEX payouts_user_idx ON payouts (user_id, created_at DESC);
    CREATE INDEX payouts_in_transit_idx ON payouts (next_poll_at) WHERE status = 'in_transit';

    CREATE TABLE disputes (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      order_id bigint NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
      opened_by bigint NOT NULL REFERENCES users (id),
      reason text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 2000),
      status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
      resolution text CHECK (resolution IN ('release', 'refund')),
      resolution_note text NOT NULL DEFAULT '' CHECK (char_length(resolution_note) <= 2000),
      resolved_by bigint REFERENCES users (id),
      resolved_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((status = 'open') = (resolution IS NULL))
    );
    CREATE UNIQUE INDEX disputes_one_open_idx ON disputes (order_id) WHERE status = 'open';

    CREATE TABLE notifications (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      kind text NOT NULL,
      order_id bigint REFERENCES orders (id) ON DELETE CASCADE,
      body text NOT NULL,
      read_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX notifications_user_idx ON notifications (user_id, created_at DESC);

    -- The ledger. An account is named by its code (escrow:order:12, seller_available:user:5, …).
    CREATE TABLE ledger_accounts (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      code text NOT NULL UNIQUE,
      kind text NOT NULL CHECK (kind IN (
        'provider_clearing', 'platform_seller_fees', 'platform_buyer_fees',
        'escrow', 'buyer_fee_held', 'seller_pending', 'seller_available', 'refund_due', 'payout_in_transit'
      )),
      user_id bigint REFERENCES users (id),
      order_id bigint REFERENCES orders (id),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX ledger_accounts_user_idx ON ledger_accounts (user_id) WHERE user_id IS NOT NULL;

    CREATE TABLE ledger_journals (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      idempotency_key text NOT NULL UNIQUE,
      kind text NOT NULL,
      order_id bigint REFERENCES orders (id),
      payout_id bigint REFERENCES payouts (id),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX ledger_journals_order_idx ON ledger_journals (order_id) WHERE order_id IS NOT NULL;

    CREATE TABLE ledger_entries (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      journal_id bigint NOT NULL REFERENCES ledger_journals (id),
      account_id bigint NOT NULL REFERENCES ledger_accounts (id),
      amount_ugx bigint NOT NULL CHECK (amount_ugx <> 0)
    );
    CREATE INDEX ledger_entries_account_idx ON ledger_entries (account_id);
    CREATE INDEX ledger_entries_journal_idx ON ledger_entries (journal_id);

    CREATE FUNCTION soko_journal_balances() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE total numeric; n integer;
    BEGIN
      SELECT coalesce(sum(amount_ugx), 0), count(*) INTO total, n FROM ledger_entries WHERE journal_id = NEW.journal_id;
      IF total <> 0 OR n < 2 THEN
        RAISE EXCEPTION 'ledger journal % does not balance (sum %, % entries)', NEW.journal_id, total, n
          USING ERRCODE = 'check_violation';
      END IF;
      RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER ledger_entries_balance
      AFTER INSERT ON ledger_entries DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION soko_journal_balances();

    CREATE FUNCTION soko_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'the ledger is append-only: % on % refused', TG_OP, TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
    END $$;
    CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
      FOR EACH ROW EXECUTE FUNCTION soko_ledger_append_only();
    CREATE TRIGGER ledger_journals_append_only BEFORE UPDATE OR DELETE ON ledger_journals
      FOR EACH ROW EXECUTE FUNCTION soko_ledger_append_only();

    -- One review per order, by its buyer; the demo data's reviews have no order.
    ALTER TABLE reviews ADD COLUMN order_id bigint REFERENCES orders (id) ON DELETE SET NULL;
    CREATE UNIQUE INDEX reviews_order_idx ON reviews (order_id) WHERE order_id IS NOT NULL;
  `);
}

export async function down(db: Knex) {
  await db.raw(`
    DROP INDEX IF EXISTS reviews_order_idx;
    ALTER TABLE reviews DROP COLUMN IF EXISTS order_id;
    DROP TABLE IF EXISTS ledger_entries, ledger_journals, ledger_accounts, notifications, disputes, payouts, payments,
      order_files, deliveries, order_events, orders;
    DROP FUNCTION IF EXISTS soko_journal_balances();
    DROP FUNCTION IF EXISTS soko_ledger_append_only();
  `);
}
