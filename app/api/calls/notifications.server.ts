/**
 * Notification calls (ADR 041): the member's notifications, newest first, a page at a time, with how many are
 * unread; one marked read, or all of them, through the same operations as the notifications page. Another
 * member's notification is 404 and stays as it was.
 */
import { z } from "zod";
import { notificationsPage, unreadNotificationCount, type Notification } from "~/models/notification.server";
import { forbidden, ok } from "~/operations/core.server";
import { markNotificationRead, markNotificationsRead } from "~/operations/notifications.server";
import { getDb } from "~/server/db.server";
import { call } from "../route.server";
import { IdParams, iso, Iso, PageQuery, pageOf } from "../shapes";

const TAG = "Notifications";

const NotificationItem = z.object({
  id: z.number().int(),
  kind: z.string().describe("What it is about: `message`, or an order's step (`order_paid`, `order_delivered`, …)."),
  orderId: z.number().int().nullable(),
  conversationId: z.string().nullable(),
  body: z.string(),
  read: z.boolean(),
  createdAt: Iso.describe("When it was written, or last brought up to date (a conversation's unread notification follows its newest message)."),
});

const itemOf = (n: Notification): z.input<typeof NotificationItem> => ({
  id: n.id,
  kind: n.kind,
  orderId: n.orderId,
  conversationId: n.conversationId,
  body: n.body,
  read: n.read,
  createdAt: iso(n.at),
});

/** The cursor is the id of the last notification of the page before. */
const NotificationPageQuery = PageQuery.extend({
  cursor: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, "api.page.cursor")
    .transform(Number)
    .optional(),
});

const Unread = z.number().int().min(0).describe("How many of the member's notifications are unread, now.");

export const notificationCalls = [
  call({
    method: "get",
    path: "/notifications",
    operationId: "listNotifications",
    summary: "Your notifications, newest first, and how many are unread",
    tag: TAG,
    access: "member",
    query: NotificationPageQuery,
    response: pageOf(NotificationItem).extend({ unread: Unread }),
    async handle({ actor, query, locale }) {
      if (actor.kind !== "member") return forbidden("access.sign_in_required");
      const db = getDb();
      const [page, unread] = await Promise.all([
        // Each said in the caller's language (ADR 047).
        notificationsPage(db, actor.user.id, { before: query.cursor, limit: query.limit, locale }),
        unreadNotificationCount(db, actor.user.id),
      ]);
      const last = page.notifications.at(-1);
      return ok({ items: page.notifications.map(itemOf), nextCursor: page.more && last ? String(last.id) : null, unread });
    },
  }),
  call({
    method: "post",
    path: "/notifications/{id}/read",
    operationId: "markNotificationRead",
    summary: "Mark one of your notifications read",
    description: "Marking a read notification read again changes nothing and answers the same.",
    tag: TAG,
    access: "member",
    params: IdParams,
    response: z.object({ id: z.number().int(), unread: Unread }),
    failures: [404],
    async handle({ actor, params }) {
      const result = await markNotificationRead(actor, { id: params.id });
      if (!result.ok) return result;
      if (actor.kind !== "member") return forbidden("access.sign_in_required");
      return ok({ id: params.id, unread: await unreadNotificationCount(getDb(), actor.user.id) });
    },
  }),
  call({
    method: "post",
    path: "/notifications/read-all",
    operationId: "markAllNotificationsRead",
    summary: "Mark all your notifications read",
    tag: TAG,
    access: "member",
    response: z.object({ marked: z.number().int().min(0).describe("How many were unread."), unread: Unread }),
    async handle({ actor }) {
      const result = await markNotificationsRead(actor);
      if (!result.ok) return result;
      if (actor.kind !== "member") return forbidden("access.sign_in_required");
      return ok({ marked: result.value.marked, unread: await unreadNotificationCount(getDb(), actor.user.id) });
    },
  }),
];
