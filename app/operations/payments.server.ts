/**
 * Payments into escrow and payouts out of it (ADR 015). The provider is asked outside any transaction (a
 * slow provider must not hold a row lock); what it answers is then applied in one transaction under the
 * order's lock, through the state machine and the ledger, so applying the same answer twice (a callback
 * and a poll, two callbacks, two workers) moves money once.
 *
 * A callback only says which transfer to look at: the status is always read back from the provider.
 */
import type { Knex } from "knex";
import { randomUUID } from "node:crypto";
import { balanceOf, sellerAvailable } from "~/models/ledger.server";
import { lockJournalAccounts, postJournal } from "~/models/ledger-journals.server";
import { insertNotification } from "~/models/notification.server";
import { lockOrder } from "~/models/order.server";
import {
  deferPoll,
  duePaymentReferences,
  duePayoutReferences,
  getPaymentByReference,
  getPayoutByReference,
  insertPayout,
  settlePaymentRow,
  settlePayoutRow,
  successfulPaymentOf,
  type PayoutRow,
} from "~/models/payment.server";
import { conflict, forbidden, invalid, issue, notFound, ok, transact, type Actor, type Result } from "~/operations/core.server";
import { capturePayment, note, notifyParty, refundBuyer, transition } from "~/operations/order-machine.server";
import { returnExtraPayment } from "~/operations/payment-retries.server";
import { orderNotice } from "~/operations/order-notices.server";
import type { PaymentProvider, TransferStatus } from "~/payments/provider.server";
import { failureWords } from "~/payments/failure-words.server";
import { getProviders, type Providers } from "~/payments/registry.server";
import { getDb } from "~/server/db.server";
import { maskUrlCredentials } from "~/utils/mask-url";
import { getEnv } from "~/server/env.server";
import { guessNetwork, maskMsisdn, payoutHoldUntil } from "~/domain/mobile-money";
import { orderNumber, UNPAID_EXPIRY_MS } from "~/domain/order-rules";
import { log } from "~/server/log.server";

export type PaymentOptions = { db?: Knex; providers?: Providers; now?: () => Date };

const SYSTEM = { id: null, role: "system" } as const;

/** Asks a provider about a transfer; a provider that throws is "unknown", never a failed payment. */
async function ask(provider: PaymentProvider | null, read: (p: PaymentProvider) => Promise<TransferStatus>): Promise<TransferStatus> {
  if (!provider) return { status: "unknown", reason: "The payment provider is not configured" };
  try {
    return await read(provider);
  } catch {
    return { status: "unknown", reason: "The payment provider did not answer" };
  }
}

/** How long a payment the provider still calls pending is followed before it counts as failed. */
export const PENDING_GIVE_UP_MS = 24 * 60 * 60 * 1000;

/** How long a provider's "not found" is taken as "not arrived yet" rather than "never arrived". */
export const NOT_FOUND_GRACE_MS = 2 * 60 * 1000;

/**
 * One item of a timer's round: an error (a database that went away mid-round) is logged and the round goes
 * on with the next item; the item is tried again next round.
 */
export async function eachSafely<T>(what: string, id: string | number, run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (error) {
    log.error(maskUrlCredentials(`[order-timers] ${what} ${id}: ${(error as Error).message}`));
    return null;
  }
}

export type Settlement = "paid" | "failed" | "pending" | "unchanged";

/**
 * Applies what the provider says of a payment (a poll, a callback, the sandbox page, the expiry timer).
 * Successful: the money is captured into escrow and the order starts (or, if the order was cancelled
 * meanwhile, the money is refunded at once). Failed: the order is cancelled, nothing having been taken.
 * Pending: asked again later; once the order has waited 30 minutes it is cancelled, while its payment is
 * still followed (for a day) in case the payer approves after all.
 */
