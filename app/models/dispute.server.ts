/** Disputes: one open at a time per order; an admin closes each by releasing to the seller or refunding the buyer. */
import type { Db } from "~/server/db.server";

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

export async function resolveDisputeRow(db: Db, id: number, r: { resolution: "release" | "refund"; note: string; adminId: number }) {
  await db("disputes")
    .where({ id, status: "open" })
    .update({ status: "resolved", resolution: r.resolution, resolution_note: r.note, resolved_by: r.adminId, resolved_at: db.fn.now() });
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
    buyerName: r.buyer,
    sellerName: r.seller,
  }));
}
