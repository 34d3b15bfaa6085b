/**
 * Orders (ADR 014): checkout, delivery, revisions, approval, cancellation, opening a dispute (an admin resolves
 * it: disputes.server.ts) and the timers. Each
 * operation locks the order, asks the state machine (order-rules.ts) whether this party may do this now,
 * and makes the step and its money move in one transaction (order-machine.server.ts). Another member's
 * order is "not found" to them; a step the order's state does not allow is a conflict (409) that says why.
 */
import { randomUUID } from "node:crypto";
import { conversionFact } from "~/analytics/conversions.server";
import { insertDispute, openDisputeOf } from "~/models/dispute.server";
import { getGigPage } from "~/models/gig.server";
import {
  dueOrderIds,
  insertDelivery,
  insertOrder,
  insertOrderEvent,
  insertOrderFiles,
  lockOrder,
  orderFacts,
  partyRole,
  updateOrder,
  type OrderRow,
} from "~/models/order.server";
import { insertPayment, successfulPaymentOf } from "~/models/payment.server";
import { takeUploadedFiles } from "~/models/uploaded-file.server";
import {
  conflict,
  forbidden,
  invalid,
  issue,
  limitedBy,
  notFound,
  ok,
  transact,
  type Actor,
  type Failure,
  type Result,
  type Tx,
} from "~/operations/core.server";
import { clearEarnings, note, notifyParty, refundBuyer, releaseEscrow, transition, type OrderActor } from "~/operations/order-machine.server";
import { orderNotice } from "~/operations/order-notices.server";
import { eachSafely, requestPayment, requestPayout, type PaymentOptions } from "~/operations/payments.server";
import { getProviders } from "~/payments/registry.server";
import { getUgxPerUsd } from "~/server/currency.server";
import { getDb } from "~/server/db.server";
import { getEnv } from "~/server/env.server";
import { buyerFee, sellerFee, feesFromEnv } from "~/domain/fees";
import { deleteOrderFile, type StoredOrderFile } from "~/server/files/order-files.server";
import { AUTO_COMPLETE_MS, CLEARANCE_MS, orderActions, type OrderAction } from "~/domain/order-rules";
import type { CheckoutInput } from "~/schemas/order";
import { consume } from "~/server/rate-limit.server";
import type { Said } from "~/content/operation-messages";

const DAY_MS = 24 * 60 * 60 * 1000;

/** A text as the timeline keeps it: order_events.reason holds at most 2,000 characters. */
const quote = (text: string) => (text.length > 2000 ? `${text.slice(0, 1999)}…` : text);

/** The member behind an actor, active, or why they cannot act on orders. */
function partyOf(actor: Actor) {
  if (actor.kind !== "member") return forbidden("access.sign_in_required");
  return { ok: true as const, user: actor.user };
}

/**
 * Locks one of the member's orders and tells their part in it, or "not found" (another member's order
 * looks exactly like no order at all).
 */
async function lockOwnOrder(tx: Tx, orderId: number, userId: number) {
  const order = await lockOrder(tx.trx, orderId);
  const role = order ? partyRole(order, userId) : null;
  if (!order || !role) return notFound("order.not_found");
  return { ok: true as const, order, role, by: { id: userId, role } as OrderActor };
}

/** Refuses an action the state machine does not offer this party now, saying why. */
async function check(tx: Tx, order: OrderRow, userId: number, action: OrderAction, now: Date): Promise<Failure | null> {
  const facts = await orderFacts(tx.trx, order);
  if (orderActions(facts, userId, now).has(action)) return null;
  if (facts.disputeOpen && order.status !== "completed" && order.status !== "cancelled") return conflict("order.dispute_open");
  if (action === "request_revision" && order.status === "delivered" && order.revisionsUsed >= order.revisionsAllowed) {
    return conflict("order.no_revisions_left");
  }
  if (action === "review" && facts.reviewed) return conflict("order.already_reviewed");
  return conflict("order.not_allowed_now", { status: order.status });
}

/**
 * `files` are stored by the caller (the checkout page); `uploadKeys` name the buyer's earlier uploads (the JSON
 * API), taken in the order's transaction: a key that is not theirs, or used already, refuses the order.
 */
