/**
 * The order state machine (ADR 014): start here. Where each part of it lives:
 *
 *   rules        app/domain/order-rules.ts: the statuses, the one table of transitions (TRANSITIONS), what a
 *                party may do now (orderActions, shared with the pages that draw the buttons), the timers'
 *                durations (UNPAID_EXPIRY_MS, AUTO_COMPLETE_MS, CLEARANCE_MS, LATE_GRACE_MS)
 *   steps        this file: transition() and note(), and the money each step moves
 *   operations   app/operations/orders.server.ts (checkout, deliver, revision, approve, cancel, dispute,
 *                runOrderTimers); app/operations/disputes.server.ts (resolveDispute);
 *                app/operations/payments.server.ts (settlePayment, pollPayments,
 *                withdrawals, settlePayout, pollPayouts)
 *   journals     app/models/ledger-journals.server.ts (one template per journal, ADR 034), written by
 *                app/models/ledger.server.ts
 *   timers       worker/order-timers-job.server.ts, each round: pollPayments (payment polls, the 30-minute
 *                expiry), pollPayouts, runOrderTimers (auto-completion, clearance)
 *
 *   transition        from → to                        who (operation)                              journals
 *   pay               pending_payment → in_progress    provider says paid (settlePayment)           payment_captured
 *   fail_payment      pending_payment → cancelled      provider, 30 minutes, buyer gives up         —
 *                                                      (settlePayment, requestPayment, pollPayments, cancelOrder)
 *   deliver           in_progress → delivered          seller (deliverOrder)                        —
 *   request_revision  delivered → in_progress          buyer (requestRevision)                      —
 *   approve           delivered → completed            buyer (approveOrder)                         escrow_released
 *   auto_complete     delivered → completed            3 days unanswered (runOrderTimers)           escrow_released
 *   cancel            in_progress, delivered           both agree, or the buyer alone when late     order_refunded,
 *                       → cancelled                    (cancelOrder)                                payout_sent
 *   resolve_refund    in_progress, delivered           admin (resolveDispute)                       order_refunded,
 *                       → cancelled                                                                 payout_sent
 *   resolve_release   in_progress, delivered           admin (resolveDispute)                       escrow_released
 *                       → completed
 *   resolve_split     in_progress, delivered           admin (resolveDispute, ADR 044)              dispute_split,
 *                       → completed                                                                 payout_sent
 *   no status change: clearance 14 days after completion (runOrderTimers): earnings_cleared (of the seller's
 *   part only, after a split); a payment that
 *   lands after its order was cancelled (settlePayment): payment_captured, order_refunded, payout_sent; a
 *   withdrawal (requestWithdrawal): payout_sent; a payout settled (settlePayout): payout_paid or payout_returned;
 *   a second payment of one order taken (settlePayment, ADR 043): payment_returned, payout_sent.
 *
 * Each function here runs inside an operation's transaction, on an order its caller has locked (lockOrder),
 * so one order changes one step at a time: a transition checks the table, updates the row, writes the
 * order_events row with its actor, notifies the other party (a notification row, and mail if they want it),
 * and records the conversion; the money moves in the same transaction, as journals posted by name whose
 * idempotency keys make a repeated move a no-op.
 */
import { randomUUID } from "node:crypto";
import { conversionFact } from "~/analytics/conversions.server";
import { lockJournalAccounts, postJournal } from "~/models/ledger-journals.server";
import { resolvedPartsOf } from "~/models/dispute.server";
import { insertNotification, sayNotice, type Notice } from "~/models/notification.server";
import { sayIn, type Said } from "~/content/operation-messages";
import { insertOrderEvent, updateOrder, type EventRole, type OrderRow } from "~/models/order.server";
import { sendMail } from "~/models/outbox.server";
import { insertPayout, type PaymentRow } from "~/models/payment.server";
import { conflict, type Failure, type Tx } from "~/operations/core.server";
import { preferencesOf, pushUnreadCount } from "~/operations/notifications.server";
import { queueLevelRecompute } from "~/operations/seller-levels.server";
import { appMailOrigin } from "~/server/host.server";
import { canTransition, orderNumber, TRANSITIONS, type Transition } from "~/domain/order-rules";
import { splitShares } from "~/domain/fees";
import { textOrderEvent } from "~/operations/sms-alerts.server";
import type { SmsWords } from "~/operations/sms.server";

