/**
 * Conversations between two members (ADR 016): one per pair, found again from a gig, an order or a profile,
 * with each member's side (unread count, last message read). Every read here is filtered by the member who
 * asks: a conversation they are not in does not exist for them.
 */
import { randomBytes } from "node:crypto";
import { REACH_COLUMNS, reachOf, type Reach } from "~/models/user.server";
import { prepared, type Db } from "~/server/db.server";

/** "conv_" + time + random (docs/product.md): sortable by creation, not guessable. */
export function newConversationId(now = Date.now()): string {
  return `conv_${now.toString(36)}${randomBytes(10).toString("hex")}`;
}

export const pairKey = (a: number, b: number) => (a < b ? `${a}:${b}` : `${b}:${a}`);

/**
 * The pair's conversation, created if there is none (both members' sides with it); `about` moves to the gig
 * or order it is continued from. Safe against two members starting it at the same moment.
 */
export async function findOrCreateConversation(
  db: Db,
  { a, b, createdBy, gigId = null, orderId = null }: { a: number; b: number; createdBy: number; gigId?: number | null; orderId?: number | null },
): Promise<{ id: string; created: boolean }> {
  const key = pairKey(a, b);
  const inserted = await db("conversations")
    .insert({ id: newConversationId(), pair_key: key, gig_id: gigId, order_id: orderId, created_by: createdBy })
    .onConflict("pair_key")
    .ignore()
    .returning("id");
  if (inserted.length) {
    const id = inserted[0]!.id as string;
    await db("conversation_participants").insert([
      { conversation_id: id, user_id: a },
      { conversation_id: id, user_id: b },
    ]);
    return { id, created: true };
  }
  const existing = await db("conversations").where({ pair_key: key }).first("id");
  const about: Record<string, number> = {};
  if (gigId !== null) about.gig_id = gigId;
  if (orderId !== null) about.order_id = orderId;
  if (Object.keys(about).length) await db("conversations").where({ id: existing.id }).update(about);
  return { id: existing.id as string, created: false };
}

/** The member's side of a conversation and who the other member is, or null if they are not in it. */
export async function membership(
  db: Db,
  conversationId: string,
  userId: number,
): Promise<{ otherId: number; unreadCount: number; lastReadMessageId: number } | null> {
  const rows = await prepared(
    db("conversation_participants").where({ conversation_id: conversationId }).select("user_id", "unread_count", "last_read_message_id"),
  );
  const mine = rows.find((r) => Number(r.user_id) === userId);
  const other = rows.find((r) => Number(r.user_id) !== userId);
  if (!mine || !other) return null;
  return { otherId: Number(other.user_id), unreadCount: mine.unread_count, lastReadMessageId: Number(mine.last_read_message_id) };
}

/**
 * The sender's side of a conversation for a message: who the other member is and how they want to hear of it,
 * in one read (the send's first). Null if the sender is not in it; `other` null if that member's row is gone.
 */
export async function senderSide(db: Db, conversationId: string, userId: number): Promise<{ otherId: number; other: Reach | null } | null> {
  const rows = await prepared(
    db("conversation_participants as p")
      .leftJoin("users as u", "u.id", "p.user_id")
      .where("p.conversation_id", conversationId)
      .select("p.user_id", db.raw("u.id is not null as found"), ...REACH_COLUMNS.map((c) => `u.${c}`)),
  );
  const other = rows.find((r) => Number(r.user_id) !== userId);
  if (!other || !rows.some((r) => Number(r.user_id) === userId)) return null;
  return { otherId: Number(other.user_id), other: other.found ? reachOf(other) : null };
}

export type Person = { id: number; name: string; username: string; avatarKey: string | null; status: string };

export type ConversationSummary = {
  id: string;
  other: Person;
  lastMessage: { id: number; senderId: number; body: string; type: "text" | "file"; status: "sent" | "delivered" | "read"; at: string } | null;
  unreadCount: number;
  updatedAt: string;
  gig: { id: number; title: string } | null;
  orderId: number | null;
};

const PAGE = 30;

/**
 * The member's conversations, most recent first, each with the other member, the last message and the
 * member's unread count. `q` searches the other member's name and username and the text of the messages;
 * `before` pages on (listCursor of the last row: its time in epoch milliseconds and its id).
 */
export async function listConversations(
  db: Db,
  userId: number,
  { q = "", before, limit = PAGE, ids }: { q?: string; before?: string; limit?: number; ids?: string[] } = {},
): Promise<{ conversations: ConversationSummary[]; more: boolean }> {
  const query = db("conversation_participants as me")
    .join("conversations as c", "c.id", "me.conversation_id")
    .join("conversation_participants as them", function () {
      this.on("them.conversation_id", "=", "me.conversation_id").andOn("them.user_id", "<>", "me.user_id");
    })
    .join("users as u", "u.id", "them.user_id")
    .leftJoin("messages as m", "m.id", "c.last_message_id")
    .leftJoin("gigs as g", "g.id", "c.gig_id")
    .where("me.user_id", userId)
    .select(
      ...SUMMARY_COLUMNS,
      "me.unread_count",
      "u.id as other_id",
      "u.name as other_name",
      "u.username as other_username",
      "u.avatar_key as other_avatar",
      "u.status as other_status",
    )
    // Milliseconds, as the page's cursor carries them (JavaScript dates), then id.
    .orderByRaw("date_trunc('milliseconds', c.updated_at) desc, c.id desc")
    .limit(limit + 1);
  if (ids) query.whereIn("c.id", ids);
  if (q) {
    const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query.where((w) =>
      w
        .whereILike("u.name", like)
        .orWhereILike("u.username", like)
        .orWhereExists(db("messages as s").whereRaw("s.conversation_id = c.id").whereILike("s.body", like)),
    );
  }
  if (before) {
    // Time, then id: two conversations changed in the same millisecond are both listed, one per page.
    const [ms, id] = before.split("~");
    query.whereRaw("(date_trunc('milliseconds', c.updated_at), c.id) < (?, ?)", [new Date(Number(ms)), id!]);
  }
  const rows = await query;
  const more = rows.length > limit;
  return {
    more,
    conversations: rows
      .slice(0, limit)
      .map((r) => summaryOf(r, { id: Number(r.other_id), name: r.other_name, username: r.other_username, avatarKey: r.other_avatar, status: r.other_status })),
  };
}