export type PlaceOrderInput = CheckoutInput & { files?: StoredOrderFile[]; uploadKeys?: string[] };

/** The member's uploads by key, or the refusal beside `files` when any is not theirs to use. */
async function takeUploads(tx: Tx, userId: number, keys: string[] | undefined): Promise<StoredOrderFile[] | Failure> {
  const taken = await takeUploadedFiles(tx.trx, userId, keys ?? []);
  return taken ?? invalid({ files: [issue("order.upload_unknown")] });
}

/**
 * Checkout: places the order (pending_payment) with its payment, at the package's own price and the fees
 * of today, the USD rate frozen on it, then asks the payer's phone. The same checkout key twice is the same
 * order. Files are stored by the caller before (storeOrderFile) and recorded here, or deleted if refused.
 */
export async function placeOrder(
  actor: Actor,
  input: PlaceOrderInput,
  options: PaymentOptions = {},
): Promise<Result<{ orderId: number; reference: string; created: boolean }>> {
  const result = await placeOrderRows(actor, input, options);
  if (!result.ok) {
    for (const f of input.files ?? []) await deleteOrderFile(f.storageKey);
    return result;
  }
  if (result.value.created) await requestPayment(result.value.reference, options);
  return result;
}

async function placeOrderRows(actor: Actor, input: PlaceOrderInput, { db, providers = getProviders() }: PaymentOptions) {
  const member = partyOf(actor);
  if (!member.ok) return member;
  const buyer = member.user;
  if (buyer.role === "admin") return forbidden("order.admins_do_not_buy");
  const provider = providers.forNetwork(input.network);
  if (!provider) return conflict("payment.unavailable");
  const limited = await consume("checkout", [String(buyer.id)]);
  if (limited) return limitedBy(limited);
  const d = db ?? getDb();
  const gig = await getGigPage(d, input.gigId, null);
  if (!gig || gig.status !== "published") return notFound("gig.not_found");
  if (gig.seller.id === buyer.id) return forbidden("order.own_gig");
  const pkg = gig.packages.find((p) => p.tier === input.tier);
  if (!pkg) return notFound("gig.no_such_package");
  const fees = feesFromEnv(getEnv());
  const buyerFeeUgx = buyerFee(pkg.priceUgx, fees);
  const ugxPerUsd = await getUgxPerUsd(d);
  return transact(
    actor,
    async (tx) => {
      const me = await tx.trx("users").where({ id: buyer.id }).first("status");
      if (me?.status !== "active") return forbidden("order.account_cannot_order");
      const placed = await insertOrder(tx.trx, {
        buyerId: buyer.id,
        sellerId: gig.seller.id,
        gigId: gig.id,
        gigTitle: gig.title,
        tier: pkg.tier,
        packageName: pkg.name,
        priceUgx: pkg.priceUgx,
        buyerFeeUgx,
        sellerFeeUgx: sellerFee(pkg.priceUgx, fees),
        ugxPerUsd: ugxPerUsd > 0 ? ugxPerUsd : 1,
        deliveryDays: pkg.deliveryDays,
        revisionsAllowed: pkg.revisions,
        requirements: input.requirements,
        checkoutKey: input.checkoutKey,
      });
      if (!placed.created) {
        const payment = await tx.trx("payments").where({ order_id: placed.id }).orderBy("id", "desc").first("reference");
        return ok({ orderId: placed.id, reference: String(payment?.reference ?? ""), created: false });
      }
      const uploads = await takeUploads(tx, buyer.id, input.uploadKeys);
      if (!Array.isArray(uploads)) return uploads;
      const reference = randomUUID();
      await insertPayment(tx.trx, {
        orderId: placed.id,
        provider: provider.name,
        network: input.network,
        msisdn: input.msisdn,
        reference,
        amountUgx: pkg.priceUgx + buyerFeeUgx,
      });
      await insertOrderFiles(
        tx.trx,
        [...(input.files ?? []), ...uploads].map((f) => ({ ...f, orderId: placed.id, deliveryId: null, uploaderId: buyer.id })),
      );
      await insertOrderEvent(tx.trx, { orderId: placed.id, actorId: buyer.id, actorRole: "buyer", kind: "placed", from: null, to: "pending_payment" });
      await tx.activity(buyer.id, "order_placed", { orderId: placed.id, gigId: gig.id });
      const fact = conversionFact(actor, {
        type: "order_placed",
        userId: buyer.id,
        subjectId: placed.id,
        valueUgx: pkg.priceUgx + buyerFeeUgx,
        metadata: { order_id: placed.id, gig_id: gig.id, tier: pkg.tier },
      });
      await tx.effect({ kind: "conversion", fact }, `conversion:order_placed:${placed.id}`);
      return ok({ orderId: placed.id, reference, created: true });
    },
    { db },
  );
}

