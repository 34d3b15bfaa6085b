import type { Knex } from "knex";

/**
 * An order may have several payments (ADR 043): "Send the prompt again" and "Use another number" each start a
 * new one and mark the earlier pending ones superseded (`superseded_at`); those are still followed, because the
 * payer may approve an old prompt after all. A payment taken after another payment of its order was taken is
 * `refunded`: recorded and given back at once, never counted for the order.
 */
export async function up(db: Knex) {
  await db.raw(`
    ALTER TABLE payments ADD COLUMN superseded_at timestamptz;
    ALTER TABLE payments DROP CONSTRAINT payments_status_check;
    ALTER TABLE payments ADD CONSTRAINT payments_status_check CHECK (status IN ('pending', 'successful', 'failed', 'refunded'));
  `);
}

export async function down(db: Knex) {
  await db.raw(`
    UPDATE payments SET status = 'failed' WHERE status = 'refunded';
    ALTER TABLE payments DROP CONSTRAINT payments_status_check;
    ALTER TABLE payments ADD CONSTRAINT payments_status_check CHECK (status IN ('pending', 'successful', 'failed'));
    ALTER TABLE payments DROP COLUMN IF EXISTS superseded_at;
  `);
}
