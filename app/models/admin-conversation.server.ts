/**
 * Conversations as the admin portal's message monitoring sees them (ADR 017): every conversation, not only the asker's, with both participants, its
 * count, last message and flag. Only admin operations (app/operations/admin-conversations.server.ts) call
 * these: members read their own conversations through conversation.server.ts, filtered by who asks.
 */
import { pairKey } from "~/models/conversation.server";
import type { AdminConversationFilter } from "~/schemas/monitoring";
import type { Db } from "~/server/db.server";

export type AdminParticipant = { id: number; name: string; email: string; avatarKey: string | null };
export type AdminConversation = {
  id: string;
  participants: AdminParticipant[];
  flaggedAt: string | null;
  flagReason: string | null;
  messageCount: number;
  lastMessage: { senderName: string; body: string; type: "text" | "file"; at: string } | null;
  updatedAt: string;
};

/** How many conversations one page of the list shows. */
export const ADMIN_CONVERSATIONS_PAGE = 25;

const escapeLike = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** What a conversation's row in the list is read from: the conversation, its last message and that message's sender. */
const SUMMARY_COLUMNS = [
  "c.id",
  "c.flagged_at",
  "c.flag_reason",
  "c.message_count",
  "c.updated_at",
  "m.body as m_body",
  "m.message_type as m_type",
  "m.created_at as m_at",
  "s.name as m_sender",
];

/**
 * One page of conversations (`offset`, when given, in place of the page's: the JSON API pages by cursor).
 * `q` searches both participants' names and emails and the text of every message; `filter` keeps the flagged ones, those with a message in the last 24 hours, or orders by the most
 * messages (high volume). Flagged conversations come first (the off-platform flags messaging raised before
 * an admin's own), then the most recent activity; high volume is ordered by message count alone.
 */
export async function listAdminConversations(
  db: Db,
  {
    q = "",
    filter = "all",
    page = 1,
    limit = ADMIN_CONVERSATIONS_PAGE,
    offset = (page - 1) * limit,
  }: { q?: string; filter?: AdminConversationFilter; page?: number; limit?: number; offset?: number } = {},
): Promise<{ conversations: AdminConversation[]; more: boolean }> {
  const query = db("conversations as c")
    .leftJoin("messages as m", "m.id", "c.last_message_id")
    .leftJoin("users as s", "s.id", "m.sender_id")
    .select(SUMMARY_COLUMNS)
    .limit(limit + 1)
    .offset(offset);
  if (filter === "flagged") query.whereNotNull("c.flagged_at");
  if (filter === "recent") query.where("c.last_message_at", ">", db.raw("now() - interval '24 hours'"));
  if (filter === "high_volume") {
    query.where("c.message_count", ">", 0).orderBy([
      { column: "c.message_count", order: "desc" },
      { column: "c.id", order: "desc" },
    ]);
  } else {
    query
      .orderByRaw("(c.flagged_at IS NULL), (c.flag_reason LIKE 'off\\_platform:%') DESC NULLS LAST, c.flagged_at DESC NULLS LAST")
      .orderByRaw("coalesce(c.last_message_at, c.created_at) DESC, c.id DESC");
  }
  const search = q.trim();
  if (search) {
    const like = escapeLike(search);
    query.where((w) =>
      w
        .whereExists(
          db("conversation_participants as p")
            .join("users as u", "u.id", "p.user_id")
            .whereRaw("p.conversation_id = c.id")
            .andWhere((u) => u.whereILike("u.name", like).orWhereILike("u.email", like)),
        )
        .orWhereExists(db("messages as t").whereRaw("t.conversation_id = c.id").whereILike("t.body", like)),
    );
  }
  const rows = await query;
  const more = rows.length > limit;
  const shown = rows.slice(0, limit);
  const people = await participantsOf(
    db,
    shown.map((r) => r.id as string),
  );
  return {
    more,
    conversations: shown.map((r) => ({
      id: r.id,
      participants: people.get(r.id) ?? [],
      flaggedAt: r.flagged_at ? new Date(r.flagged_at).toISOString() : null,
      flagReason: r.flag_reason ?? null,
      messageCount: Number(r.message_count),
      lastMessage: r.m_at ? { senderName: r.m_sender ?? "A former member", body: r.m_body, type: r.m_type, at: new Date(r.m_at).toISOString() } : null,
      updatedAt: new Date(r.updated_at).toISOString(),
    })),
  };
}

async function participantsOf(db: Db, ids: string[]): Promise<Map<string, AdminParticipant[]>> {
  const byConversation = new Map<string, AdminParticipant[]>();
  if (!ids.length) return byConversation;
  const rows = await db("conversation_participants as p")
    .join("users as u", "u.id", "p.user_id")
    .whereIn("p.conversation_id", ids)
    .orderBy([{ column: "p.conversation_id" }, { column: "u.id" }])
    .select("p.conversation_id", "u.id", "u.name", "u.email", "u.avatar_key");
  for (const r of rows) {
    const list = byConversation.get(r.conversation_id) ?? [];
    list.push({ id: Number(r.id), name: r.name, email: r.email, avatarKey: r.avatar_key ?? null });
    byConversation.set(r.conversation_id, list);
  }
  return byConversation;
}