/** Who acts on an order, as its timeline names them. */
export type OrderActor = { id: number | null; role: EventRole };

/**
 * A notification to one party, pushed to their open pages and mailed when they want that (their settings): the
 * notice is stored to be said in the language its reader reads in; the push and the mail are said in the
 * recipient's language now (ADR 047), never the actor's. `textKey` gives a texted kind other words (see
 * textOrderEvent).
 */
export async function notifyParty(tx: Tx, userId: number, order: OrderRow, kind: string, notice: Notice, textKey?: SmsWords["key"]) {
  await insertNotification(tx.trx, { userId, kind, orderId: order.id, notice });
  const user = await preferencesOf(tx, userId);
  if (!user) return;
  await textOrderEvent(tx, userId, order, kind, textKey);
  const body = sayNotice(notice, user.language);
  if (user.pushOrders) await pushUnreadCount(tx, userId, { kind, body, orderId: order.id, conversationId: null });
  if (user.emailOrders) {
    const _ = sayIn(user.language);
    await sendMail(tx.trx, {
      to: user.email,
      subject: _("mail.order.subject", { notice: body }),
      body: _("mail.order.body", { notice: body, number: orderNumber(order.id), title: order.gigTitle, url: `${appMailOrigin()}/orders/${order.id}` }),
    });
  }
}

/**
 * Moves an order along one transition of the table, or says why it cannot (409): the order has moved on
 * already (a second approve, a timer after a manual approve). `patch` sets the columns the step changes.
 */
export async function transition(
  tx: Tx,
  order: OrderRow,
  step: Transition,
  by: OrderActor,
  {
    kind = step as string,
    reason = "",
    patch = {},
    valueUgx,
  }: { kind?: string; reason?: string | Said; patch?: Record<string, unknown>; /** what a completion is worth, if not the price */ valueUgx?: number } = {},
): Promise<Failure | null> {
  if (!canTransition(order.status, step)) return conflict("order.not_allowed_now", { status: order.status });
  const to = TRANSITIONS[step].to;
  // A cancel request lapses when the order moves on (a delivery answers it as surely as a refusal); the
  // timeline says so, and a party who still wants out asks again.
  if (order.cancelRequestedBy !== null && to !== "cancelled") {
    await insertOrderEvent(tx.trx, {
      orderId: order.id,
      actorId: by.id,
      actorRole: by.role,
      kind: "cancel_request_lapsed",
      from: order.status,
      to: order.status,
    });
  }
  await updateOrder(tx.trx, order.id, { status: to, cancel_requested_by: null, ...patch });
  await insertOrderEvent(tx.trx, { orderId: order.id, actorId: by.id, actorRole: by.role, kind, from: order.status, to, reason });
  const from = order.status;
  order.status = to;
  order.cancelRequestedBy = null;
  await recordConversion(tx, order, from, valueUgx);
  // An order that closes after payment (completed, cancelled, a dispute decided) counts for the seller's level.
  if (to === "completed" || (to === "cancelled" && from !== "pending_payment")) await queueLevelRecompute(tx, order.sellerId, `order:${order.id}:${to}`);
  return null;
}

/** A step that changes no status (a cancel request, a dispute opened, a clearance) still goes on the timeline. */
export async function note(tx: Tx, order: OrderRow, by: OrderActor, kind: string, reason: string | Said = "") {
  await insertOrderEvent(tx.trx, { orderId: order.id, actorId: by.id, actorRole: by.role, kind, from: order.status, to: order.status, reason });
}

async function recordConversion(tx: Tx, order: OrderRow, from: string, completedUgx = order.priceUgx) {
  const type = order.status === "in_progress" && from === "pending_payment" ? "order_paid" : order.status === "completed" ? "order_completed" : null;
  if (!type) return;
  const fact = conversionFact(tx.actor, {
    type,
    userId: order.buyerId,
    subjectId: order.id,
    valueUgx: type === "order_paid" ? order.totalUgx : completedUgx,
    metadata: { order_id: order.id, gig_id: order.gigId ?? 0, tier: order.tier },
  });
  await tx.effect({ kind: "conversion", fact }, `conversion:${type}:${order.id}`);
}