export async function settlePayment(
  actor: Actor,
  input: { reference: string },
  { db, providers = getProviders(), now = () => new Date() }: PaymentOptions = {},
): Promise<Result<{ orderId: number; settlement: Settlement }>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "settle_payments" });
  const known = await getPaymentByReference(db ?? getDb(), input.reference);
  if (!known) return notFound("payment.not_found");
  if (known.status !== "pending") return ok({ orderId: known.orderId, settlement: "unchanged" });
  let status = await ask(providers.byName(known.provider), (p) => p.paymentStatus(known.reference));
  // "Not found" soon after the request may be a request still on its way (Airtel asks for a minute before
  // the first status check): only after NOT_FOUND_GRACE_MS does it mean the request never arrived.
  const age = (p: { createdAt: Date }) => now().getTime() - p.createdAt.getTime();
  if (status.status === "failed" && /not found/i.test(status.reason) && age(known) < NOT_FOUND_GRACE_MS) {
    status = { status: "pending" };
  }
  let refundReference: string | null = null;
  const result = await transact(
    actor,
    async (tx) => {
      const order = await lockOrder(tx.trx, known.orderId);
      const payment = await getPaymentByReference(tx.trx, input.reference, { lock: true });
      if (!order || !payment) return notFound("payment.not_found");
      if (payment.status !== "pending") return ok({ orderId: order.id, settlement: "unchanged" as Settlement });
      if (status.status === "successful") {
        // Another payment of this order was taken first (a prompt sent again, another number): this one never
        // counts, and is given back whole (ADR 043).
        if (await successfulPaymentOf(tx.trx, order.id)) {
          refundReference = await returnExtraPayment(tx, order, payment, status.providerTransactionId);
          return ok({ orderId: order.id, settlement: "failed" as Settlement });
        }
        // Capture and refund at once (the order was given up): every account of both journals locked in one
        // sorted call, so this never holds provider_clearing while waiting for the buyer's payout accounts,
        // which a payout being settled takes in the other order (ledger.server.ts, lockAccounts).
        if (order.status !== "pending_payment") {
          await lockJournalAccounts(tx.trx, [
            ["payment_captured", { orderId: order.id }],
            ["order_refunded", { orderId: order.id, buyerId: order.buyerId }],
            ["payout_sent", { userId: order.buyerId, payoutKind: "refund" }],
          ]);
        }
        await settlePaymentRow(tx.trx, payment.id, { status: "successful", providerTransactionId: status.providerTransactionId });
        payment.status = "successful";
        await capturePayment(tx, order, payment);
        if (order.status === "pending_payment") {
          const at = now();
          await transition(tx, order, "pay", SYSTEM, {
            kind: "paid",
            patch: { paid_at: at, due_at: new Date(at.getTime() + order.deliveryDays * 24 * 60 * 60 * 1000) },
          });
          await notifyParty(tx, order.sellerId, order, "order_paid", orderNotice.newOrder(order));
          await notifyParty(tx, order.buyerId, order, "order_paid", orderNotice.paymentHeld(order));
          return ok({ orderId: order.id, settlement: "paid" as Settlement });
        }
        // Paid after the order was given up (the 30 minutes passed, or the buyer cancelled): give it back.
        refundReference = await refundBuyer(tx, order, payment);
        await note(tx, order, SYSTEM, "late_payment_refunded", { key: "ops.reason.latePaymentRefunded" });
        await notifyParty(tx, order.buyerId, order, "order_refunded", orderNotice.latePaymentRefunded(order));
        return ok({ orderId: order.id, settlement: "failed" as Settlement });
      }
      if (status.status === "failed" || (status.status === "pending" && age(payment) >= PENDING_GIVE_UP_MS)) {
        const reason = failureWords(status.status === "failed" ? status.reason : "No answer from the provider for a day");
        await settlePaymentRow(tx.trx, payment.id, { status: "failed", reason });
        // A superseded payment failing (declined, expired, withdrawn) leaves its order to the newer one.
        if (order.status === "pending_payment" && !payment.supersededAt) {
          await transition(tx, order, "fail_payment", SYSTEM, { kind: "payment_failed", reason, patch: { cancelled_at: now() } });
          await notifyParty(tx, order.buyerId, order, "payment_failed", orderNotice.paymentFailed(order));
        }
        return ok({ orderId: order.id, settlement: "failed" as Settlement });
      }
      // Thirty minutes unpaid: the order is given up, but the payment stays pending and is still asked
      // about, so that a payer who approves after all is refunded (the late path above), never charged for nothing.
      // (Only on a clear "pending": a provider that cannot be asked may have taken the money.)
      if (status.status === "pending" && order.status === "pending_payment" && now().getTime() - order.createdAt.getTime() >= UNPAID_EXPIRY_MS) {
        const reason = { key: "ops.reason.notPaidInTime" };
        await transition(tx, order, "fail_payment", SYSTEM, { kind: "payment_failed", reason, patch: { cancelled_at: now() } });
        await notifyParty(tx, order.buyerId, order, "payment_failed", orderNotice.paymentFailed(order));
        await deferPoll(tx.trx, "payments", payment.id, payment.polls);
        return ok({ orderId: order.id, settlement: "failed" as Settlement });
      }
      await deferPoll(tx.trx, "payments", payment.id, payment.polls);
      return ok({ orderId: order.id, settlement: "pending" as Settlement });
    },
    { db },
  );
  if (refundReference) await requestPayout(refundReference, { db, providers });
  return result;
}

