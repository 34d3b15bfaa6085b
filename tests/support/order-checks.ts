/**
 * What the order, payment and ledger tests check beside each step. The ledger's rules, read from what is
 * stored whatever ran, in whatever order, however often, or was killed half-way: every journal balances,
 * money comes into and leaves an order once, no account holding somebody's money is below zero, and each
 * order's status agrees with its journals, payments, refunds and timeline (a finished order holds nothing).
 * `ledgerProblems` returns them as sentences naming the order, account or journal at fault, for the property
 * test and the killed worker round; `expectLedgerSound` asserts them over the whole database, after each
 * test of a file. And a trail of everything an order step could write, so a refused step can be shown to
 * have written nothing at all.
 */
import type { Knex } from "knex";
import { expect } from "vitest";
import { FINAL_STATUSES } from "~/domain/order-rules";

export const MINUTE_MS = 60 * 1000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** A clock for an operation's `now` option: this instant, or the given milliseconds from it. */
export const at = (date: Date | number) => () => new Date(date);

/**
 * The ledger's rules (ledgerProblems) over the whole database, as an assertion. Every journal balancing means
 * every entry ever posted sums to zero (each entry belongs to a journal).
 */
export async function expectLedgerSound(db: Knex) {
  expect(await ledgerProblems(db), "what breaks the ledger's rules").toEqual([]);
}

/**
 * Everything a step on these orders could have written: the orders' rows, their events, deliveries,
 * disputes, notifications and payouts, and the whole ledger (journals and entries by count).
 */
export async function trail(db: Knex, orderIds: number[]) {
  const count = async (table: string, column = "order_id") => Number((await db(table).whereIn(column, orderIds).count<{ c: string }[]>({ c: "*" }).first())?.c);
  const all = async (table: string) => Number((await db(table).count<{ c: string }[]>({ c: "*" }).first())?.c);
  return {
    orders: await db("orders")
      .whereIn("id", orderIds)
      .orderBy("id")
      .select("id", "status", "cancel_requested_by", "revisions_used", "due_at", "delivered_at", "completed_at", "cancelled_at", "cleared_at", "updated_at"),
    payments: await db("payments").whereIn("order_id", orderIds).orderBy("id").select("id", "status", "polls"),
    events: await count("order_events"),
    deliveries: await count("deliveries"),
    disputes: await db("disputes").whereIn("order_id", orderIds).orderBy("id").select("id", "status"),
    notifications: await count("notifications"),
    payouts: await all("payouts"),
    journals: await all("ledger_journals"),
    entries: await all("ledger_entries"),
    reviews: await count("reviews"),
  };
}

/** How many rows a query finds. */
export async function rowCount(query: Knex.QueryBuilder): Promise<number> {
  const row = (await query.count({ n: "*" }).first()) as { n: string | number } | undefined;
  return Number(row?.n ?? 0);
}

/** The kinds of an order's events, oldest first. */
export const eventKinds = (db: Knex, orderId: number): Promise<string[]> => db("order_events").where({ order_id: orderId }).orderBy("id").pluck("kind");

/** The idempotency keys of the journals posted for an order, oldest first. */
export const journalKeys = (db: Knex, orderId: number): Promise<string[]> =>
  db("ledger_journals").where({ order_id: orderId }).orderBy("id").pluck("idempotency_key");

/** An order's row, the columns the tests look at. */
export async function orderRow(db: Knex, orderId: number) {
  const row = await db("orders").where({ id: orderId }).first();
  return {
    status: row.status as string,
    cancelRequestedBy: row.cancel_requested_by === null ? null : Number(row.cancel_requested_by),
    revisionsUsed: Number(row.revisions_used),
    dueAt: row.due_at as Date | null,
    paidAt: row.paid_at as Date | null,
    deliveredAt: row.delivered_at as Date | null,
    completedAt: row.completed_at as Date | null,
    cancelledAt: row.cancelled_at as Date | null,
    clearedAt: row.cleared_at as Date | null,
  };
}

/** Journal kinds an order has at most once: its money comes in once, and leaves once, one way or the other. */
const ONCE_PER_ORDER = ["payment_captured", "escrow_released", "order_refunded", "dispute_split", "earnings_cleared"];

/** Accounts allowed below zero: the outside world's (money that came in from the providers). */
const MAY_GO_NEGATIVE = ["provider_clearing"];

type OrderLedger = {
  id: number;
  status: string;
  price_ugx: number;
  buyer_fee_ugx: number;
  /** dispute_split journals: part refunded, part released (ADR 044). */
  split: number;
  cleared: boolean;
  captured: number;
  released: number;
  refunded: number;
  cleared_journals: number;
  payments_taken: number;
  refund_payouts: number;
  payments_returned: number;
  returned: number;
  into_completed: number;
  into_cancelled: number;
  escrow_ugx: number;
  fee_held_ugx: number;
};

