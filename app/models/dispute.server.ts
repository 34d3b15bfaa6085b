/**
 * Disputes: one open at a time per order; an admin closes each by releasing all to the seller, refunding all to
 * the buyer, or splitting the price between them (ADR 044). A resolved dispute records both parts of the price.
 */
import type { Db } from "~/server/db.server";
import { splitShares } from "~/domain/fees";
import type { DisputeResolution } from "~/domain/order-rules";

export type Resolution = DisputeResolution;

export async function insertDispute(db: Db, d: { orderId: number; openedBy: number; reason: string }): Promise<number | null> {
  const [row] = await db("disputes")
    .insert({ order_id: d.orderId, opened_by: d.openedBy, reason: d.reason })
    .onConflict(db.raw("(order_id) WHERE status = 'open'"))
    .ignore()
    .returning("id");
  return row ? Number(row.id) : null;
}

export async function openDisputeOf(db: Db, orderId: number, { lock = false } = {}) {
  const q = db("disputes").where({ order_id: orderId, status: "open" }).first();
  if (lock) q.forUpdate();
  const r = await q;
  return r ? { id: Number(r.id), openedBy: Number(r.opened_by), reason: r.reason as string, createdAt: r.created_at as Date } : null;
}

/** Closes an open dispute with its outcome and the two parts of the price; false when it was not open any more. */
export async function resolveDisputeRow(
  db: Db,
  id: number,
  r: { resolution: Resolution; refundUgx: number; releaseUgx: number; note: string; adminId: number },
): Promise<boolean> {
  const changed = await db("disputes").where({ id, status: "open" }).update({
    status: "resolved",
    resolution: r.resolution,
    refund_ugx: r.refundUgx,
    release_ugx: r.releaseUgx,
    resolution_note: r.note,
    resolved_by: r.adminId,
    resolved_at: db.fn.now(),
  });
  return changed === 1;
}

/** The latest resolved dispute of an order, for a refusal that says it was decided already. */
export async function lastResolutionOf(db: Db, orderId: number): Promise<Resolution | null> {
  const r = await db("disputes").where({ order_id: orderId, status: "resolved" }).orderBy("resolved_at", "desc").first("resolution");
  return r ? (r.resolution as Resolution) : null;
}

/** The parts of the price the order's resolved dispute gave each side, if one was resolved (the clearance reads it). */
export async function resolvedPartsOf(db: Db, orderId: number): Promise<{ refundUgx: number; releaseUgx: number } | null> {
  const r = await db("disputes")
    .where({ order_id: orderId, status: "resolved" })
    .whereNotNull("refund_ugx")
    .orderBy("resolved_at", "desc")
    .first("refund_ugx", "release_ugx");
  return r ? { refundUgx: Number(r.refund_ugx), releaseUgx: Number(r.release_ugx) } : null;
}

/** How a resolved dispute ended, as both parties see it on the order (app/components/dispute-outcome.tsx). */
export type DisputeOutcome = {
  resolution: Resolution;
  /** What went back to the buyer: the refunded part of the price and the matching share of their fee. */
  buyerUgx: number;
  /** What the seller earns: the released part of the price less its share of the seller fee. */
  sellerUgx: number;
  /** The parts of the price as the admin decided them. */
  refundUgx: number;
  releaseUgx: number;
  reason: string;
  resolvedAt: string;
};

/** The order's latest resolved dispute, with what each side got, or null. */
export async function disputeOutcomeOf(db: Db, orderId: number): Promise<DisputeOutcome | null> {
  const r = await db("disputes as d")
    .join("orders as o", "o.id", "d.order_id")
    .where({ "d.order_id": orderId, "d.status": "resolved" })
    .orderBy("d.resolved_at", "desc")
    .first("d.resolution", "d.refund_ugx", "d.resolution_note", "d.resolved_at", "o.price_ugx", "o.buyer_fee_ugx", "o.seller_fee_ugx");
  if (!r || r.refund_ugx === null) return null;
  const shares = splitShares(
    { priceUgx: Number(r.price_ugx), buyerFeeUgx: Number(r.buyer_fee_ugx), sellerFeeUgx: Number(r.seller_fee_ugx) },
    Number(r.refund_ugx),
  );
  return {
    resolution: r.resolution as Resolution,
    buyerUgx: shares.buyerTotalUgx,
    sellerUgx: shares.sellerNetUgx,
    refundUgx: shares.refundUgx,
    releaseUgx: shares.releaseUgx,
    reason: r.resolution_note as string,
    resolvedAt: new Date(r.resolved_at).toISOString(),
  };
}

export type OpenDispute = {
  id: number;
  orderId: number;
  reason: string;
  openedByName: string;
  openedByRole: "buyer" | "seller";
  createdAt: Date;
  gigTitle: string;
  status: string;
  totalUgx: number;
  priceUgx: number;
  buyerName: string;
  sellerName: string;
};

/** Open disputes, oldest first, for the admin screen. */
export async function listOpenDisputes(db: Db, limit = 100): Promise<OpenDispute[]> {
  const rows = await db("disputes as d")
    .join("orders as o", "o.id", "d.order_id")
    .join("users as b", "b.id", "o.buyer_id")
    .join("users as s", "s.id", "o.seller_id")
    .join("users as u", "u.id", "d.opened_by")
    .where("d.status", "open")
    .orderBy("d.created_at")
    .limit(limit)
    .select(
      "d.id",
      "d.order_id",
      "d.reason",
      "d.created_at",
      "d.opened_by",
      "u.name as opener",
      "o.buyer_id",
      "o.gig_title",
      "o.status",
      "o.price_ugx",
      "o.buyer_fee_ugx",
      "b.name as buyer",
      "s.name as seller",
    );
  return rows.map((r) => ({
    id: Number(r.id),
    orderId: Number(r.order_id),
    reason: r.reason,
    openedByName: r.opener,
    openedByRole: Number(r.opened_by) === Number(r.buyer_id) ? "buyer" : "seller",
    createdAt: r.created_at,
    gigTitle: r.gig_title,
    status: r.status,
    totalUgx: Number(r.price_ugx) + Number(r.buyer_fee_ugx),
    priceUgx: Number(r.price_ugx),
    buyerName: r.buyer,
    sellerName: r.seller,
  }));
}
