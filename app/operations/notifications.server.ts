/**
 * Notifications (ADR 012, ADR 016): what happened to a member's orders and conversations. The order and
 * message operations write them beside each step; the member's preferences decide what else happens: mail
 * through the outbox (emailOrders, emailMessages) and a live push to their open pages (pushOrders,
 * pushMessages), which moves the header's bell. Members read them on /notifications and mark them read.
 * The words of an order's notifications (which quote its gig's title) are in order-notices.server.ts; every
 * notification is stored as a notice (a key and values) and said in its reader's language (ADR 047), and a push
 * carries it said in the recipient's.
 */
import type { Knex } from "knex";
import { DEFAULT_LOCALE, isLocale, type Locale } from "~/i18n/locales";
import { markAllRead, markOneRead, unreadNotificationCount, type Notification } from "~/models/notification.server";
import { REACH_COLUMNS, reachOf, type Reach } from "~/models/user.server";
import { forbidden, notFound, ok, transact, type Actor, type Result, type Tx } from "~/operations/core.server";
import type { LivePush } from "~/realtime/live.server";

/** The live event that carries the member's unread count (and what is new, when something is). */
export const NOTIFICATION_EVENT = "notification";
export type NotificationPush = { unread: number; item: Pick<Notification, "kind" | "body" | "orderId" | "conversationId"> | null };

/**
 * Sends the member's open pages their unread count after the commit, with the new item if there is one. `known`:
 * the count as the caller's own write just returned it (one read fewer on a message's path).
 */
export async function pushUnreadCount(tx: Tx, userId: number, item: NotificationPush["item"] = null, known?: number) {
  tx.live(notificationPush(userId, known ?? (await unreadNotificationCount(tx.trx, userId)), item));
}

/** The live event of a member's unread count, counted already (by the statement that changed it). */
export const notificationPush = (userId: number, unread: number, item: NotificationPush["item"] = null): LivePush => ({
  to: userId,
  event: NOTIFICATION_EVENT,
  data: { unread, item } satisfies NotificationPush,
});

/** How the platform reaches a member, and the language it speaks to them in (their saved one, ADR 047). */
export type ReachIn = Reach & { language: Locale };

/**
 * What a member wants about orders and messages (their Notifications settings), where to mail them, and in which
 * language: the recipient's, whoever caused the notice.
 */
export async function preferencesOf(tx: Tx, userId: number): Promise<ReachIn | null> {
  const u = await tx
    .trx("users")
    .where({ id: userId })
    .first(...REACH_COLUMNS, "language");
  return u ? { ...reachOf(u), language: isLocale(u.language) ? u.language : DEFAULT_LOCALE } : null;
}

/** A member marks all their notifications read (only their own: the member is the actor). */
export async function markNotificationsRead(actor: Actor, { db }: { db?: Knex } = {}): Promise<Result<{ marked: number }>> {
  if (actor.kind !== "member") return forbidden("access.sign_in_required");
  const userId = actor.user.id;
  return transact(
    actor,
    async (tx) => {
      const marked = await markAllRead(tx.trx, userId);
      if (marked) await pushUnreadCount(tx, userId);
      return ok({ marked });
    },
    { db },
  );
}

/** A member marks one of their notifications read; another member's is not found. */
export async function markNotificationRead(actor: Actor, input: { id: number }, { db }: { db?: Knex } = {}): Promise<Result<null>> {
  if (actor.kind !== "member") return forbidden("access.sign_in_required");
  const userId = actor.user.id;
  return transact(
    actor,
    async (tx) => {
      if (!(await markOneRead(tx.trx, userId, input.id))) return notFound("notification.not_found");
      await pushUnreadCount(tx, userId);
      return ok(null);
    },
    { db },
  );
}
