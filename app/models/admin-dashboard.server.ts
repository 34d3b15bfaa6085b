/**
 * The business figures of the admin dashboard, from Postgres: members,
 * orders, the ledger and gigs. Behaviour (active users, countries, devices, conversion rate) comes from
 * ClickHouse (app/analytics/reports.server.ts).
 *
 * Definitions, shown on the dashboard beside the figures:
 * - **Today**: since midnight in Kampala (EAT, UTC+3).
 * - **Orders**: orders whose payment was taken (paid into escrow); an order that was never paid is not one.
 *   Orders today: paid today. Order value: what buyers paid for them (price plus the buyer's fee).
 * - **Revenue**: the platform's revenue, the fees credited to its two fee accounts in the ledger (the
 *   buyer's service fee and the seller's commission). They are credited when an order's escrow is released
 *   to the seller (completion); a refunded order earns nothing. Revenue today: fees credited today.
 * - **Gigs**: published gigs (drafts and paused gigs are not counted).
 */
import type { Db } from "~/server/db.server";

export const DASHBOARD_TIME_ZONE = "Africa/Kampala";
export const RECENT_ACTIVITY_ROWS = 10;

export type BusinessFigures = {
  newSignupsToday: number;
  ordersToday: number;
  orderValueTodayUgx: number;
  revenueTodayUgx: number;
  totalUsers: number;
  totalOrders: number;
  totalRevenueUgx: number;
  totalGigs: number;
};

/** `kind`: the activity's kind (app/domain/activity.ts), which the screen and the API word in the reader's language. */
export type RecentActivity = { id: number; user: string; kind: string; timestamp: Date };

const num = (value: unknown) => Number(value ?? 0);

/** The start of the day `now` falls in, in Kampala, as a timestamp. */
function startOfToday(db: Db, now: Date) {
  return db.raw(`(date_trunc('day', ?::timestamptz AT TIME ZONE '${DASHBOARD_TIME_ZONE}') AT TIME ZONE '${DASHBOARD_TIME_ZONE}')`, [now.toISOString()]);
}

/** The dashboard's business figures at `now` (default: the current time). */
export async function businessFigures(db: Db, { now = new Date() }: { now?: Date } = {}): Promise<BusinessFigures> {
  const today = startOfToday(db, now);
  const at = now.toISOString();
  const [users, orders, revenue, gigs] = await Promise.all([
    db("users")
      .where("created_at", "<=", at)
      .first(db.raw("count(*) AS total"), db.raw("count(*) FILTER (WHERE created_at >= ?) AS today", [today])),
    db("orders")
      .whereNotNull("paid_at")
      .where("paid_at", "<=", at)
      .first(
        db.raw("count(*) AS total"),
        db.raw("count(*) FILTER (WHERE paid_at >= ?) AS today", [today]),
        db.raw("coalesce(sum(price_ugx + buyer_fee_ugx) FILTER (WHERE paid_at >= ?), 0) AS value_today", [today]),
      ),
    db("ledger_entries as e")
      .join("ledger_accounts as a", "a.id", "e.account_id")
      .join("ledger_journals as j", "j.id", "e.journal_id")
      .whereIn("a.kind", ["platform_buyer_fees", "platform_seller_fees"])
      .where("j.created_at", "<=", at)
      .first(db.raw("coalesce(sum(e.amount_ugx), 0) AS total"), db.raw("coalesce(sum(e.amount_ugx) FILTER (WHERE j.created_at >= ?), 0) AS today", [today])),
    db("gigs").where({ status: "published" }).first(db.raw("count(*) AS total")),
  ]);
  return {
    newSignupsToday: num(users?.today),
    ordersToday: num(orders?.today),
    orderValueTodayUgx: num(orders?.value_today),
    revenueTodayUgx: num(revenue?.today),
    totalUsers: num(users?.total),
    totalOrders: num(orders?.total),
    totalRevenueUgx: num(revenue?.total),
    totalGigs: num(gigs?.total),
  };
}

/** The latest things members did (the activity log), newest first. */
export async function recentActivity(db: Db, limit = RECENT_ACTIVITY_ROWS): Promise<RecentActivity[]> {
  const rows = await db("activity as a")
    .join("users as u", "u.id", "a.user_id")
    .orderBy([
      { column: "a.created_at", order: "desc" },
      { column: "a.id", order: "desc" },
    ])
    .limit(limit)
    .select("a.id", "a.kind", "a.created_at", "u.name");
  return rows.map((r) => ({ id: Number(r.id), user: r.name, kind: r.kind, timestamp: r.created_at }));
}
