/**
 * The order state machine's moving parts, shared by the order, payment and payout operations (ADR 014).
 * Each function runs inside an operation's transaction, on an order its caller has locked (lockOrder), so
 * one order changes one step at a time: a transition checks the table of order-rules.ts, updates the row,
 * writes the order_events row with its actor, notifies the other party (a notification row, and mail if
 * they want it), and records the conversion; the money moves in the same transaction, as ledger journals
 * whose idempotency keys make a repeated move a no-op.
 */
import { randomUUID } from "node:crypto";
import { conversionFact } from "~/analytics/conversions.server";
import {
  buyerFeeHeld,
  escrow,
  lockAccounts,
  payoutInTransit,
  platform,
  postJournal,
  refundDue,
  sellerAvailable,
  sellerPending,
} from "~/models/ledger.server";
import { insertNotification } from "~/models/notification.server";
import { insertOrderEvent, updateOrder, type EventRole, type OrderRow } from "~/models/order.server";
import { sendMail } from "~/models/outbox.server";
import { insertPayout, type PaymentRow } from "~/models/payment.server";
import { conflict, type Failure, type Tx } from "~/operations/core.server";
import { preferencesOf, pushUnreadCount } from "~/operations/notifications.server";
import { appMailOrigin } from "~/server/host.server";
import { canTransition, orderNumber, TRANSITIONS, type Transition } from "~/domain/order-rules";

/** Who acts on an order, as its timeline names them. */
export type OrderActor = { id: number | null; role: EventRole };

/** A notification to one party, pushed to their open pages and mailed when they want that (their settings). */
export async function notifyParty(tx: Tx, userId: number, order: OrderRow, kind: string, body: string) {
  await insertNotification(tx.trx, { userId, kind, orderId: order.id, body });
  const user = await preferencesOf(tx, userId);
  if (user?.pushOrders) await pushUnreadCount(tx, userId, { kind, body, orderId: order.id, conversationId: null });
  if (user?.emailOrders) {
    await sendMail(tx.trx, {
      to: user.email,
      subject: `Soko: ${body}`,
      body: `${body}\n\nOrder ${orderNumber(order.id)}: ${order.gigTitle}\nSee it on Soko: ${appMailOrigin()}/orders/${order.id}\n`,
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
  { kind = step as string, reason = "", patch = {} }: { kind?: string; reason?: string; patch?: Record<string, unknown> } = {},
): Promise<Failure | null> {
  if (!canTransition(order.status, step)) return conflict("order.not_allowed_now", { status: order.status });
  const to = TRANSITIONS[step].to;
  // A cancel request lapses when the order moves on (a delivery answers it as surely as a refusal); the
  // timeline says so, and a party who still wants out asks again.
  if (order.cancelRequestedBy !== null && to !== "cancelled") {
    await insertOrderEvent(tx.trx, { orderId: order.id, actorId: by.id, actorRole: by.role, kind: "cancel_request_lapsed", from: order.status, to: order.status });
  }
  await updateOrder(tx.trx, order.id, { status: to, cancel_requested_by: null, ...patch });
  await insertOrderEvent(tx.trx, { orderId: order.id, actorId: by.id, actorRole: by.role, kind, from: order.status, to, reason });
  const from = order.status;
  order.status = to;
  order.cancelRequestedBy = null;
  await recordConversion(tx, order, from);
  return null;
}

/** A step that changes no status (a cancel request, a dispute opened, a clearance) still goes on the timeline. */
export async function note(tx: Tx, order: OrderRow, by: OrderActor, kind: string, reason = "") {
  await insertOrderEvent(tx.trx, { orderId: order.id, actorId: by.id, actorRole: by.role, kind, from: order.status, to: order.status, reason });
}

async function recordConversion(tx: Tx, order: OrderRow, from: string) {
  const type = order.status === "in_progress" && from === "pending_payment" ? "order_paid" : order.status === "completed" ? "order_completed" : null;
  if (!type) return;
  const fact = conversionFact(tx.actor, {
    type,
    userId: order.buyerId,
    subjectId: order.id,
    valueUgx: type === "order_paid" ? order.totalUgx : order.priceUgx,
    metadata: { order_id: order.id, gig_id: order.gigId ?? 0, tier: order.tier },
  });
  await tx.effect({ kind: "conversion", fact }, `conversion:${type}:${order.id}`);
}

/** The buyer's money arrives: the price into the order's escrow, the buyer's fee held beside it. */
export async function capturePayment(tx: Tx, order: OrderRow, payment: PaymentRow) {
  return postJournal(tx.trx, {
    key: `order:${order.id}:captured`,
    kind: "payment_captured",
    orderId: order.id,
    postings: [
      { account: platform.clearing, amountUgx: -payment.amountUgx },
      { account: escrow(order.id), amountUgx: order.priceUgx },
      { account: buyerFeeHeld(order.id), amountUgx: payment.amountUgx - order.priceUgx },
    ],
  });
}

/** Completion: escrow to the seller's pending balance less the seller fee; both fees to the platform. */
export async function releaseEscrow(tx: Tx, order: OrderRow) {
  return postJournal(tx.trx, {
    key: `order:${order.id}:released`,
    kind: "escrow_released",
    orderId: order.id,
    postings: [
      { account: escrow(order.id), amountUgx: -order.priceUgx },
      { account: buyerFeeHeld(order.id), amountUgx: -order.buyerFeeUgx },
      { account: sellerPending(order.sellerId), amountUgx: order.priceUgx - order.sellerFeeUgx },
      { account: platform.sellerFees, amountUgx: order.sellerFeeUgx },
      { account: platform.buyerFees, amountUgx: order.buyerFeeUgx },
    ],
  });
}

/** Fourteen days after completion the seller's earnings become available to withdraw. */
export async function clearEarnings(tx: Tx, order: OrderRow) {
  const net = order.priceUgx - order.sellerFeeUgx;
  return postJournal(tx.trx, {
    key: `order:${order.id}:cleared`,
    kind: "earnings_cleared",
    orderId: order.id,
    postings: [
      { account: sellerPending(order.sellerId), amountUgx: -net },
      { account: sellerAvailable(order.sellerId), amountUgx: net },
    ],
  });
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
  await lockAccounts(tx.trx, [escrow(order.id), buyerFeeHeld(order.id), refundDue(order.buyerId), payoutInTransit(order.buyerId)]);
  const posted = await postJournal(tx.trx, {
    key: `order:${order.id}:refunded`,
    kind: "order_refunded",
    orderId: order.id,
    postings: [
      { account: escrow(order.id), amountUgx: -order.priceUgx },
      { account: buyerFeeHeld(order.id), amountUgx: -(total - order.priceUgx) },
      { account: refundDue(order.buyerId), amountUgx: total },
    ],
  });
  if (!posted) return null;
  const { payout } = await insertPayout(tx.trx, {
    userId: order.buyerId,
    kind: "refund",
    orderId: order.id,
    provider: payment.provider,
    network: payment.network,
    msisdn: payment.msisdn,
    reference: randomUUID(),
    amountUgx: total,
    requestKey: `refund:order:${order.id}`,
  });
  await postJournal(tx.trx, {
    key: `payout:${payout.id}:sent`,
    kind: "payout_sent",
    payoutId: payout.id,
    postings: [
      { account: refundDue(order.buyerId), amountUgx: -total },
      { account: payoutInTransit(order.buyerId), amountUgx: total },
    ],
  });
  return payout.reference;
}