/** Runs a party's step on their order in one transaction, and sends any refund it started after the commit. */
async function partyStep<T>(
  actor: Actor,
  orderId: number,
  body: (
    tx: Tx,
    o: { order: OrderRow; role: "buyer" | "seller"; by: OrderActor; userId: number; now: Date },
  ) => Promise<Result<T> | { result: Result<T>; refund: string | null }>,
  options: PaymentOptions,
): Promise<Result<T>> {
  const member = partyOf(actor);
  if (!member.ok) return member;
  const userId = member.user.id;
  const now = (options.now ?? (() => new Date()))();
  let refund: string | null = null;
  const result = await transact(
    actor,
    async (tx) => {
      const own = await lockOwnOrder(tx, orderId, userId);
      if (!own.ok) return own;
      const out = await body(tx, { ...own, userId, now });
      if ("result" in out) {
        refund = out.refund;
        return out.result;
      }
      return out;
    },
    { db: options.db },
  );
  if (result.ok && refund) await requestPayout(refund, options);
  return result;
}

/**
 * The seller delivers: a message and optional files (stored by the caller, or the seller's uploads by key,
 * as placeOrder takes them); the buyer has 3 days to approve or ask for a revision.
 */
export async function deliverOrder(
  actor: Actor,
  input: { orderId: number; message: string; files?: StoredOrderFile[]; uploadKeys?: string[] },
  options: PaymentOptions = {},
): Promise<Result<{ deliveryId: number }>> {
  const result = await partyStep(
    actor,
    input.orderId,
    async (tx, { order, by, userId, now }) => {
      const refused = await check(tx, order, userId, "deliver", now);
      if (refused) return refused;
      const uploads = await takeUploads(tx, userId, input.uploadKeys);
      if (!Array.isArray(uploads)) return uploads;
      const deliveryId = await insertDelivery(tx.trx, order.id, input.message);
      await insertOrderFiles(
        tx.trx,
        [...(input.files ?? []), ...uploads].map((f) => ({ ...f, orderId: order.id, deliveryId, uploaderId: userId })),
      );
      // The timeline quotes the delivery's message (the whole of it is the delivery's own row).
      await transition(tx, order, "deliver", by, { kind: "delivered", reason: quote(input.message), patch: { delivered_at: now } });
      await notifyParty(tx, order.buyerId, order, "order_delivered", orderNotice.delivered(order));
      return ok({ deliveryId });
    },
    options,
  );
  if (!result.ok) for (const f of input.files ?? []) await deleteOrderFile(f.storageKey);
  return result;
}

/**
 * The buyer asks for a revision, while revisions remain. The order is back in progress; if it was due
 * within two days, it is now due two days from now, so asking for changes never makes the seller late.
 */
export async function requestRevision(actor: Actor, input: { orderId: number; reason: string }, options: PaymentOptions = {}) {
  return partyStep(
    actor,
    input.orderId,
    async (tx, { order, by, userId, now }) => {
      const refused = await check(tx, order, userId, "request_revision", now);
      if (refused) return refused;
      const soonest = new Date(now.getTime() + 2 * DAY_MS);
      const dueAt = order.dueAt && order.dueAt > soonest ? order.dueAt : soonest;
      await transition(tx, order, "request_revision", by, {
        kind: "revision_requested",
        reason: input.reason,
        patch: { revisions_used: order.revisionsUsed + 1, due_at: dueAt },
      });
      await notifyParty(tx, order.sellerId, order, "revision_requested", orderNotice.revisionRequested(order));
      return ok({ revisionsLeft: order.revisionsAllowed - order.revisionsUsed - 1 });
    },
    options,
  );
}