/** A provider's callback: whichever transfer it names is settled by asking the provider. */
export async function paymentCallback(
  actor: Actor,
  input: { provider: "mtn" | "airtel" | "sandbox"; body: unknown },
  options: PaymentOptions = {},
): Promise<Result<{ settlement: Settlement }>> {
  const providers = options.providers ?? getProviders();
  const provider = providers.byName(input.provider);
  const reference = provider?.callbackReference(input.body) ?? null;
  if (!reference) return invalid({ form: [issue("payment.callback_unknown")] });
  const db = options.db ?? getDb();
  const payment = await getPaymentByReference(db, reference);
  if (payment) {
    if (payment.provider !== input.provider) return notFound("payment.not_found");
    const settled = await settlePayment(actor, { reference }, { ...options, providers });
    return settled.ok ? ok({ settlement: settled.value.settlement }) : settled;
  }
  const payout = await getPayoutByReference(db, reference);
  if (!payout || payout.provider !== input.provider) return notFound("payment.not_found");
  const settled = await settlePayout(actor, { reference }, { ...options, providers });
  return settled.ok ? ok({ settlement: settled.value.settlement === "paid" ? "paid" : settled.value.settlement }) : settled;
}

/** Sends a payment request to the payer's phone (after the checkout committed); a refusal settles it as failed. */
export async function requestPayment(reference: string, { db, providers = getProviders() }: PaymentOptions = {}) {
  const d = db ?? getDb();
  const payment = await getPaymentByReference(d, reference);
  if (!payment || payment.status !== "pending") return;
  const provider = providers.byName(payment.provider);
  const outcome = provider
    ? await provider
        .requestPayment({ reference, amountUgx: payment.amountUgx, msisdn: payment.msisdn, description: `Soko order ${orderNumber(payment.orderId)}` })
        .catch(() => ({ outcome: "unknown" as const, reason: "no answer" }))
    : ({ outcome: "rejected", reason: "Payments are not available" } as const);
  if (outcome.outcome === "rejected") {
    await transact(
      { kind: "system", name: "payments" },
      async (tx) => {
        const order = await lockOrder(tx.trx, payment.orderId);
        const row = await getPaymentByReference(tx.trx, reference, { lock: true });
        if (!order || !row || row.status !== "pending") return ok(null);
        const reason = failureWords(outcome.reason);
        await settlePaymentRow(tx.trx, row.id, { status: "failed", reason });
        if (order.status === "pending_payment" && !row.supersededAt) {
          await transition(tx, order, "fail_payment", SYSTEM, { kind: "payment_failed", reason, patch: { cancelled_at: new Date() } });
        }
        return ok(null);
      },
      { db },
    );
  }
}

/** The worker's payment poll: every pending payment that is due, and every unpaid order past 30 minutes. */
export async function pollPayments(actor: Actor, options: PaymentOptions = {}): Promise<Result<{ settled: number }>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "poll_payments" });
  const db = options.db ?? getDb();
  const now = options.now ?? (() => new Date());
  const cutoff = new Date(now().getTime() - UNPAID_EXPIRY_MS);
  const expiring = await db("payments as p")
    .join("orders as o", "o.id", "p.order_id")
    .where("p.status", "pending")
    .where("o.status", "pending_payment")
    .where("o.created_at", "<=", cutoff)
    .pluck("p.reference");
  const due = await duePaymentReferences(db, now());
  let settled = 0;
  for (const reference of new Set([...expiring, ...due])) {
    const r = await eachSafely("payment", reference, () => settlePayment(actor, { reference }, options));
    if (r?.ok && (r.value.settlement === "paid" || r.value.settlement === "failed")) settled += 1;
  }
  // An order whose payment row never came to be (a crash between the two) cannot be paid: cancel it.
  const orphans = await db("orders")
    .where("status", "pending_payment")
    .where("created_at", "<=", cutoff)
    .whereNotExists(db("payments").whereRaw("payments.order_id = orders.id").where("status", "pending").select(db.raw("1")))
    .pluck("id");
  for (const id of orphans) {
    await transact(
      actor,
      async (tx) => {
        const order = await lockOrder(tx.trx, Number(id));
        if (!order || order.status !== "pending_payment") return ok(null);
        await transition(tx, order, "fail_payment", SYSTEM, {
          kind: "payment_failed",
          reason: { key: "ops.reason.notPaidInTime" },
          patch: { cancelled_at: now() },
        });
        return ok(null);
      },
      { db },
    );
  }
  return ok({ settled });
}