/** The conversation's, its last message's (m_*) and its gig's (gig_*) columns of a summary, as summaryOf reads them. */
const SUMMARY_COLUMNS = [
  "c.id",
  "c.updated_at",
  "c.order_id",
  "m.id as m_id",
  "m.sender_id as m_sender",
  "m.body as m_body",
  "m.message_type as m_type",
  "m.status as m_status",
  "m.created_at as m_at",
  "g.id as gig_id",
  "g.title as gig_title",
];

/**
 * A summary from a row of the conversation (id, updated_at, order_id), the member's unread_count, the last
 * message (m_*) and the gig (gig_*), as listConversations and conversationViews select them.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function summaryOf(r: Record<string, any>, other: Person): ConversationSummary {
  return {
    id: r.id,
    other,
    lastMessage: r.m_id
      ? { id: Number(r.m_id), senderId: Number(r.m_sender), body: r.m_body, type: r.m_type, status: r.m_status, at: new Date(r.m_at).toISOString() }
      : null,
    unreadCount: r.unread_count,
    updatedAt: new Date(r.updated_at).toISOString(),
    gig: r.gig_id ? { id: Number(r.gig_id), title: r.gig_title } : null,
    orderId: r.order_id === null ? null : Number(r.order_id),
  };
}

/** One conversation as its member sees it in the list, or null if they are not in it. */
export async function conversationFor(db: Db, conversationId: string, userId: number): Promise<ConversationSummary | null> {
  return (await conversationViews(db, conversationId)).get(userId) ?? null;
}

/**
 * The conversation as each of its two members sees it in their list (the summary listConversations gives),
 * by member id, from one query of five tables: every message pushes both members' summaries, and the list's
 * query made twice cost the chat more Postgres time than the message itself (bench:chat, planning its six joins).
 */
export async function conversationViews(db: Db, conversationId: string): Promise<Map<number, ConversationSummary>> {
  const rows = await prepared(
    db("conversations as c")
      .join("conversation_participants as p", "p.conversation_id", "c.id")
      .join("users as u", "u.id", "p.user_id")
      .leftJoin("messages as m", "m.id", "c.last_message_id")
      .leftJoin("gigs as g", "g.id", "c.gig_id")
      .where("c.id", conversationId)
      .select(...SUMMARY_COLUMNS, "p.user_id", "p.unread_count", "u.name", "u.username", "u.avatar_key", "u.status"),
  );
  return viewsOf(rows);
}

/**
 * The two members' views from two rows (one per member) with SUMMARY_COLUMNS' aliases and the member's user_id,
 * unread_count, name, username, avatar_key and status: conversationViews' query, or a message's send
 * (storeMessage), which returns the same. Empty unless there are two.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function viewsOf(rows: Record<string, any>[]): Map<number, ConversationSummary> {
  const views = new Map<number, ConversationSummary>();
  const [first, second] = rows;
  if (rows.length !== 2 || !first || !second) return views;
  for (const [mine, theirs] of [
    [first, second],
    [second, first],
  ] as const) {
    views.set(
      Number(mine.user_id),
      summaryOf(mine, { id: Number(theirs.user_id), name: theirs.name, username: theirs.username, avatarKey: theirs.avatar_key, status: theirs.status }),
    );
  }
  return views;
}

/** The member's conversations with unread messages: the latest few, with how many are unread over all of them. */
export type UnreadConversations = {
  /** Unread messages, and the conversations they are in. */
  total: number;
  conversationCount: number;
  conversations: { id: string; otherName: string; unread: number; gigTitle: string | null }[];
};

/** Only the member's own sides (conversation_participants of theirs), newest first; the totals count every one. */
export async function listUnreadConversations(db: Db, userId: number, limit = 3): Promise<UnreadConversations> {
  const rows = await db("conversation_participants as me")
    .join("conversations as c", "c.id", "me.conversation_id")
    .join("conversation_participants as them", function () {
      this.on("them.conversation_id", "=", "me.conversation_id").andOn("them.user_id", "<>", "me.user_id");
    })
    .join("users as u", "u.id", "them.user_id")
    .leftJoin("gigs as g", "g.id", "c.gig_id")
    .where("me.user_id", userId)
    .where("me.unread_count", ">", 0)
    .orderBy([
      { column: "c.updated_at", order: "desc" },
      { column: "c.id", order: "desc" },
    ])
    .limit(limit)
    // Window totals are taken before the limit: every unread conversation of the member's counts.
    .select("c.id", "u.name", "me.unread_count", "g.title as gig_title", db.raw("sum(me.unread_count) over () as total"), db.raw("count(*) over () as n"));
  return {
    total: Number(rows[0]?.total ?? 0),
    conversationCount: Number(rows[0]?.n ?? 0),
    conversations: rows.map((r) => ({ id: r.id, otherName: r.name, unread: Number(r.unread_count), gigTitle: r.gig_title ?? null })),
  };
}
