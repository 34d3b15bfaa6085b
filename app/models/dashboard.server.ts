/**
 * The dashboard's figures, computed from the member's own rows: order counts from the orders they are a
 * party to, money from the ledger (earnings are what was ever credited to the seller, never a stored total).
 */
import { sellerEarnings } from "~/models/ledger.server";
import { orderFigures } from "~/models/order.server";
import type { SessionUser } from "~/models/session.server";
import type { Db } from "~/server/db.server";
import { savedCounts } from "~/models/saved.server";

/** The dashboard's figures, by code: the screen names them in the reader's language. */
export type StatName = "publishedGigs" | "activeOrders" | "earnings" | "rating" | "completedOrders" | "totalSpent" | "savedSellers";
export type StatCard = { name: StatName; value: number; kind: "count" | "money" | "rating" };

export type DashboardGig = { id: number; title: string; status: "draft" | "published" | "paused"; startingPriceUgx: number | null };

export async function getDashboardStats(db: Db, user: SessionUser): Promise<StatCard[]> {
  if (user.role === "freelancer") {
    const [published, me, orders, earnedUgx] = await Promise.all([
      db("gigs").where({ seller_id: user.id, status: "published" }).count<{ count: number }[]>({ count: "*" }).first(),
      db("users").where({ id: user.id }).first("rating"),
      orderFigures(db, user.id),
      sellerEarnings(db, user.id),
    ]);
    return [
      { name: "publishedGigs", value: Number(published?.count ?? 0), kind: "count" },
      { name: "activeOrders", value: orders.sellingActive, kind: "count" },
      { name: "earnings", value: earnedUgx, kind: "money" },
      { name: "rating", value: Number(me?.rating ?? 0), kind: "rating" },
    ];
  }
  const [saved, orders] = await Promise.all([savedCounts(db, user.id), orderFigures(db, user.id)]);
  return [
    { name: "activeOrders", value: orders.buyingActive, kind: "count" },
    { name: "completedOrders", value: orders.boughtCompleted, kind: "count" },
    { name: "totalSpent", value: orders.spentUgx, kind: "money" },
    // The sellers they saved who are still active: what /saved lists (ADR 052).
    { name: "savedSellers", value: saved.sellers, kind: "count" },
  ];
}

/** A seller's own gigs, every status, newest first, with the lowest package price. */
export async function listOwnGigs(db: Db, sellerId: number): Promise<DashboardGig[]> {
  const rows = await db("gigs as g")
    .leftJoin("gig_packages as p", "p.gig_id", "g.id")
    .where("g.seller_id", sellerId)
    .groupBy("g.id")
    .orderBy("g.created_at", "desc")
    .select("g.id", "g.title", "g.status", db.raw("min(p.price_ugx) as starting_price"));
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    status: r.status,
    startingPriceUgx: r.starting_price === null ? null : Number(r.starting_price),
  }));
}