// ── Payouts ────────────────────────────────────────────────────────────────────────────────────────────

/**
 * A seller withdraws from their available balance to their mobile-money number (Settings → Billing). The
 * balance is read under the account's lock, so two withdrawals at once can never take more than there is.
 * The same request key twice (a double click) is one payout. A number not proven by a texted code is refused
 * (ADR 055); for 24 hours after the member set the number, withdrawals wait (409) and nothing moves (ADR 032).
 */
export async function requestWithdrawal(
  actor: Actor,
  input: { amountUgx: number; requestKey: string },
  { db, providers = getProviders(), now = () => new Date() }: PaymentOptions = {},
): Promise<Result<{ reference: string; amountUgx: number }>> {
  if (actor.kind !== "member") return forbidden("payout.sign_in_required");
  const user = actor.user;
  const min = getEnv().PAYOUT_MIN_UGX;
  const result = await transact(
    actor,
    async (tx) => {
      const me = await tx.trx("users").where({ id: user.id }).first("mobile_money_number", "payout_number_set_at", "payout_number_verified_at", "status");
      if (!me || me.status !== "active") return forbidden("payout.account_cannot_withdraw");
      const msisdn: string | null = me.mobile_money_number;
      if (!msisdn) return conflict("payout.no_number");
      // Money goes only to a number proven by a texted code (ADR 055).
      if (!me.payout_number_verified_at) return conflict("payout.number_unverified", { number: maskMsisdn(msisdn) });
      const heldUntil = payoutHoldUntil(me.payout_number_set_at, now());
      if (heldUntil) return conflict("payout.number_held", { number: maskMsisdn(msisdn), until: heldUntil.toISOString(), timeZone: user.timeZone });
      const network = guessNetwork(msisdn) ?? "mtn";
      const provider = providers.forNetwork(network);
      if (!provider) return conflict("payout.unavailable");
      await lockJournalAccounts(tx.trx, [["payout_sent", { userId: user.id, payoutKind: "withdrawal" }]]);
      const existing = await tx.trx("payouts").where({ user_id: user.id, request_key: input.requestKey }).first("reference", "amount_ugx");
      if (existing) return ok({ reference: existing.reference as string, amountUgx: Number(existing.amount_ugx) });
      const available = await balanceOf(tx.trx, sellerAvailable(user.id));
      if (input.amountUgx > available) {
        return invalid({ amountUgx: [issue("payout.above_available", { maxUgx: available })] });
      }
      if (input.amountUgx < min) return invalid({ amountUgx: [issue("payout.below_minimum", { minUgx: min })] });
      const { payout } = await insertPayout(tx.trx, {
        userId: user.id,
        kind: "withdrawal",
        provider: provider.name,
        network,
        msisdn,
        reference: randomUUID(),
        amountUgx: input.amountUgx,
        requestKey: input.requestKey,
      });
      await postJournal(tx.trx, "payout_sent", { payoutId: payout.id, userId: user.id, payoutKind: "withdrawal", amountUgx: payout.amountUgx });
      return ok({ reference: payout.reference, amountUgx: payout.amountUgx });
    },
    { db },
  );
  if (result.ok) await requestPayout(result.value.reference, { db, providers });
  return result;
}

