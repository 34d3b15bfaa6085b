import type { Knex } from "knex";

/**
 * The reasons Soko itself writes on an order's timeline, and why a payment or a payout failed, in the reader's
 * language (ADR 047), as notifications are (20261207000001): the message's key in the `ops` catalogue and its
 * values, said when the row is read. `reason` and `failure_reason` keep the English (what anything reading the
 * tables directly sees, and the provider's own diagnosis); a row without a key is shown as its text, as before.
 *
 * Rows already written with one of our fixed sentences get its key here; the words are written out, not
 * imported, so that this means the same whenever it runs.
 */
const FIXED_EVENT_REASONS: Record<string, string> = {
  "Not paid within 30 minutes": "ops.reason.notPaidInTime",
  "No answer from the provider for a day": "ops.reason.noProviderAnswer",
  "No answer within 3 days of the delivery": "ops.reason.noAnswerAfterDelivery",
  "The earnings are available to withdraw": "ops.reason.earningsAvailable",
  "The payment arrived after the order was cancelled; it is being refunded.": "ops.reason.latePaymentRefunded",
  "Payments are not available": "ops.reason.paymentsUnavailable",
  "Declined on the phone": "ops.reason.declined",
  "Replaced by a newer prompt": "ops.reason.replaced",
  "Not found at the provider": "ops.reason.notFoundAtProvider",
};

export async function up(db: Knex) {
  await db.raw(`
    ALTER TABLE order_events ADD COLUMN reason_key text, ADD COLUMN reason_values jsonb;
    ALTER TABLE payments ADD COLUMN failure_key text, ADD COLUMN failure_values jsonb;
    ALTER TABLE payouts ADD COLUMN failure_key text, ADD COLUMN failure_values jsonb;
  `);
  for (const [text, key] of Object.entries(FIXED_EVENT_REASONS)) {
    await db.raw(`UPDATE order_events SET reason_key = ?, reason_values = '{}'::jsonb WHERE reason = ?`, [key, text]);
    await db.raw(`UPDATE payments SET failure_key = ?, failure_values = '{}'::jsonb WHERE failure_reason = ?`, [key, text]);
    await db.raw(`UPDATE payouts SET failure_key = ?, failure_values = '{}'::jsonb WHERE failure_reason = ?`, [key, text]);
  }
  // A review's stars, and a payment prompt sent again (the number as it was written, masked or whole).
  await db.raw(`
    UPDATE order_events SET reason_key = 'ops.reason.stars', reason_values = jsonb_build_object('rating', substring(reason from '^([1-5]) of 5 stars$')::int)
      WHERE kind = 'reviewed' AND reason ~ '^[1-5] of 5 stars$';
    UPDATE order_events SET reason_key = 'ops.reason.sentAgain', reason_values = jsonb_build_object('number', substring(reason from '^Sent again to (.+)$'))
      WHERE kind = 'payment_requested' AND reason ~ '^Sent again to .+$';
    UPDATE order_events SET reason_key = 'ops.reason.anotherNumber', reason_values = jsonb_build_object('number', substring(reason from '^Another number: (.+)$'))
      WHERE kind = 'payment_requested' AND reason ~ '^Another number: .+$';
    UPDATE order_events SET reason_key = 'ops.reason.paidAfterAnother', reason_values = jsonb_build_object('number', substring(reason from '^(.+) paid after another payment of this order$'))
      WHERE kind = 'extra_payment_refunded' AND reason ~ '^.+ paid after another payment of this order$';
  `);
}

export async function down(db: Knex) {
  await db.raw(`
    ALTER TABLE payouts DROP COLUMN IF EXISTS failure_values, DROP COLUMN IF EXISTS failure_key;
    ALTER TABLE payments DROP COLUMN IF EXISTS failure_values, DROP COLUMN IF EXISTS failure_key;
    ALTER TABLE order_events DROP COLUMN IF EXISTS reason_values, DROP COLUMN IF EXISTS reason_key;
  `);
}
