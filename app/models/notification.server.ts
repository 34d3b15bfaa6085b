/** Notifications: what happened to a member's orders (and later messages), newest first. */
import type { Db } from "~/utils/db.server";

export async function insertNotification(db: Db, n: { userId: number; kind: string; orderId?: number; body: string }) {
  await db("notifications").insert({ user_id: n.userId, kind: n.kind, order_id: n.orderId ?? null, body: n.body });
}

export type Notification = { id: number; kind: string; orderId: number | null; body: string; read: boolean; at: Date };

export async function listNotifications(db: Db, userId: number, limit = 10): Promise<Notification[]> {
  const rows = await db("notifications").where({ user_id: userId }).orderBy("id", "desc").limit(limit);
  return rows.map((r) => ({ id: Number(r.id), kind: r.kind, orderId: r.order_id === null ? null : Number(r.order_id), body: r.body, read: r.read_at !== null, at: r.created_at }));
}

export async function unreadNotificationCount(db: Db, userId: number): Promise<number> {
  const row = await db("notifications").where({ user_id: userId }).whereNull("read_at").count<{ n: string }[]>({ n: "*" }).first();
  return Number(row?.n ?? 0);
}

/** Marks every notification of the member read; returns how many were unread. */
export async function markAllRead(db: Db, userId: number): Promise<number> {
  return db("notifications").where({ user_id: userId }).whereNull("read_at").update({ read_at: db.fn.now() });
}
