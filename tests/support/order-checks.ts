/**
 * What the order, payment and ledger tests check beside each step: the book as a whole (every entry ever
 * posted sums to zero; a finished order holds no money), and a trail of everything an order step could
 * write, so a refused step can be shown to have written nothing at all.
 */
import type { Knex } from "knex";
import { expect } from "vitest";
import { FINAL_STATUSES } from "~/utils/order-rules";

export const MINUTE_MS = 60 * 1000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** A clock for an operation's `now` option: this instant, or the given milliseconds from it. */
export const at = (date: Date | number) => () => new Date(date);

/**
 * The ledger's rules over the whole database: every entry together sums to zero (each journal does), no
 * account that holds money for somebody is below zero (only the outside world, provider_clearing, may be),
 * and an order that is completed or cancelled holds nothing in escrow or in its buyer's fee account.
 */
export async function expectLedgerSound(db: Knex) {
  const total = await db("ledger_entries").sum<{ total: string | null }[]>({ total: "amount_ugx" }).first();
  expect(Number(total?.total ?? 0), "the sum of all ledger entries").toBe(0);
  const negative = await db("ledger_accounts as a")
    .join("ledger_entries as e", "e.account_id", "a.id")
    .whereNot("a.kind", "provider_clearing")
    .groupBy("a.code")
    .havingRaw("sum(e.amount_ugx) < 0")
    .select("a.code", db.raw("sum(e.amount_ugx)::bigint as total"));
  expect(negative, "accounts below zero").toEqual([]);
  const held = await db("ledger_accounts as a")
    .join("orders as o", "o.id", "a.order_id")
    .leftJoin("ledger_entries as e", "e.account_id", "a.id")
    .whereIn("a.kind", ["escrow", "buyer_fee_held"])
    .whereIn("o.status", [...FINAL_STATUSES])
    .groupBy("a.code", "o.status")
    .havingRaw("coalesce(sum(e.amount_ugx), 0) <> 0")
    .select("a.code", "o.status", db.raw("sum(e.amount_ugx)::bigint as total"));
  expect(held, "money held by orders that are completed or cancelled").toEqual([]);
}

/**
 * Everything a step on these orders could have written: the orders' rows, their events, deliveries,
 * disputes, notifications and payouts, and the whole ledger (journals and entries by count).
 */
export async function trail(db: Knex, orderIds: number[]) {
  const count = async (table: string, column = "order_id") =>
    Number((await db(table).whereIn(column, orderIds).count<{ c: string }[]>({ c: "*" }).first())?.c);
  const all = async (table: string) => Number((await db(table).count<{ c: string }[]>({ c: "*" }).first())?.c);
  return {
    orders: await db("orders").whereIn("id", orderIds).orderBy("id").select(
      "id",
      "status",
      "cancel_requested_by",
      "revisions_used",
      "due_at",
      "delivered_at",
      "completed_at",
      "cancelled_at",
      "cleared_at",
      "updated_at",
    ),
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

/** The kinds of an order's events, oldest first. */
export const eventKinds = (db: Knex, orderId: number): Promise<string[]> =>
  db("order_events").where({ order_id: orderId }).orderBy("id").pluck("kind");

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