/**
 * Which orders and members to look at (their orders' journals, their payouts' journals, their accounts, and
 * the platform's fee accounts); all of them when left out.
 */
export type Scope = { orderIds: number[]; userIds: number[] };

/** What breaks the ledger's rules within the scope, as sentences; an empty list is a consistent ledger. */
export async function ledgerProblems(db: Knex, scope?: Scope): Promise<string[]> {
  const problems: string[] = [];
  // With no scope, null arrays: every row passes the filters below.
  const orderIds = scope?.orderIds ?? null;
  const userIds = scope?.userIds ?? null;
  const journalInScope = `(?::bigint[] IS NULL OR j.order_id = ANY(?::bigint[])
    OR j.payout_id IN (SELECT id FROM payouts WHERE user_id = ANY(?::bigint[])))`;
  const journalBindings = [orderIds, orderIds, userIds];

  const unbalanced = await db.raw<{ rows: { key: string; total: string; n: number }[] }>(
    `SELECT j.idempotency_key AS key, coalesce(sum(e.amount_ugx), 0) AS total, count(e.id)::int AS n
     FROM ledger_journals j LEFT JOIN ledger_entries e ON e.journal_id = j.id
     WHERE ${journalInScope}
     GROUP BY j.id HAVING coalesce(sum(e.amount_ugx), 0) <> 0 OR count(e.id) < 2`,
    journalBindings,
  );
  for (const r of unbalanced.rows) problems.push(`journal ${r.key} sums to ${r.total} over ${r.n} entries`);

  const doubled = await db.raw<{ rows: { order_id: string; kind: string; n: number }[] }>(
    `SELECT j.order_id, j.kind, count(*)::int AS n FROM ledger_journals j
     WHERE j.order_id IS NOT NULL AND j.kind = ANY(?) AND ${journalInScope}
     GROUP BY j.order_id, j.kind HAVING count(*) > 1`,
    [ONCE_PER_ORDER, ...journalBindings],
  );
  for (const r of doubled.rows) problems.push(`order ${r.order_id} has ${r.n} ${r.kind} journals`);

  const negative = await db.raw<{ rows: { code: string; total: string }[] }>(
    `SELECT a.code, sum(e.amount_ugx) AS total FROM ledger_accounts a JOIN ledger_entries e ON e.account_id = a.id
     WHERE a.kind <> ALL(?)
       AND (?::bigint[] IS NULL OR a.order_id = ANY(?::bigint[]) OR a.user_id = ANY(?::bigint[]) OR a.kind LIKE 'platform_%')
     GROUP BY a.id HAVING sum(e.amount_ugx) < 0`,
    [MAY_GO_NEGATIVE, orderIds, orderIds, userIds],
  );
  for (const r of negative.rows) problems.push(`account ${r.code} is at ${r.total}`);

  const takenTwice = await db.raw<{ rows: { order_id: string; n: number }[] }>(
    `SELECT order_id, count(*)::int AS n FROM payments WHERE status = 'successful' AND (?::bigint[] IS NULL OR order_id = ANY(?::bigint[]))
     GROUP BY order_id HAVING count(*) > 1`,
    [orderIds, orderIds],
  );
  for (const r of takenTwice.rows) problems.push(`order ${r.order_id} has ${r.n} successful payments`);

  for (const o of await orderLedgers(db, orderIds)) problems.push(...orderProblems(o));
  return problems;
}