/** Completion by the buyer: the escrow is released to the seller's pending balance. */
export async function approveOrder(actor: Actor, input: { orderId: number }, options: PaymentOptions = {}) {
  return partyStep(
    actor,
    input.orderId,
    async (tx, { order, by, userId, now }) => {
      const refused = await check(tx, order, userId, "approve", now);
      if (refused) return refused;
      await complete(tx, order, by, "approved", now);
      return ok({ status: order.status });
    },
    options,
  );
}

async function complete(
  tx: Tx,
  order: OrderRow,
  by: OrderActor,
  kind: string,
  now: Date,
  step: "approve" | "auto_complete" = "approve",
  reason: string | Said = "",
) {
  const refused = await transition(tx, order, step, by, { kind, reason, patch: { completed_at: now } });
  if (refused) return refused;
  await releaseEscrow(tx, order);
  // The timer's completion is texted in words of its own: the buyer approved nothing.
  const textKey = step === "auto_complete" ? "notify.sms.autoCompleted" : undefined;
  await notifyParty(tx, order.sellerId, order, "order_completed", orderNotice.completed(order), textKey);
  return null;
}

async function cancelWithRefund(tx: Tx, order: OrderRow, by: OrderActor, kind: string, reason: string, now: Date, step: "cancel" = "cancel") {
  const refused = await transition(tx, order, step, by, { kind, reason, patch: { cancelled_at: now } });
  if (refused) return { refused, refund: null };
  const refund = await refundBuyer(tx, order, await successfulPaymentOf(tx.trx, order.id));
  const body = orderNotice.cancelled(order);
  await notifyParty(tx, order.buyerId, order, "order_cancelled", body);
  await notifyParty(tx, order.sellerId, order, "order_cancelled", body);
  return { refused: null, refund };
}

/**
 * Cancel, as the rules of docs/product.md allow: the buyer gives up an unpaid order; the buyer cancels alone
 * an order more than 24 hours late; otherwise one party asks and the order is cancelled when the other
 * agrees (by cancelling too). Paid money goes back to the buyer. With `expected`, only that kind of cancel is
 * done (a button drawn for an unpaid order must not become a cancel request once the payment lands).
 */
export async function cancelOrder(
  actor: Actor,
  input: { orderId: number; reason: string; expected?: "abandon" | "cancel" | "request_cancel" | "agree_cancel" },
  options: PaymentOptions = {},
): Promise<Result<{ outcome: "cancelled" | "requested" }>> {
  return partyStep<{ outcome: "cancelled" | "requested" }>(
    actor,
    input.orderId,
    async (tx, { order, by, userId, now }) => {
      const facts = await orderFacts(tx.trx, order);
      const actions = orderActions(facts, userId, now);
      if (input.expected && !actions.has(input.expected)) return (await check(tx, order, userId, input.expected, now))!;
      if (actions.has("abandon")) {
        // The payment stays pending: should it be approved after all, the poll finds it and refunds it.
        await transition(tx, order, "fail_payment", by, { kind: "cancelled", reason: input.reason, patch: { cancelled_at: now } });
        return ok({ outcome: "cancelled" as const });
      }
      if (actions.has("cancel") || actions.has("agree_cancel")) {
        const kind = actions.has("agree_cancel") ? "cancel_agreed" : "cancelled_late";
        const { refused, refund } = await cancelWithRefund(tx, order, by, kind, input.reason, now);
        if (refused) return refused;
        return { result: ok({ outcome: "cancelled" as const }), refund };
      }
      if (actions.has("request_cancel")) {
        await updateOrder(tx.trx, order.id, { cancel_requested_by: userId });
        await note(tx, order, by, "cancel_requested", input.reason);
        const other = userId === order.buyerId ? order.sellerId : order.buyerId;
        await notifyParty(tx, other, order, "cancel_requested", orderNotice.cancelRequested(order, other === order.sellerId ? "buyer" : "seller"));
        return ok({ outcome: "requested" as const });
      }
      if (actions.has("withdraw_cancel")) return conflict("order.cancel_pending");
      return (await check(tx, order, userId, "request_cancel", now))!;
    },
    options,
  );
}

