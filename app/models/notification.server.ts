/**
 * Notifications: what happened to a member's orders and conversations, newest first. A conversation has at
 * most one unread notification per member (a new message updates it rather than adding another); opening
 * the conversation reads it.
 */
import { prepared, type Db } from "~/server/db.server";

export async function insertNotification(db: Db, n: { userId: number; kind: string; orderId?: number; body: string }) {
  await db("notifications").insert({ user_id: n.userId, kind: n.kind, order_id: n.orderId ?? null, body: n.body });
}

/**
 * The member's unread notification of a conversation says what is new there (created, or brought up to now).
 * Returns the member's unread notifications after it, counted in the same statement: the others as they were,
 * and this one.
 */
export async function upsertMessageNotification(db: Db, n: { userId: number; conversationId: string; body: string }): Promise<number> {
  const { rows } = await prepared(
    db.raw(
      `WITH n AS (
         INSERT INTO notifications (user_id, kind, conversation_id, body) VALUES (?, 'message', ?, ?)
         ON CONFLICT (user_id, conversation_id) WHERE read_at IS NULL AND conversation_id IS NOT NULL
         DO UPDATE SET body = excluded.body, created_at = now()
         RETURNING id
       )
       SELECT 1 + (SELECT count(*) FROM notifications WHERE user_id = ? AND read_at IS NULL AND id <> (SELECT id FROM n)) AS unread`,
      [n.userId, n.conversationId, n.body, n.userId],
    ),
  );
  return Number(rows[0].unread);
}

export type Notification = { id: number; kind: string; orderId: number | null; conversationId: string | null; body: string; read: boolean; at: Date };

const toNotification = (r: Record<string, any>): Notification => ({
  id: Number(r.id),
  kind: r.kind,
  orderId: r.order_id === null ? null : Number(r.order_id),
  conversationId: r.conversation_id ?? null,
  body: r.body,
  read: r.read_at !== null,
  at: r.created_at,
});

export async function listNotifications(db: Db, userId: number, limit = 10): Promise<Notification[]> {
  const rows = await db("notifications").where({ user_id: userId }).orderBy("id", "desc").limit(limit);
  return rows.map(toNotification);
}

/** A page of the member's notifications, newest first (by last change), before the cursor `before` (an id). */
export async function notificationsPage(db: Db, userId: number, { before, limit = 30 }: { before?: number; limit?: number } = {}) {
  const query = db("notifications")
    .where({ user_id: userId })
    .orderBy([
      { column: "created_at", order: "desc" },
      { column: "id", order: "desc" },
    ])
    .limit(limit + 1);
  if (before) {
    const cursor = db("notifications").where({ id: before, user_id: userId }).select("created_at");
    query.where((w) => w.where("created_at", "<", cursor).orWhere((x) => x.where("created_at", "=", cursor).andWhere("id", "<", before)));
  }
  const rows = await query;
  return { notifications: rows.slice(0, limit).map(toNotification), more: rows.length > limit };
}

export async function unreadNotificationCount(db: Db, userId: number): Promise<number> {
  const row = await db("notifications").where({ user_id: userId }).whereNull("read_at").count<{ n: string }[]>({ n: "*" }).first();
  return Number(row?.n ?? 0);
}

/** Marks every notification of the member read; returns how many were unread. */
export async function markAllRead(db: Db, userId: number): Promise<number> {
  return db("notifications").where({ user_id: userId }).whereNull("read_at").update({ read_at: db.fn.now() });
}

/** Marks one of the member's notifications read; false if it is not theirs (or there is no such one). */
export async function markOneRead(db: Db, userId: number, id: number): Promise<boolean> {
  const found = await db("notifications").where({ id, user_id: userId }).first("id");
  if (!found) return false;
  await db("notifications").where({ id, user_id: userId }).whereNull("read_at").update({ read_at: db.fn.now() });
  return true;
}

/**
 * The member opened a conversation: its notification is read. Returns how many were unread, and the member's
 * unread notifications after it (counted in the same statement: those unread before, less these).
 */
export async function markConversationNotificationsRead(db: Db, userId: number, conversationId: string): Promise<{ marked: number; unread: number }> {
  const { rows } = await prepared(
    db.raw(
      `WITH r AS (
         UPDATE notifications SET read_at = now() WHERE user_id = ? AND conversation_id = ? AND read_at IS NULL RETURNING id
       )
       SELECT (SELECT count(*) FROM r) AS marked,
              (SELECT count(*) FROM notifications WHERE user_id = ? AND read_at IS NULL AND id NOT IN (SELECT id FROM r)) AS unread`,
      [userId, conversationId, userId],
    ),
  );
  return { marked: Number(rows[0].marked), unread: Number(rows[0].unread) };
}

/** The header's two counts: unread notifications, and unread messages over all the member's conversations. */
export type HeaderCounts = { notifications: number; messages: number };

/**
 * Both in one prepared statement (the messages page and the header's refresh ask; a page's root loader reads
 * them with the member's session, getSessionUserWithCounts): two queries would cost the web process two round
 * trips and two of knex's query builds.
 */
export async function headerCounts(db: Db, userId: number): Promise<HeaderCounts> {
  const { rows } = await prepared(db.raw(`SELECT ${headerCountsSql("?")}`, [userId, userId]));
  return headerCountsOf(rows[0]);
}

/** The two counts as columns of a statement in which `userId` (SQL: a column, or `?` bound twice) is the member. */
export function headerCountsSql(userId: string): string {
  return `(SELECT count(*) FROM notifications WHERE user_id = ${userId} AND read_at IS NULL) AS header_notifications,
          (SELECT coalesce(sum(unread_count), 0) FROM conversation_participants WHERE user_id = ${userId}) AS header_messages`;
}

/** The counts from a row with headerCountsSql's columns. */
export function headerCountsOf(row: Record<string, unknown>): HeaderCounts {
  return { notifications: Number(row.header_notifications), messages: Number(row.header_messages) };
}
