/**
 * A payment asked for again (ADR 043): "Send the prompt again" and "Use another number" on the payment page
 * each start a new payment of the same order, and the earlier pending ones are superseded. Neither MTN MoMo
 * nor Airtel Money can withdraw a prompt they have sent, so a superseded payment is still followed until it
 * settles: whichever payment of the order is taken first counts; one taken after it is recorded and given
 * back whole (`returnExtraPayment`), so money is never lost nor counted twice. A provider that can withdraw
 * a prompt (the sandbox) is asked to, and its answer is then read back like any other.
 */
import { randomUUID } from "node:crypto";
import { lockJournalAccounts, postJournal } from "~/models/ledger-journals.server";
import { getOrder, lockOrder, type OrderRow } from "~/models/order.server";
import { getPaymentByReference, insertPayment, latestPayment, settlePaymentRow, supersedePendingPayments, type PaymentRow } from "~/models/payment.server";
import { conflict, forbidden, limitedBy, notFound, ok, systemActor, transact, type Actor, type Result, type Tx } from "~/operations/core.server";
import { note, notifyParty, sendRefund } from "~/operations/order-machine.server";
import { orderNotice } from "~/operations/order-notices.server";
import { requestPayment, settlePayment, type PaymentOptions } from "~/operations/payments.server";
import { getProviders } from "~/payments/registry.server";
import { getDb } from "~/server/db.server";
import { consume } from "~/server/rate-limit.server";
import { maskMsisdn, NETWORK_LABEL, type Network } from "~/domain/mobile-money";
import { UNPAID_EXPIRY_MS } from "~/domain/order-rules";

export type PayAgainInput = {
  orderId: number;
  /** Omitted: the prompt again, to the number and network of the order's latest payment. */
  payer?: { msisdn: string; network: Network };
};

/**
 * The order's buyer asks for its payment again, to the same number or another. Refused when the order no
 * longer waits for a payment, once its 30 minutes are over, and beyond the `payAgain` limit per order and
 * member (each request makes a phone ring). After the commit the new prompt is sent and the superseded
 * ones are withdrawn where the provider allows it.
 */
export async function payAgain(
  actor: Actor,
  input: PayAgainInput,
  { db, providers = getProviders(), now = () => new Date() }: PaymentOptions = {},
): Promise<Result<{ reference: string; superseded: string[] }>> {
  if (actor.kind !== "member") return forbidden("access.sign_in_required");
  const buyer = actor.user;
  const d = db ?? getDb();
  const seen = await getOrder(d, input.orderId);
  // Another member's order looks exactly like no order at all.
  if (!seen || seen.buyerId !== buyer.id) return notFound("order.not_found");
  const refusal = await refuse(seen, now());
  if (refusal) return refusal;
  const previous = await latestPayment(d, seen.id);
  const payer = input.payer ?? (previous ? { msisdn: previous.msisdn, network: previous.network } : null);
  if (!payer) return conflict("order.not_allowed_now", { status: seen.status });
  const provider = providers.forNetwork(payer.network);
  if (!provider) return conflict("payment.unavailable");
  const limited = await consume("payAgain", [`${seen.id}:${buyer.id}`]);
  if (limited) return limitedBy(limited);

  const result = await transact(
    actor,
    async (tx) => {
      const me = await tx.trx("users").where({ id: buyer.id }).first("status");
      if (me?.status !== "active") return forbidden("order.account_cannot_order");
      const order = await lockOrder(tx.trx, seen.id);
      if (!order || order.buyerId !== buyer.id) return notFound("order.not_found");
      const late = await refuse(order, now());
      if (late) return late;
      const superseded = await supersedePendingPayments(tx.trx, order.id);
      const reference = randomUUID();
      await insertPayment(tx.trx, {
        orderId: order.id,
        provider: provider.name,
        network: payer.network,
        msisdn: payer.msisdn,
        reference,
        amountUgx: order.totalUgx,
      });
      const same = previous?.msisdn === payer.msisdn && previous.network === payer.network;
      const to = `${maskMsisdn(payer.msisdn)} (${NETWORK_LABEL[payer.network]})`;
      await note(tx, order, { id: buyer.id, role: "buyer" }, "payment_requested", {
        key: same ? "ops.reason.sentAgain" : "ops.reason.anotherNumber",
        values: { number: to },
      });
      await tx.activity(buyer.id, "payment_requested", { orderId: order.id, network: payer.network, again: same });
      return ok({ reference, superseded });
    },
    { db },
  );
  if (!result.ok) return result;
  await requestPayment(result.value.reference, { db, providers });
  await withdrawPrompts(result.value.superseded, { db, providers });
  return result;
}

/** Why an order cannot be asked to pay again now, or null. */
async function refuse(order: OrderRow, at: Date) {
  if (order.status !== "pending_payment") return conflict("order.not_allowed_now", { status: order.status });
  if (at.getTime() - order.createdAt.getTime() >= UNPAID_EXPIRY_MS) return conflict("payment.window_closed", { minutes: UNPAID_EXPIRY_MS / 60_000 });
  return null;
}

/**
 * Withdraws superseded prompts where the provider can (the sandbox), then reads each back: a withdrawn one is
 * settled failed at once, one the provider cannot withdraw stays pending and is followed by the worker.
 */
async function withdrawPrompts(references: string[], options: PaymentOptions) {
  const providers = options.providers ?? getProviders();
  for (const reference of references) {
    const payment = await getPaymentByReference(options.db ?? getDb(), reference);
    const provider = payment ? providers.byName(payment.provider) : null;
    if (!provider?.cancelPayment) continue;
    const withdrawn = await provider.cancelPayment(reference).catch(() => false);
    if (withdrawn) await settlePayment(systemActor("pay-again"), { reference }, options);
  }
}

/**
 * A payment taken after another payment of its order was taken: recorded as `refunded`, its money put in the
 * buyer's refund due (payment_returned) and sent back to the number that paid, in the caller's transaction
 * (under the order's lock). Returns the refund payout's reference, to request after the commit.
 */
export async function returnExtraPayment(tx: Tx, order: OrderRow, payment: PaymentRow, providerTransactionId: string | null): Promise<string> {
  const parties = { userId: order.buyerId, payoutKind: "refund" as const };
  await lockJournalAccounts(tx.trx, [
    ["payment_returned", { buyerId: order.buyerId }],
    ["payout_sent", parties],
  ]);
  await settlePaymentRow(tx.trx, payment.id, { status: "refunded", providerTransactionId });
  await postJournal(tx.trx, "payment_returned", { paymentId: payment.id, orderId: order.id, buyerId: order.buyerId, paidUgx: payment.amountUgx });
  const reference = await sendRefund(tx, order, payment, payment.amountUgx, `refund:payment:${payment.id}`);
  await note(tx, order, { id: null, role: "system" }, "extra_payment_refunded", {
    key: "ops.reason.paidAfterAnother",
    values: { number: maskMsisdn(payment.msisdn) },
  });
  await notifyParty(tx, order.buyerId, order, "order_refunded", orderNotice.secondPaymentRefunded(order));
  return reference;
}