/** The conversations between pairs of members (one per pair, ADR 016), by pairKey; a pair who never wrote has none. */
export async function conversationsOfPairs(db: Db, pairs: { a: number; b: number }[]): Promise<Map<string, string>> {
  const keys = [...new Set(pairs.map((p) => pairKey(p.a, p.b)))];
  if (!keys.length) return new Map();
  const rows = await db("conversations").whereIn("pair_key", keys).select("id", "pair_key");
  return new Map(rows.map((r) => [r.pair_key as string, r.id as string]));
}

/** One conversation as the list shows it, or null. */
export async function findAdminConversation(db: Db, conversationId: string): Promise<AdminConversation | null> {
  const row = await db("conversations as c")
    .leftJoin("messages as m", "m.id", "c.last_message_id")
    .leftJoin("users as s", "s.id", "m.sender_id")
    .where("c.id", conversationId)
    .first(SUMMARY_COLUMNS);
  if (!row) return null;
  const people = await participantsOf(db, [row.id]);
  return {
    id: row.id,
    participants: people.get(row.id) ?? [],
    flaggedAt: row.flagged_at ? new Date(row.flagged_at).toISOString() : null,
    flagReason: row.flag_reason ?? null,
    messageCount: Number(row.message_count),
    lastMessage: row.m_at ? { senderName: row.m_sender ?? "A former member", body: row.m_body, type: row.m_type, at: new Date(row.m_at).toISOString() } : null,
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

export type AdminAttachment = { id: number; fileName: string; contentType: string; sizeBytes: number };
export type AdminMessage = {
  id: number;
  sender: { id: number; name: string; avatarKey: string | null };
  body: string;
  type: "text" | "file";
  offPlatform: boolean;
  at: string;
  attachments: AdminAttachment[];
};

/** How many messages one page of a thread shows (the newest; "Older messages" pages back). */
export const ADMIN_THREAD_PAGE = 100;

/** A page of a conversation's messages, oldest first within the page: the newest page, or the one before message `before`. */
export async function adminThreadPage(
  db: Db,
  conversationId: string,
  { before, limit = ADMIN_THREAD_PAGE }: { before?: number; limit?: number } = {},
): Promise<{ messages: AdminMessage[]; older: boolean }> {
  const query = db("messages as m")
    .join("users as u", "u.id", "m.sender_id")
    .where("m.conversation_id", conversationId)
    .orderBy("m.id", "desc")
    .limit(limit + 1)
    .select(
      "m.id",
      "m.body",
      "m.message_type",
      "m.off_platform",
      "m.created_at",
      "u.id as sender_id",
      "u.name as sender_name",
      "u.avatar_key as sender_avatar",
    );
  if (before) query.where("m.id", "<", before);
  const rows = await query;
  const older = rows.length > limit;
  const shown = rows.slice(0, limit).reverse();
  const fileIds = shown.filter((r) => r.message_type === "file").map((r) => Number(r.id));
  const files = fileIds.length ? await db("message_attachments").whereIn("message_id", fileIds).orderBy("id") : [];
  return {
    older,
    messages: shown.map((r) => ({
      id: Number(r.id),
      sender: { id: Number(r.sender_id), name: r.sender_name, avatarKey: r.sender_avatar ?? null },
      body: r.body,
      type: r.message_type,
      offPlatform: Boolean(r.off_platform),
      at: new Date(r.created_at).toISOString(),
      attachments: files
        .filter((f) => Number(f.message_id) === Number(r.id))
        .map((f) => ({ id: Number(f.id), fileName: f.file_name, contentType: f.content_type, sizeBytes: f.size_bytes })),
    })),
  };
}

/**
 * Sets or clears a conversation's flag. Flagging keeps an earlier flag and its reason (messaging's
 * off-platform reason says more than "admin"); unflagging clears both. Returns whether it changed, or null
 * if there is no such conversation. Locks the row, so two admins' clicks are taken one after the other.
 */
export async function setConversationFlag(
  db: Db,
  conversationId: string,
  flagged: boolean,
  reason = "admin",
): Promise<{ changed: boolean; before: string | null } | null> {
  const row = await db("conversations").where({ id: conversationId }).forUpdate().first("flagged_at", "flag_reason");
  if (!row) return null;
  const before = row.flagged_at ? (row.flag_reason ?? "") : null;
  if (flagged === (row.flagged_at !== null)) return { changed: false, before };
  await db("conversations")
    .where({ id: conversationId })
    .update(flagged ? { flagged_at: db.fn.now(), flag_reason: reason } : { flagged_at: null, flag_reason: null });
  return { changed: true, before };
}

/**
 * Deletes a conversation with its messages, attachments, participants and notifications (the foreign keys
 * cascade). Returns what it held (for the audit row) and the attachments' storage keys, whose files the
 * caller deletes after the commit; null if there is no such conversation.
 */
export async function deleteConversationRows(
  db: Db,
  conversationId: string,
): Promise<{ participants: number[]; messageCount: number; storageKeys: string[] } | null> {
  const row = await db("conversations").where({ id: conversationId }).forUpdate().first("id", "message_count");
  if (!row) return null;
  const participants = (await db("conversation_participants").where({ conversation_id: conversationId }).orderBy("user_id").pluck("user_id")).map(Number);
  const storageKeys: string[] = await db("message_attachments as a")
    .join("messages as m", "m.id", "a.message_id")
    .where("m.conversation_id", conversationId)
    .orderBy("a.id")
    .pluck("a.storage_key");
  await db("conversations").where({ id: conversationId }).del();
  return { participants, messageCount: Number(row.message_count), storageKeys };
}
