/**
 * Payments into escrow and payouts out of it: one row per transfer, named by our own reference (a UUID the
 * provider also knows it by). Written only by app/operations/payments.server.ts.
 */
import type { Db } from "~/server/db.server";
import { storedWords, type Said } from "~/content/operation-messages";
import { backoffDelay } from "~/utils/backoff";
import type { Network, ProviderName } from "~/payments/provider.server";

export type PaymentRow = {
  id: number;
  orderId: number;
  provider: ProviderName;
  network: Network;
  msisdn: string;
  reference: string;
  amountUgx: number;
  /**
   * successful: the payment that counts for the order (at most one); refunded: taken after another payment of
   * the order was, so given back whole (ADR 043).
   */
  status: "pending" | "successful" | "failed" | "refunded";
  /** Why it failed: the provider's or our English (their diagnosis), and what the member reads, as a key (ADR 047). */
  failureReason: string | null;
  failureSaid: Said | null;
  polls: number;
  /** Set when a newer payment of the order replaced it (the prompt sent again, another number); still followed while pending. */
  supersededAt: Date | null;
  /** When the payment is next due to be asked about (a backoff shared by the worker and the waiting page). */
  nextPollAt: Date;
  createdAt: Date;
};

/** Why a transfer failed, as stored: the English, and the key it is said by when there is one. */
function failureColumns(reason: string | Said | undefined) {
  if (reason === undefined) return { failure_reason: null, failure_key: null, failure_values: null };
  const words = storedWords(reason);
  return { failure_reason: words.text, failure_key: words.key, failure_values: words.values };
}

/** The columns payments and payouts share: a transfer named by our reference, and where it stands. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const transferOf = (r: any) => ({
  id: Number(r.id),
  provider: r.provider as ProviderName,
  network: r.network as Network,
  msisdn: r.msisdn as string,
  reference: r.reference as string,
  amountUgx: Number(r.amount_ugx),
  failureReason: r.failure_reason as string | null,
  failureSaid: r.failure_key ? { key: r.failure_key as string, values: (r.failure_values ?? {}) as Said["values"] } : null,
  polls: r.polls as number,
  createdAt: r.created_at as Date,
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const toPayment = (r: any): PaymentRow => ({
  ...transferOf(r),
  orderId: Number(r.order_id),
  status: r.status,
  nextPollAt: r.next_poll_at,
  supersededAt: r.superseded_at ?? null,
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isReference = (s: unknown): s is string => typeof s === "string" && UUID.test(s);

export async function insertPayment(
  db: Db,
  p: { orderId: number; provider: ProviderName; network: Network; msisdn: string; reference: string; amountUgx: number },
) {
  await db("payments").insert({
    order_id: p.orderId,
    provider: p.provider,
    network: p.network,
    msisdn: p.msisdn,
    reference: p.reference,
    amount_ugx: p.amountUgx,
  });
}

export async function getPaymentByReference(db: Db, reference: string, { lock = false } = {}): Promise<PaymentRow | null> {
  if (!isReference(reference)) return null;
  const q = db("payments").where({ reference }).first();
  if (lock) q.forUpdate();
  const row = await q;
  return row ? toPayment(row) : null;
}

/** The newest payment of an order (the one its waiting page follows). */
export async function latestPayment(db: Db, orderId: number): Promise<PaymentRow | null> {
  const row = await db("payments").where({ order_id: orderId }).orderBy("id", "desc").first();
  return row ? toPayment(row) : null;
}

/** Marks every pending payment of the order superseded (a newer one is about to be asked for); returns their references. */
export async function supersedePendingPayments(db: Db, orderId: number): Promise<string[]> {
  const rows = await db("payments")
    .where({ order_id: orderId, status: "pending" })
    .whereNull("superseded_at")
    .update({ superseded_at: db.fn.now() })
    .returning("reference");
  return rows.map((r: { reference: string }) => r.reference);
}

/** The payment of an order that was taken, if any (at most one: payments_one_taken_idx). */
export async function successfulPaymentOf(db: Db, orderId: number): Promise<PaymentRow | null> {
  const row = await db("payments").where({ order_id: orderId, status: "successful" }).first();
  return row ? toPayment(row) : null;
}

export async function settlePaymentRow(
  db: Db,
  id: number,
  s: { status: "successful" | "failed" | "refunded"; providerTransactionId?: string | null; reason?: string | Said },
) {
  await db("payments")
    .where({ id })
    .update({ status: s.status, provider_transaction_id: s.providerTransactionId ?? null, ...failureColumns(s.reason), settled_at: db.fn.now() });
}

