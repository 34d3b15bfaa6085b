/**
 * An admin resolves a dispute (ADR 014, ADR 044): release all to the seller, refund all to the buyer, or split
 * the price, part back to the buyer and the rest to the seller. One transaction, under the order's row lock:
 * the order's step through the state machine, its one journal (escrow_released, order_refunded or
 * dispute_split, with the refund's payout_sent), the dispute row with both parts of the price, the audit row,
 * and a notification (and mail, if wanted) to each party quoting the admin's reason. The refund payout is
 * asked of the provider after the commit. Two admins resolving at once: the second waits for the lock and
 * finds the dispute decided.
 */
import { lastResolutionOf, openDisputeOf, resolveDisputeRow, type Resolution } from "~/models/dispute.server";
import { lockOrder, type OrderRow } from "~/models/order.server";
import { successfulPaymentOf } from "~/models/payment.server";
import { conflict, forbidden, invalid, issue, notFound, ok, transact, type Actor, type Result, type Tx } from "~/operations/core.server";
import { notifyParty, refundBuyer, releaseEscrow, splitEscrow, transition, type OrderActor } from "~/operations/order-machine.server";
import { requestPayout, type PaymentOptions } from "~/operations/payments.server";
import { splitShares } from "~/domain/fees";

export type ResolveDisputeInput = {
  orderId: number;
  resolution: Resolution;
  /** For a split: the part of the price refunded to the buyer, 1 to the price less 1. Ignored otherwise. */
  refundUgx?: number;
  /** The admin's reason, shown to both parties. */
  note: string;
};

/** A notification quotes at most this much of the reason; the order page shows all of it. */
const QUOTED_REASON = 280;
const quoted = (reason: string) => (reason.length > QUOTED_REASON ? `${reason.slice(0, QUOTED_REASON - 1)}…` : reason);

export async function resolveDispute(
  actor: Actor,
  input: ResolveDisputeInput,
  options: PaymentOptions = {},
): Promise<Result<{ status: string; resolution: Resolution; buyerUgx: number; sellerUgx: number }>> {
  if (actor.kind !== "member" || actor.user.role !== "admin") return forbidden("dispute.admins_only");
  const admin = actor.user;
  const note = input.note.trim();
  if (!note) return invalid({ note: [issue("dispute.reason_required")] });
  if (input.resolution === "split" && (input.refundUgx === undefined || !Number.isSafeInteger(input.refundUgx))) {
    return invalid({ refundUgx: [issue("dispute.split_amount_required")] });
  }
  const now = (options.now ?? (() => new Date()))();
  let refund: string | null = null;
  const result = await transact(
    actor,
    async (tx) => {
      const order = await lockOrder(tx.trx, input.orderId);
      if (!order) return notFound("order.not_found");
      const dispute = await openDisputeOf(tx.trx, order.id, { lock: true });
      if (!dispute) {
        const decided = await lastResolutionOf(tx.trx, order.id);
        return decided ? conflict("dispute.already_resolved", { resolution: decided }) : conflict("order.no_open_dispute");
      }
      const refundUgx = input.resolution === "release" ? 0 : input.resolution === "refund" ? order.priceUgx : (input.refundUgx ?? 0);
      if (input.resolution === "split" && (refundUgx < 1 || refundUgx > order.priceUgx - 1)) {
        return invalid({ refundUgx: [issue("dispute.split_out_of_range", { maxUgx: order.priceUgx - 1 })] });
      }
      const by: OrderActor = { id: admin.id, role: "admin" };
      const step = await decide(tx, order, by, input.resolution, refundUgx, note, now);
      if (!step.ok) return step;
      refund = step.value;
      if (
        !(await resolveDisputeRow(tx.trx, dispute.id, {
          resolution: input.resolution,
          refundUgx,
          releaseUgx: order.priceUgx - refundUgx,
          note,
          adminId: admin.id,
        }))
      ) {
        // Not reached while the order's lock is held; a guard, so a resolution is never recorded twice.
        return conflict("dispute.already_resolved", { resolution: input.resolution });
      }
      const shares = splitShares(order, refundUgx);
      await tx.audit({
        action: `dispute.${input.resolution}`,
        targetType: "order",
        targetId: order.id,
        details: { note, refundUgx, releaseUgx: shares.releaseUgx, buyerUgx: shares.buyerTotalUgx, sellerUgx: shares.sellerNetUgx },
      });
      await tellParties(tx, order, input.resolution, shares.buyerTotalUgx, shares.sellerNetUgx, note);
      return ok({ status: order.status, resolution: input.resolution, buyerUgx: shares.buyerTotalUgx, sellerUgx: shares.sellerNetUgx });
    },
    { db: options.db },
  );
  if (result.ok && refund) await requestPayout(refund, options);
  return result;
}

/**
 * The order's step and its money: a release completes the order and releases the escrow; a refund cancels it
 * and refunds everything the buyer paid; a split completes it with the split's journal. Returns the refund
 * payout's reference, if one was started.
 */
async function decide(
  tx: Tx,
  order: OrderRow,
  by: OrderActor,
  resolution: Resolution,
  refundUgx: number,
  reason: string,
  now: Date,
): Promise<Result<string | null>> {
  if (resolution === "release") {
    const refused = await transition(tx, order, "resolve_release", by, { kind: "dispute_released", reason, patch: { completed_at: now } });
    if (refused) return refused;
    await releaseEscrow(tx, order);
    return ok(null);
  }
  const payment = await successfulPaymentOf(tx.trx, order.id);
  if (resolution === "refund") {
    const refused = await transition(tx, order, "resolve_refund", by, { kind: "dispute_refunded", reason, patch: { cancelled_at: now } });
    if (refused) return refused;
    return ok(await refundBuyer(tx, order, payment));
  }
  // An order in progress or delivered was paid; without a payment there is no number to refund to.
  if (!payment || payment.status !== "successful") return conflict("order.not_allowed_now", { status: order.status });
  const releaseUgx = order.priceUgx - refundUgx;
  const refused = await transition(tx, order, "resolve_split", by, { kind: "dispute_split", reason, patch: { completed_at: now }, valueUgx: releaseUgx });
  if (refused) return refused;
  return ok(await splitEscrow(tx, order, payment, refundUgx));
}

/** What each party is told of each outcome (keys of the `notify` catalogue), before the admin's reason. */
const DECIDED: Record<Resolution, { buyer: string; seller: string }> = {
  release: { buyer: "notify.dispute.releaseBuyer", seller: "notify.dispute.releaseSeller" },
  refund: { buyer: "notify.dispute.refundBuyer", seller: "notify.dispute.refundSeller" },
  split: { buyer: "notify.dispute.splitBuyer", seller: "notify.dispute.splitSeller" },
};

/** Each party is told the outcome, what it means for them, and the admin's reason (as the admin wrote it). */
async function tellParties(tx: Tx, order: OrderRow, resolution: Resolution, buyerUgx: number, sellerUgx: number, reason: string) {
  const values = { title: order.gigTitle, buyerAmount: { ugx: buyerUgx }, sellerAmount: { ugx: sellerUgx }, reason: quoted(reason) };
  await notifyParty(tx, order.buyerId, order, "dispute_resolved", { key: DECIDED[resolution].buyer, values });
  await notifyParty(tx, order.sellerId, order, "dispute_resolved", { key: DECIDED[resolution].seller, values });
}