/** Sends a payout to the provider (after its commit); a refusal settles it as failed at once. */
export async function requestPayout(reference: string, { db, providers = getProviders() }: PaymentOptions = {}) {
  const d = db ?? getDb();
  const payout = await getPayoutByReference(d, reference);
  if (!payout || payout.status !== "in_transit") return;
  const provider = providers.byName(payout.provider);
  const description = payout.kind === "refund" ? `Soko refund, order ${orderNumber(payout.orderId ?? 0)}` : "Soko earnings";
  const outcome = provider
    ? await provider
        .disburse({ reference, amountUgx: payout.amountUgx, msisdn: payout.msisdn, description })
        .catch(() => ({ outcome: "unknown" as const, reason: "no answer" }))
    : ({ outcome: "unknown", reason: "not configured" } as const);
  if (outcome.outcome === "rejected") await applyPayoutStatus({ kind: "system", name: "payouts" }, payout, { status: "failed", reason: outcome.reason }, db);
}

/** Applies a payout's status: paid leaves the platform; failed goes back where it came from. */
type PayoutSettlement = { settlement: "paid" | "failed" | "pending" | "unchanged" };

async function applyPayoutStatus(actor: Actor, known: PayoutRow, status: TransferStatus, db?: Knex): Promise<Result<PayoutSettlement>> {
  return transact<PayoutSettlement>(
    actor,
    async (tx) => {
      const parties = { userId: known.userId, payoutKind: known.kind };
      await lockJournalAccounts(tx.trx, [
        ["payout_paid", parties],
        ["payout_returned", parties],
      ]);
      const payout = await getPayoutByReference(tx.trx, known.reference, { lock: true });
      if (!payout || payout.status !== "in_transit") return ok({ settlement: "unchanged" as const });
      if (status.status === "successful") {
        await settlePayoutRow(tx.trx, payout.id, { status: "paid", providerTransactionId: status.providerTransactionId });
        await postJournal(tx.trx, "payout_paid", { payoutId: payout.id, userId: payout.userId, amountUgx: payout.amountUgx });
        return ok({ settlement: "paid" as const });
      }
      if (status.status === "failed") {
        await settlePayoutRow(tx.trx, payout.id, { status: "failed", reason: failureWords(status.reason) });
        await postJournal(tx.trx, "payout_returned", { payoutId: payout.id, userId: payout.userId, payoutKind: payout.kind, amountUgx: payout.amountUgx });
        await insertNotification(tx.trx, {
          userId: payout.userId,
          kind: "payout_failed",
          orderId: payout.orderId,
          notice: {
            key: payout.kind === "withdrawal" ? "notify.payout.withdrawalFailed" : "notify.payout.refundFailed",
            values: { amount: { ugx: payout.amountUgx } },
          },
        });
        return ok({ settlement: "failed" as const });
      }
      await deferPoll(tx.trx, "payouts", payout.id, payout.polls);
      return ok({ settlement: "pending" as const });
    },
    { db },
  );
}

/** Asks the provider where a payout stands and applies it. */
export async function settlePayout(
  actor: Actor,
  input: { reference: string },
  { db, providers = getProviders() }: PaymentOptions = {},
): Promise<Result<{ settlement: "paid" | "failed" | "pending" | "unchanged" }>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "settle_payouts" });
  const d = db ?? getDb();
  const payout = await getPayoutByReference(d, input.reference);
  if (!payout) return notFound("payout.not_found");
  if (payout.status !== "in_transit") return ok({ settlement: "unchanged" });
  const provider = providers.byName(payout.provider);
  let status: TransferStatus = await ask(provider, (p) => p.disbursementStatus(payout.reference));
  // Never requested (a crash between the commit and the request), or not registered yet (Airtel asks for a
  // minute before the first status check): send it again under the same reference, which the provider takes
  // as the same transfer, and look again next poll. "Not found" alone never fails a payout, since the money
  // may be on its way; a provider that refuses the request fails it in requestPayout.
  if (status.status === "failed" && /not found/i.test(status.reason) && provider) {
    await requestPayout(payout.reference, { db, providers });
    status = { status: "pending" };
  }
  return applyPayoutStatus(actor, payout, status, db);
}

/** The worker's payout poll. */
export async function pollPayouts(actor: Actor, options: PaymentOptions = {}): Promise<Result<{ settled: number }>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "poll_payouts" });
  const db = options.db ?? getDb();
  let settled = 0;
  for (const reference of await duePayoutReferences(db, (options.now ?? (() => new Date()))())) {
    const r = await eachSafely("payout", reference, () => settlePayout(actor, { reference }, options));
    if (r?.ok && (r.value.settlement === "paid" || r.value.settlement === "failed")) settled += 1;
  }
  return ok({ settled });
}
