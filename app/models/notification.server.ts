/**
 * Notifications: what happened to a member's orders and conversations, newest first. A conversation has at
 * most one unread notification per member (a new message updates it rather than adding another); opening
 * the conversation reads it.
 *
 * Words (ADR 047): a notification is stored as a Notice, the key of its message in the `notify` catalogue and
 * its values (`body_key`, `body_values`), and said when it is read, in the language its member reads in (their
 * saved language, or the one a reader passes: the API's). `body` keeps the English words, as before; a row
 * without a key (written before keys, or by a test) is shown as its `body`.
 */
import { serverI18n } from "~/i18n/catalog.server";
import { DEFAULT_LOCALE, isLocale, type Locale } from "~/i18n/locales";
import { formatUgx } from "~/domain/money";
import { prepared, type Db } from "~/server/db.server";
import { formatDateTime, type TimeZoneChoice } from "~/utils/dates";

/** A value of a notice: words as they are (a gig's title, a name), a number, or an amount or a time said in the reader's language. */
export type NoticeValue = string | number | { ugx: number } | { at: string; zone: TimeZoneChoice };

/** What a notification (or a mail built from one) says: a key of the `notify` catalogue and its values. */
export type Notice = { key: string; values?: Record<string, NoticeValue> };

/** A notice in words, in a language. */
export function sayNotice(notice: Notice, locale: Locale = DEFAULT_LOCALE): string {
  const values: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(notice.values ?? {})) {
    values[name] =
      typeof value === "object" && value !== null ? ("ugx" in value ? formatUgx(value.ugx, locale) : formatDateTime(value.at, value.zone, locale)) : value;
  }
  return serverI18n(locale)._(notice.key, values);
}

/** A time as a notice carries it: said in the reader's language and the member's time zone. */
export const noticeTime = (at: Date, zone: TimeZoneChoice): NoticeValue => ({ at: at.toISOString(), zone });

/** The columns a notice is stored in; `body` in English. */
export const noticeColumns = (notice: Notice) => ({ body: sayNotice(notice), body_key: notice.key, body_values: JSON.stringify(notice.values ?? {}) });

/** A notification: a notice (said in its reader's language when read), or words as they are (`body`). */
export async function insertNotification(db: Db, n: { userId: number; kind: string; orderId?: number | null } & ({ notice: Notice } | { body: string })) {
  const words = "notice" in n ? noticeColumns(n.notice) : { body: n.body };
  await db("notifications").insert({ user_id: n.userId, kind: n.kind, order_id: n.orderId ?? null, ...words });
}

/** The language a member reads in: their saved one (English for no such member). */
export async function readerLocale(db: Db, userId: number): Promise<Locale> {
  const row = await db("users").where({ id: userId }).first("language");
  return isLocale(row?.language) ? row.language : DEFAULT_LOCALE;
}

export type Notification = {
  id: number;
  kind: string;
  orderId: number | null;
  conversationId: string | null;
  /** The gig it is about, for a saved seller's new gig (its notice's `gigId`, ADR 052); null otherwise. */
  gigId: number | null;
  body: string;
  read: boolean;
  at: Date;
};

/** A stored notification's words in a language: its notice's, or its body as written. */
const bodyOf = (r: Record<string, any>, locale: Locale): string =>
  r.body_key ? sayNotice({ key: r.body_key, values: (r.body_values ?? {}) as Notice["values"] }, locale) : r.body;

const toNotification = (r: Record<string, any>, locale: Locale): Notification => ({
  id: Number(r.id),
  kind: r.kind,
  orderId: r.order_id === null ? null : Number(r.order_id),
  conversationId: r.conversation_id ?? null,
  gigId: r.kind === "saved_seller_gig" && Number.isSafeInteger(Number(r.body_values?.gigId)) ? Number(r.body_values.gigId) : null,
  body: bodyOf(r, locale),
  read: r.read_at !== null,
  at: r.created_at,
});

/** The rows' language: the one asked for, else their member's saved one (read with the rows, as `reader_language`). */
const languageOf = (rows: Record<string, any>[], locale: Locale | undefined): Locale =>
  locale ?? (isLocale(rows[0]?.reader_language) ? rows[0]!.reader_language : DEFAULT_LOCALE);

/** The notifications' columns, with their member's saved language beside them. */
const withReaderLanguage = (db: Db, userId: number) => ["notifications.*", db.raw("(SELECT language FROM users WHERE id = ?) AS reader_language", [userId])];

/** The member's latest notifications, said in `locale` (by default the member's own language). */
export async function listNotifications(db: Db, userId: number, limit = 10, locale?: Locale): Promise<Notification[]> {
  const rows = await db("notifications").select(withReaderLanguage(db, userId)).where({ user_id: userId }).orderBy("id", "desc").limit(limit);
  const language = languageOf(rows, locale);
  return rows.map((r) => toNotification(r, language));
}

/**
 * A page of the member's notifications, newest first (by last change), before the cursor `before` (an id), said
 * in `locale` (by default the member's own language).
 */
export async function notificationsPage(db: Db, userId: number, { before, limit = 30, locale }: { before?: number; limit?: number; locale?: Locale } = {}) {
  const query = db("notifications")
    .select(withReaderLanguage(db, userId))
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
  const language = languageOf(rows, locale);
  return { notifications: rows.slice(0, limit).map((r) => toNotification(r, language)), more: rows.length > limit };
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
