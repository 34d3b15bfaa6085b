/**
 * Orders: rows, their timeline (order_events) and deliveries. Only app/operations/orders.server.ts (and the
 * payment operations it shares the state machine with) writes through this module; every read a page makes
 * is filtered by the member asking, so an order id of somebody else's finds nothing.
 */
import type { Knex } from "knex";
import type { Db } from "~/server/db.server";
import { storedWords, type Said } from "~/content/operation-messages";
import { ORDER_TABS, type OrderFacts, type OrderStatus, type OrderTab } from "~/domain/order-rules";

export type OrderRow = {
  id: number;
  buyerId: number;
  sellerId: number;
  gigId: number | null;
  gigTitle: string;
  tier: "basic" | "standard" | "premium";
  packageName: string;
  priceUgx: number;
  buyerFeeUgx: number;
  sellerFeeUgx: number;
  totalUgx: number;
  ugxPerUsd: number;
  deliveryDays: number;
  revisionsAllowed: number;
  revisionsUsed: number;
  requirements: string;
  status: OrderStatus;
  cancelRequestedBy: number | null;
  dueAt: Date | null;
  paidAt: Date | null;
  deliveredAt: Date | null;
  completedAt: Date | null;
  cancelledAt: Date | null;
  clearedAt: Date | null;
  createdAt: Date;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function toOrder(r: any): OrderRow {
  return {
    id: Number(r.id),
    buyerId: Number(r.buyer_id),
    sellerId: Number(r.seller_id),
    gigId: r.gig_id === null ? null : Number(r.gig_id),
    gigTitle: r.gig_title,
    tier: r.tier,
    packageName: r.package_name,
    priceUgx: Number(r.price_ugx),
    buyerFeeUgx: Number(r.buyer_fee_ugx),
    sellerFeeUgx: Number(r.seller_fee_ugx),
    totalUgx: Number(r.price_ugx) + Number(r.buyer_fee_ugx),
    ugxPerUsd: Number(r.ugx_per_usd),
    deliveryDays: r.delivery_days,
    revisionsAllowed: r.revisions_allowed,
    revisionsUsed: r.revisions_used,
    requirements: r.requirements,
    status: r.status,
    cancelRequestedBy: r.cancel_requested_by === null ? null : Number(r.cancel_requested_by),
    dueAt: r.due_at,
    paidAt: r.paid_at,
    deliveredAt: r.delivered_at,
    completedAt: r.completed_at,
    cancelledAt: r.cancelled_at,
    clearedAt: r.cleared_at,
    createdAt: r.created_at,
  };
}

export type NewOrder = {
  buyerId: number;
  sellerId: number;
  gigId: number;
  gigTitle: string;
  tier: OrderRow["tier"];
  packageName: string;
  priceUgx: number;
  buyerFeeUgx: number;
  sellerFeeUgx: number;
  ugxPerUsd: number;
  deliveryDays: number;
  revisionsAllowed: number;
  requirements: string;
  checkoutKey: string;
};

/** Inserts an order unless this buyer's checkout key placed one already; returns the id and whether it is new. */
export async function insertOrder(db: Db, o: NewOrder): Promise<{ id: number; created: boolean }> {
  const [row] = await db("orders")
    .insert({
      buyer_id: o.buyerId,
      seller_id: o.sellerId,
      gig_id: o.gigId,
      gig_title: o.gigTitle,
      tier: o.tier,
      package_name: o.packageName,
      price_ugx: o.priceUgx,
      buyer_fee_ugx: o.buyerFeeUgx,
      seller_fee_ugx: o.sellerFeeUgx,
      ugx_per_usd: o.ugxPerUsd,
      delivery_days: o.deliveryDays,
      revisions_allowed: o.revisionsAllowed,
      requirements: o.requirements,
      checkout_key: o.checkoutKey,
    })
    .onConflict(["buyer_id", "checkout_key"])
    .ignore()
    .returning("id");
  if (row) return { id: Number(row.id), created: true };
  const existing = await db("orders").where({ buyer_id: o.buyerId, checkout_key: o.checkoutKey }).first("id");
  return { id: Number(existing!.id), created: false };
}

/** The order, locked for the rest of the transaction (every transition takes this lock first). */
export async function lockOrder(db: Db, id: number): Promise<OrderRow | null> {
  if (!Number.isSafeInteger(id) || id < 1) return null;
  const row = await db("orders").where({ id }).forUpdate().first();
  return row ? toOrder(row) : null;
}

export async function getOrder(db: Db, id: number): Promise<OrderRow | null> {
  if (!Number.isSafeInteger(id) || id < 1) return null;
  const row = await db("orders").where({ id }).first();
  return row ? toOrder(row) : null;
}

/**
 * The member's part in an order, or null: the one rule of who may see an order. Before payment an order is
 * only the buyer's: the seller meets it (its page, its files, its steps, a conversation from it) as they
 * would somebody else's order only once it is paid (paid_at), so an order waiting for payment, or given up
 * or cancelled before a payment landed, never shows the buyer's requirements to the seller.
 */
export function partyRole(order: Pick<OrderRow, "buyerId" | "sellerId" | "paidAt">, userId: number): "buyer" | "seller" | null {
  if (order.buyerId === userId) return "buyer";
  if (order.sellerId === userId && order.paidAt !== null) return "seller";
  return null;
}

/** partyRole's rule in SQL, for a `.where(...)` on the orders table as `alias`: the orders this member may see as a party. */
export function visibleToParty(userId: number, alias = "orders") {
  return (w: Knex.QueryBuilder) => {
    w.where(`${alias}.buyer_id`, userId).orWhere((s) => s.where(`${alias}.seller_id`, userId).whereNotNull(`${alias}.paid_at`));
  };
}

/** One of the member's orders and their part in it, or null (no such order, or not theirs to see: partyRole). */
export async function findPartyOrder(db: Db, id: number, userId: number): Promise<{ order: OrderRow; role: "buyer" | "seller" } | null> {
  const order = await getOrder(db, id);
  const role = order ? partyRole(order, userId) : null;
  return order && role ? { order, role } : null;
}

export async function updateOrder(db: Db, id: number, patch: Record<string, unknown>) {
  await db("orders")
    .where({ id })
    .update({ ...patch, updated_at: db.fn.now() });
}

export type EventRole = "buyer" | "seller" | "admin" | "system";

/** A timeline entry; its reason is a member's own words, or Soko's as a key and values (`Said`), worded when read. */
export async function insertOrderEvent(
  db: Db,
  e: { orderId: number; actorId: number | null; actorRole: EventRole; kind: string; from: string | null; to: string; reason?: string | Said },
) {
  const reason = storedWords(e.reason);
  await db("order_events").insert({
    order_id: e.orderId,
    actor_id: e.actorId,
    actor_role: e.actorRole,
    kind: e.kind,
    from_status: e.from,
    to_status: e.to,
    reason: reason.text,
    reason_key: reason.key,
    reason_values: reason.values,
  });
}

export type OrderEvent = {
  id: number;
  kind: string;
  actorRole: EventRole;
  actorName: string | null;
  from: string | null;
  to: string;
  /** The reason as stored: a member's words, or the English of Soko's (said in the reader's language by `reasonSaid`). */
  reason: string;
  reasonSaid: Said | null;
  at: Date;
};

export async function listOrderEvents(db: Db, orderId: number): Promise<OrderEvent[]> {
  const rows = await db("order_events as e")
    .leftJoin("users as u", "u.id", "e.actor_id")
    .where("e.order_id", orderId)
    .orderBy("e.id")
    .select("e.id", "e.kind", "e.actor_role", "u.name", "e.from_status", "e.to_status", "e.reason", "e.reason_key", "e.reason_values", "e.created_at");
  return rows.map((r) => ({
    id: Number(r.id),
    kind: r.kind,
    actorRole: r.actor_role,
    actorName: r.name ?? null,
    from: r.from_status,
    to: r.to_status,
    reason: r.reason,
    reasonSaid: r.reason_key ? { key: r.reason_key as string, values: (r.reason_values ?? {}) as Said["values"] } : null,
    at: r.created_at,
  }));
}

export async function insertDelivery(db: Db, orderId: number, message: string): Promise<number> {
  const [row] = await db("deliveries").insert({ order_id: orderId, message }).returning("id");
  return Number(row.id);
}

export type OrderFile = { id: number; deliveryId: number | null; fileName: string; contentType: string; sizeBytes: number; storageKey: string };

export async function insertOrderFiles(
  db: Db,
  files: { orderId: number; deliveryId: number | null; uploaderId: number; storageKey: string; fileName: string; contentType: string; sizeBytes: number }[],
) {
  if (files.length === 0) return;
  await db("order_files").insert(
    files.map((f) => ({
      order_id: f.orderId,
      delivery_id: f.deliveryId,
      uploader_id: f.uploaderId,
      storage_key: f.storageKey,
      file_name: f.fileName,
      content_type: f.contentType,
      size_bytes: f.sizeBytes,
    })),
  );
}

export async function listOrderFiles(db: Db, orderId: number): Promise<OrderFile[]> {
  const rows = await db("order_files").where({ order_id: orderId }).orderBy("id");
  return rows.map((r) => ({
    id: Number(r.id),
    deliveryId: r.delivery_id === null ? null : Number(r.delivery_id),
    fileName: r.file_name,
    contentType: r.content_type,
    sizeBytes: r.size_bytes,
    storageKey: r.storage_key,
  }));
}

/** The names of an order's two parties, for its page. */
export async function orderParties(db: Db, order: Pick<OrderRow, "buyerId" | "sellerId">) {
  const rows = await db("users").whereIn("id", [order.buyerId, order.sellerId]).select("id", "name", "username");
  const of = (id: number) => {
    const r = rows.find((u) => Number(u.id) === id);
    return { id, name: (r?.name as string) ?? "A former member", username: (r?.username as string) ?? "" };
  };
  return { buyer: of(order.buyerId), seller: of(order.sellerId) };
}

/** A file of an order, only for a party who may see the order (partyRole), or an admin, who passes `isAdmin`. */
export async function findOrderFile(db: Db, orderId: number, fileId: number, viewer: { id: number; isAdmin: boolean }) {
  if (!Number.isSafeInteger(fileId) || !Number.isSafeInteger(orderId)) return null;
  const q = db("order_files as f").join("orders as o", "o.id", "f.order_id").where({ "f.id": fileId, "f.order_id": orderId });
  if (!viewer.isAdmin) q.where(visibleToParty(viewer.id, "o"));
  const r = await q.first("f.storage_key", "f.file_name", "f.content_type", "f.size_bytes");
  return r
    ? { storageKey: r.storage_key as string, fileName: r.file_name as string, contentType: r.content_type as string, sizeBytes: r.size_bytes as number }
    : null;
}

export type Delivery = { id: number; message: string; at: Date };

export async function listDeliveries(db: Db, orderId: number): Promise<Delivery[]> {
  const rows = await db("deliveries").where({ order_id: orderId }).orderBy("id");
  return rows.map((r) => ({ id: Number(r.id), message: r.message, at: r.created_at }));
}

/** The facts the state machine needs about an order (order-rules.ts), in the caller's transaction. */
export async function orderFacts(db: Db, order: OrderRow): Promise<OrderFacts> {
  const [dispute, review] = await Promise.all([
    db("disputes").where({ order_id: order.id, status: "open" }).first("id"),
    db("reviews").where({ order_id: order.id }).first("id"),
  ]);
  return {
    status: order.status,
    buyerId: order.buyerId,
    sellerId: order.sellerId,
    revisionsAllowed: order.revisionsAllowed,
    revisionsUsed: order.revisionsUsed,
    dueAt: order.dueAt,
    cancelRequestedBy: order.cancelRequestedBy,
    disputeOpen: Boolean(dispute),
    reviewed: Boolean(review),
  };
}

export type OrderListItem = {
  id: number;
  gigId: number | null;
  gigTitle: string;
  imageKey: string | null;
  role: "buyer" | "seller";
  otherName: string;
  otherUsername: string;
  status: string;
  priceUgx: number;
  totalUgx: number;
  deliveryDays: number;
  dueAt: Date | null;
  createdAt: Date;
  facts: OrderFacts;
};

/** The list's query: the member's orders as a party (partyRole), with both parties' names and the facts the buttons need. */
function listQuery(db: Db, userId: number) {
  return (
    db("orders as o")
      .join("users as b", "b.id", "o.buyer_id")
      .join("users as s", "s.id", "o.seller_id")
      // A seller sees an order once it is paid: one waiting for payment, or given up unpaid, was never work of theirs.
      .where(visibleToParty(userId, "o"))
      .select(
        "o.*",
        "b.name as buyer_name",
        "b.username as buyer_username",
        "s.name as seller_name",
        "s.username as seller_username",
        db.raw("(SELECT storage_key FROM gig_images gi WHERE gi.gig_id = o.gig_id ORDER BY position, id LIMIT 1) as image_key"),
        db.raw("EXISTS (SELECT 1 FROM disputes d WHERE d.order_id = o.id AND d.status = 'open') as dispute_open"),
        db.raw("EXISTS (SELECT 1 FROM reviews r WHERE r.order_id = o.id) as reviewed"),
      )
  );
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function toListItem(r: any, userId: number): OrderListItem {
  const o = toOrder(r);
  const role = o.buyerId === userId ? "buyer" : "seller";
  return {
    id: o.id,
    gigId: o.gigId,
    gigTitle: o.gigTitle,
    imageKey: r.image_key ?? null,
    role,
    otherName: role === "buyer" ? r.seller_name : r.buyer_name,
    otherUsername: role === "buyer" ? r.seller_username : r.buyer_username,
    status: o.status,
    priceUgx: o.priceUgx,
    totalUgx: o.totalUgx,
    deliveryDays: o.deliveryDays,
    dueAt: o.dueAt,
    createdAt: o.createdAt,
    facts: {
      status: o.status,
      buyerId: o.buyerId,
      sellerId: o.sellerId,
      revisionsAllowed: o.revisionsAllowed,
      revisionsUsed: o.revisionsUsed,
      dueAt: o.dueAt,
      cancelRequestedBy: o.cancelRequestedBy,
      disputeOpen: Boolean(r.dispute_open),
      reviewed: Boolean(r.reviewed),
    },
  };
}

/** The member's orders (as buyer or seller) in a tab, newest first. */
export async function listOrders(db: Db, userId: number, tab: OrderTab, { limit = 50 }: { limit?: number } = {}): Promise<OrderListItem[]> {
  const rows = await listQuery(db, userId)
    .whereIn("o.status", [...ORDER_TABS[tab]])
    .orderBy([
      { column: "o.created_at", order: "desc" },
      { column: "o.id", order: "desc" },
    ])
    .limit(limit);
  return rows.map((r) => toListItem(r, userId));
}

/**
 * A page of the member's orders on one side or both, newest first (by id, which grows with each order), with
 * the package's tier and name: those with ids below `beforeId` (the last of the previous page).
 */
export async function listOrdersPage(
  db: Db,
  userId: number,
  { side, limit, beforeId }: { side: "both" | "buyer" | "seller"; limit: number; beforeId?: number },
): Promise<(OrderListItem & { buyerId: number; sellerId: number; tier: OrderRow["tier"]; packageName: string })[]> {
  const q = listQuery(db, userId).orderBy("o.id", "desc").limit(limit);
  if (side === "buyer") q.where("o.buyer_id", userId);
  if (side === "seller") q.where("o.seller_id", userId);
  if (beforeId !== undefined) q.where("o.id", "<", beforeId);
  const rows = await q;
  return rows.map((r) => ({ ...toListItem(r, userId), buyerId: Number(r.buyer_id), sellerId: Number(r.seller_id), tier: r.tier, packageName: r.package_name }));
}

/** How many of the member's orders each tab holds. */
export async function orderTabCounts(db: Db, userId: number): Promise<Record<OrderTab, number>> {
  const rows = await db("orders").where(visibleToParty(userId)).groupBy("status").select("status", db.raw("count(*)::int as n"));
  const by = new Map(rows.map((r) => [r.status as string, Number(r.n)]));
  const count = (tab: OrderTab) => ORDER_TABS[tab].reduce((n, s) => n + (by.get(s) ?? 0), 0);
  return { active: count("active"), completed: count("completed"), cancelled: count("cancelled") };
}

/** Orders the timers act on, oldest first (ids only: each is then locked and checked again). */
export async function dueOrderIds(db: Db, kind: "auto_complete" | "clearance" | "unpaid", cutoff: Date, limit = 100): Promise<number[]> {
  const q = db("orders").orderBy("id").limit(limit).select("id");
  if (kind === "auto_complete") {
    q.where("status", "delivered")
      .where("delivered_at", "<=", cutoff)
      .whereNotExists(db("disputes").whereRaw("disputes.order_id = orders.id").where("status", "open").select(db.raw("1")));
  } else if (kind === "clearance") {
    q.where("status", "completed").whereNull("cleared_at").where("completed_at", "<=", cutoff);
  } else {
    q.where("status", "pending_payment").where("created_at", "<=", cutoff);
  }
  return (await q).map((r) => Number(r.id));
}

/** A member's figures for the dashboard: active orders as either party, completed as buyer, money spent. */
export async function orderFigures(db: Db, userId: number) {
  const row = await db("orders")
    .select(
      db.raw("count(*) FILTER (WHERE buyer_id = ? AND status IN ('in_progress', 'delivered'))::int as buying_active", [userId]),
      db.raw("count(*) FILTER (WHERE seller_id = ? AND status IN ('in_progress', 'delivered'))::int as selling_active", [userId]),
      db.raw("count(*) FILTER (WHERE buyer_id = ? AND status = 'completed')::int as bought_completed", [userId]),
      db.raw("coalesce(sum(price_ugx + buyer_fee_ugx) FILTER (WHERE buyer_id = ? AND status IN ('in_progress', 'delivered', 'completed')), 0) as spent", [
        userId,
      ]),
    )
    .where((w) => w.where("buyer_id", userId).orWhere("seller_id", userId))
    .first();
  return {
    buyingActive: Number(row?.buying_active ?? 0),
    sellingActive: Number(row?.selling_active ?? 0),
    boughtCompleted: Number(row?.bought_completed ?? 0),
    spentUgx: Number(row?.spent ?? 0),
  };
}

/** An order that waits for the member, and what it waits for. */
export type AttentionOrder = {
  id: number;
  gigTitle: string;
  role: "buyer" | "seller";
  /** pay: the buyer's payment; approve: the buyer's answer to a delivery; deliver: the seller's work; dispute: an admin. */
  need: "pay" | "approve" | "deliver" | "dispute";
  otherName: string;
  dueAt: Date | null;
  deliveredAt: Date | null;
};

/**
 * The member's orders that wait for something, in one query over their own orders only: as buyer, those
 * awaiting payment or an answer to a delivery; as seller, paid orders in progress due before `dueBefore`
 * (late ones included); as either party, those with an open dispute (which stops everything else).
 */
export async function listAttentionOrders(db: Db, userId: number, dueBefore: Date, limit = 20): Promise<AttentionOrder[]> {
  const rows = await db("orders as o")
    .join("users as b", "b.id", "o.buyer_id")
    .join("users as s", "s.id", "o.seller_id")
    .where(visibleToParty(userId, "o"))
    .where((w) =>
      w
        .where((x) => x.where("o.buyer_id", userId).whereIn("o.status", ["pending_payment", "delivered"]))
        .orWhere((x) => x.where("o.seller_id", userId).where("o.status", "in_progress").where("o.due_at", "<", dueBefore))
        .orWhereExists(db("disputes as d").whereRaw("d.order_id = o.id").where("d.status", "open").select(db.raw("1"))),
    )
    // Payments first (they lapse in 30 minutes), then deliveries to answer, then work by due date; disputes last (an admin's move).
    .orderByRaw(
      `EXISTS (SELECT 1 FROM disputes d WHERE d.order_id = o.id AND d.status = 'open'),
       array_position(ARRAY['pending_payment', 'delivered', 'in_progress']::text[], o.status::text),
       coalesce(o.delivered_at, o.due_at, o.created_at), o.id`,
    )
    .limit(limit)
    .select(
      "o.id",
      "o.gig_title",
      "o.buyer_id",
      "o.status",
      "o.due_at",
      "o.delivered_at",
      "b.name as buyer_name",
      "s.name as seller_name",
      db.raw("EXISTS (SELECT 1 FROM disputes d WHERE d.order_id = o.id AND d.status = 'open') as dispute_open"),
    );
  return rows.map((r) => {
    const role = Number(r.buyer_id) === userId ? "buyer" : "seller";
    const need = r.dispute_open ? "dispute" : r.status === "pending_payment" ? "pay" : r.status === "delivered" && role === "buyer" ? "approve" : "deliver";
    return {
      id: Number(r.id),
      gigTitle: r.gig_title,
      role,
      need,
      otherName: role === "buyer" ? r.seller_name : r.buyer_name,
      dueAt: r.due_at,
      deliveredAt: r.delivered_at,
    };
  });
}