/** Either party takes a cancel request off the table: its asker withdraws it, or the other declines it. */
export async function declineCancel(actor: Actor, input: { orderId: number }, options: PaymentOptions = {}) {
  return partyStep(
    actor,
    input.orderId,
    async (tx, { order, by, userId, now }) => {
      const actions = orderActions(await orderFacts(tx.trx, order), userId, now);
      if (!actions.has("withdraw_cancel") && !actions.has("decline_cancel")) return conflict("order.no_cancel_request");
      await updateOrder(tx.trx, order.id, { cancel_requested_by: null });
      await note(tx, order, by, actions.has("withdraw_cancel") ? "cancel_withdrawn" : "cancel_declined");
      return ok({ status: order.status });
    },
    options,
  );
}

/** Either party opens a dispute, with a reason: the auto-complete timer stops and an admin decides. */
export async function openDispute(actor: Actor, input: { orderId: number; reason: string }, options: PaymentOptions = {}) {
  return partyStep(
    actor,
    input.orderId,
    async (tx, { order, by, userId, now }) => {
      const refused = await check(tx, order, userId, "dispute", now);
      if (refused) return refused;
      const id = await insertDispute(tx.trx, { orderId: order.id, openedBy: userId, reason: input.reason });
      if (id === null) return conflict("order.dispute_open");
      await note(tx, order, by, "dispute_opened", input.reason);
      const other = userId === order.buyerId ? order.sellerId : order.buyerId;
      await notifyParty(tx, other, order, "dispute_opened", orderNotice.disputeOpened(order, other === order.sellerId ? "buyer" : "seller"));
      return ok({ disputeId: id });
    },
    options,
  );
}

/**
 * The worker's order timers, idempotent however often they run (each order is locked and checked again,
 * and each journal is keyed): delivered orders with no answer for 3 days complete; completed orders clear
 * into the seller's available balance after 14 days.
 */
export async function runOrderTimers(actor: Actor, options: PaymentOptions = {}): Promise<Result<{ completed: number; cleared: number }>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "run_order_timers" });
  const db = options.db ?? getDb();
  const now = (options.now ?? (() => new Date()))();
  const by: OrderActor = { id: null, role: "system" };
  let completed = 0;
  let cleared = 0;
  for (const id of await dueOrderIds(db, "auto_complete", new Date(now.getTime() - AUTO_COMPLETE_MS))) {
    const r = await eachSafely("auto-complete of order", id, () =>
      transact(
        actor,
        async (tx) => {
          const order = await lockOrder(tx.trx, id);
          if (!order || order.status !== "delivered" || !order.deliveredAt || order.deliveredAt.getTime() > now.getTime() - AUTO_COMPLETE_MS) return ok(false);
          if (await openDisputeOf(tx.trx, order.id)) return ok(false);
          const refused = await complete(tx, order, by, "auto_completed", now, "auto_complete", { key: "ops.reason.noAnswerAfterDelivery" });
          if (refused) return ok(false);
          await notifyParty(tx, order.buyerId, order, "order_completed", orderNotice.autoCompleted(order));
          return ok(true);
        },
        { db },
      ),
    );
    if (r?.ok && r.value) completed += 1;
  }
  for (const id of await dueOrderIds(db, "clearance", new Date(now.getTime() - CLEARANCE_MS))) {
    const r = await eachSafely("clearance of order", id, () =>
      transact(
        actor,
        async (tx) => {
          const order = await lockOrder(tx.trx, id);
          if (!order || order.status !== "completed" || order.clearedAt || !order.completedAt) return ok(false);
          if (order.completedAt.getTime() > now.getTime() - CLEARANCE_MS) return ok(false);
          await clearEarnings(tx, order);
          await updateOrder(tx.trx, order.id, { cleared_at: now });
          await note(tx, order, by, "cleared", { key: "ops.reason.earningsAvailable" });
          await notifyParty(tx, order.sellerId, order, "earnings_cleared", orderNotice.earningsCleared(order));
          return ok(true);
        },
        { db },
      ),
    );
    if (r?.ok && r.value) cleared += 1;
  }
  return ok({ completed, cleared });
}