/** Asks again later: sooner at first (a phone prompt is answered in seconds), then less often. */
export async function deferPoll(db: Db, table: "payments" | "payouts", id: number, polls: number) {
  // 5 s, 10 s, 20 s … at most 5 minutes between polls.
  const seconds = backoffDelay(polls, { initialMs: 5_000, maxMs: 300_000 }) / 1000;
  await db(table)
    .where({ id })
    .update({ polls: polls + 1, next_poll_at: db.raw(`now() + make_interval(secs => ?)`, [seconds]) });
}

export async function duePaymentReferences(db: Db, at: Date, limit = 100): Promise<string[]> {
  const rows = await db("payments").where("status", "pending").where("next_poll_at", "<=", at).orderBy("next_poll_at").limit(limit).select("reference");
  return rows.map((r) => r.reference);
}

export type PayoutRow = {
  id: number;
  userId: number;
  kind: "withdrawal" | "refund";
  orderId: number | null;
  provider: ProviderName;
  network: Network;
  msisdn: string;
  reference: string;
  amountUgx: number;
  status: "in_transit" | "paid" | "failed";
  /** Why it failed: the provider's or our English (their diagnosis), and what the member reads, as a key (ADR 047). */
  failureReason: string | null;
  failureSaid: Said | null;
  polls: number;
  createdAt: Date;
  settledAt: Date | null;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const toPayout = (r: any): PayoutRow => ({
  ...transferOf(r),
  userId: Number(r.user_id),
  kind: r.kind,
  orderId: r.order_id === null ? null : Number(r.order_id),
  status: r.status,
  settledAt: r.settled_at,
});

/** Inserts a payout unless this member's request key made one already; returns it either way. */
export async function insertPayout(
  db: Db,
  p: {
    userId: number;
    kind: PayoutRow["kind"];
    orderId?: number;
    provider: ProviderName;
    network: Network;
    msisdn: string;
    reference: string;
    amountUgx: number;
    requestKey: string;
  },
): Promise<{ payout: PayoutRow; created: boolean }> {
  const [row] = await db("payouts")
    .insert({
      user_id: p.userId,
      kind: p.kind,
      order_id: p.orderId ?? null,
      provider: p.provider,
      network: p.network,
      msisdn: p.msisdn,
      reference: p.reference,
      amount_ugx: p.amountUgx,
      request_key: p.requestKey,
    })
    .onConflict(["user_id", "request_key"])
    .ignore()
    .returning("*");
  if (row) return { payout: toPayout(row), created: true };
  const existing = await db("payouts").where({ user_id: p.userId, request_key: p.requestKey }).first();
  return { payout: toPayout(existing), created: false };
}

export async function getPayoutByReference(db: Db, reference: string, { lock = false } = {}): Promise<PayoutRow | null> {
  if (!isReference(reference)) return null;
  const q = db("payouts").where({ reference }).first();
  if (lock) q.forUpdate();
  const row = await q;
  return row ? toPayout(row) : null;
}

export async function settlePayoutRow(db: Db, id: number, s: { status: "paid" | "failed"; providerTransactionId?: string | null; reason?: string | Said }) {
  await db("payouts")
    .where({ id })
    .update({ status: s.status, provider_transaction_id: s.providerTransactionId ?? null, ...failureColumns(s.reason), settled_at: db.fn.now() });
}

export async function duePayoutReferences(db: Db, at: Date, limit = 100): Promise<string[]> {
  const rows = await db("payouts").where("status", "in_transit").where("next_poll_at", "<=", at).orderBy("next_poll_at").limit(limit).select("reference");
  return rows.map((r) => r.reference);
}

export async function listPayouts(db: Db, userId: number, limit = 20): Promise<PayoutRow[]> {
  const rows = await db("payouts").where({ user_id: userId }).orderBy("id", "desc").limit(limit);
  return rows.map(toPayout);
}

/** A page of the member's payouts (withdrawals and refunds, or one kind), newest first: those with ids below `beforeId`. */
export async function listPayoutsPage(
  db: Db,
  userId: number,
  { limit, beforeId, kind }: { limit: number; beforeId?: number; kind?: PayoutRow["kind"] },
): Promise<PayoutRow[]> {
  const q = db("payouts").where({ user_id: userId }).orderBy("id", "desc").limit(limit);
  if (kind) q.where({ kind });
  if (beforeId !== undefined) q.where("id", "<", beforeId);
  return (await q).map(toPayout);
}