/** The orders (all when null) with the counts their status must agree with. */
async function orderLedgers(db: Knex, orderIds: number[] | null): Promise<OrderLedger[]> {
  const { rows } = await db.raw(
    `
    SELECT o.id, o.status, o.price_ugx, o.buyer_fee_ugx, o.cleared_at IS NOT NULL AS cleared,
      (SELECT count(*) FROM ledger_journals j WHERE j.order_id = o.id AND j.kind = 'payment_captured')::int AS captured,
      (SELECT count(*) FROM ledger_journals j WHERE j.order_id = o.id AND j.kind = 'escrow_released')::int AS released,
      (SELECT count(*) FROM ledger_journals j WHERE j.order_id = o.id AND j.kind = 'order_refunded')::int AS refunded,
      (SELECT count(*) FROM ledger_journals j WHERE j.order_id = o.id AND j.kind = 'dispute_split')::int AS split,
      (SELECT count(*) FROM ledger_journals j WHERE j.order_id = o.id AND j.kind = 'earnings_cleared')::int AS cleared_journals,
      (SELECT count(*) FROM payments p WHERE p.order_id = o.id AND p.status = 'successful')::int AS payments_taken,
      (SELECT count(*) FROM payments p WHERE p.order_id = o.id AND p.status = 'refunded')::int AS payments_returned,
      (SELECT count(*) FROM ledger_journals j WHERE j.order_id = o.id AND j.kind = 'payment_returned')::int AS returned,
      (SELECT count(*) FROM payouts p WHERE p.order_id = o.id AND p.kind = 'refund')::int AS refund_payouts,
      (SELECT count(*) FROM order_events v WHERE v.order_id = o.id AND v.to_status = 'completed' AND v.from_status IS DISTINCT FROM 'completed')::int AS into_completed,
      (SELECT count(*) FROM order_events v WHERE v.order_id = o.id AND v.to_status = 'cancelled' AND v.from_status IS DISTINCT FROM 'cancelled')::int AS into_cancelled,
      (SELECT coalesce(sum(e.amount_ugx), 0) FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
        WHERE a.code = 'escrow:order:' || o.id OR (a.kind = 'escrow' AND a.order_id = o.id)) AS escrow_ugx,
      (SELECT coalesce(sum(e.amount_ugx), 0) FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
        WHERE a.code = 'buyer_fee_held:order:' || o.id OR (a.kind = 'buyer_fee_held' AND a.order_id = o.id)) AS fee_held_ugx
    FROM orders o WHERE ?::bigint[] IS NULL OR o.id = ANY(?::bigint[]) ORDER BY o.id`,
    [orderIds, orderIds],
  );
  return rows.map((r: Record<string, unknown>) => ({
    ...(r as OrderLedger),
    id: Number(r.id),
    price_ugx: Number(r.price_ugx),
    buyer_fee_ugx: Number(r.buyer_fee_ugx),
    escrow_ugx: Number(r.escrow_ugx),
    fee_held_ugx: Number(r.fee_held_ugx),
  }));
}

/** An order's status against its journals, payments, refunds and timeline. */
function orderProblems(o: OrderLedger): string[] {
  const problems: string[] = [];
  const say = (what: string) => problems.push(`order ${o.id} (${o.status}): ${what}`);
  if (o.captured !== o.payments_taken) say(`${o.payments_taken} successful payments but ${o.captured} payment_captured journals`);
  if (o.released + o.refunded + o.split > 1) say("its escrow was emptied more than once (released, refunded or split)");
  // A second payment of the order (ADR 043) is given back by a refund of its own.
  if (o.returned !== o.payments_returned) say(`${o.payments_returned} refunded payments but ${o.returned} payment_returned journals`);
  if (o.refund_payouts !== o.refunded + o.split + o.returned)
    say(`${o.refunded + o.split + o.returned} order_refunded, dispute_split or payment_returned journals but ${o.refund_payouts} refund payouts`);
  if (o.cleared_journals !== (o.cleared ? 1 : 0)) say(`cleared_at ${o.cleared ? "set" : "unset"} but ${o.cleared_journals} earnings_cleared journals`);
  switch (o.status) {
    case "pending_payment":
      if (o.captured || o.released || o.refunded) say("money moved for an unpaid order");
      break;
    case "in_progress":
    case "delivered":
      if (o.captured !== 1) say(`${o.captured} payment_captured journals for a paid order`);
      if (o.released || o.refunded || o.split) say("money left the escrow of an open order");
      if (o.escrow_ugx !== o.price_ugx || o.fee_held_ugx !== o.buyer_fee_ugx)
        say(`escrow ${o.escrow_ugx} and fee held ${o.fee_held_ugx} for a price of ${o.price_ugx} and fee ${o.buyer_fee_ugx}`);
      break;
    case "completed":
      if (o.captured !== 1 || o.released + o.split !== 1 || o.refunded !== 0)
        say(`captured ${o.captured}, released or split ${o.released + o.split}, refunded ${o.refunded} (want 1, 1, 0)`);
      if (o.into_completed !== 1) say(`${o.into_completed} events completing it`);
      break;
    case "cancelled":
      if (o.released || o.split) say("released to the seller");
      if (o.refunded !== o.captured) say(`captured ${o.captured} but refunded ${o.refunded}`);
      if (o.into_cancelled !== 1) say(`${o.into_cancelled} events cancelling it`);
      break;
    default:
      say("unknown status");
  }
  if (FINAL_STATUSES.has(o.status) && (o.escrow_ugx !== 0 || o.fee_held_ugx !== 0)) {
    say(`escrow ${o.escrow_ugx} and fee held ${o.fee_held_ugx} left on a finished order`);
  }
  if (o.cleared && o.status !== "completed") say("cleared but not completed");
  return problems;
}