/** The money of an order as its journals take it: the ids, price and fees it was placed with. */
const orderMoney = (order: OrderRow) => ({
  orderId: order.id,
  buyerId: order.buyerId,
  sellerId: order.sellerId,
  priceUgx: order.priceUgx,
  buyerFeeUgx: order.buyerFeeUgx,
  sellerFeeUgx: order.sellerFeeUgx,
});

/** The buyer's money arrives: the price into the order's escrow, the buyer's fee held beside it. */
export async function capturePayment(tx: Tx, order: OrderRow, payment: PaymentRow) {
  return postJournal(tx.trx, "payment_captured", { ...orderMoney(order), paidUgx: payment.amountUgx });
}

/** Completion: escrow to the seller's pending balance less the seller fee; both fees to the platform. */
export async function releaseEscrow(tx: Tx, order: OrderRow) {
  return postJournal(tx.trx, "escrow_released", orderMoney(order));
}

/**
 * Fourteen days after completion the seller's earnings become available to withdraw: after a dispute split,
 * only the part released to them, less its share of the seller fee (ADR 044).
 */
export async function clearEarnings(tx: Tx, order: OrderRow) {
  const parts = await resolvedPartsOf(tx.trx, order.id);
  if (parts && parts.refundUgx > 0 && parts.releaseUgx > 0) {
    const s = splitShares(order, parts.refundUgx);
    return postJournal(tx.trx, "earnings_cleared", { ...orderMoney(order), priceUgx: s.releaseUgx, sellerFeeUgx: s.sellerFeeUgx });
  }
  return postJournal(tx.trx, "earnings_cleared", orderMoney(order));
}

/**
 * Cancellation with money taken: everything the buyer paid (escrow and the fee held) becomes a refund due
 * to them, and a refund payout to the number that paid starts at once (the worker sends it and follows it).
 * Returns the payout's reference, to request it after the commit, or null when nothing had been taken.
 */
export async function refundBuyer(tx: Tx, order: OrderRow, payment: PaymentRow | null): Promise<string | null> {
  if (!payment || payment.status !== "successful") return null;
  const total = payment.amountUgx;
  // Every account both journals touch, locked in one go (code order), so two refunds cannot deadlock.
  await lockJournalAccounts(tx.trx, [
    ["order_refunded", { orderId: order.id, buyerId: order.buyerId }],
    ["payout_sent", { userId: order.buyerId, payoutKind: "refund" }],
  ]);
  const posted = await postJournal(tx.trx, "order_refunded", { ...orderMoney(order), paidUgx: total });
  if (!posted) return null;
  return sendRefund(tx, order, payment, total);
}

/**
 * A dispute split (ADR 044): `refundUgx` of the price and the matching share of the buyer's fee become a
 * refund due to the buyer, sent at once to the number that paid; the rest of the price goes to the seller's
 * pending balance less its share of the seller fee, and the fees' kept shares to the platform. Returns the
 * refund payout's reference, to request after the commit.
 */
export async function splitEscrow(tx: Tx, order: OrderRow, payment: PaymentRow, refundUgx: number): Promise<string | null> {
  await lockJournalAccounts(tx.trx, [
    ["dispute_split", { orderId: order.id, buyerId: order.buyerId, sellerId: order.sellerId }],
    ["payout_sent", { userId: order.buyerId, payoutKind: "refund" }],
  ]);
  const posted = await postJournal(tx.trx, "dispute_split", { ...orderMoney(order), refundUgx });
  if (!posted) return null;
  return sendRefund(tx, order, payment, splitShares(order, refundUgx).buyerTotalUgx);
}

/**
 * A refund payout of `total` to the number that paid, taken from the buyer's refund due. Its request key is
 * the order's (one refund an order), or a payment's for a second payment given back (ADR 043).
 */
export async function sendRefund(tx: Tx, order: OrderRow, payment: PaymentRow, total: number, requestKey = `refund:order:${order.id}`): Promise<string> {
  const { payout } = await insertPayout(tx.trx, {
    userId: order.buyerId,
    kind: "refund",
    orderId: order.id,
    provider: payment.provider,
    network: payment.network,
    msisdn: payment.msisdn,
    reference: randomUUID(),
    amountUgx: total,
    requestKey,
  });
  await postJournal(tx.trx, "payout_sent", { payoutId: payout.id, userId: order.buyerId, payoutKind: "refund", amountUgx: total });
  return payout.reference;
}
