/**
 * Messages of a conversation and their marks: sent (stored), delivered (the recipient's page has it), read
 * (the recipient opened the thread). Reads are filtered by the member who asks (through
 * conversation_participants), so a message of a conversation they are not in does not exist for them.
 */
import { prepared, type Db } from "~/server/db.server";

export type MessageStatus = "sent" | "delivered" | "read";
export type Attachment = { id: number; fileName: string; contentType: string; sizeBytes: number };
export type Message = {
  id: number;
  conversationId: string;
  senderId: number;
  clientId: string | null;
  body: string;
  type: "text" | "file";
  status: MessageStatus;
  offPlatform: boolean;
  at: string;
  attachments: Attachment[];
};

type Row = Record<string, unknown>;

/** What a Message is made of (named, not `*`: see prepared()). */
const MESSAGE_COLUMNS = "id, conversation_id, sender_id, client_id, body, message_type, status, off_platform, created_at";

function toMessage(r: Row, attachments: Attachment[] = []): Message {
  return {
    id: Number(r.id),
    conversationId: r.conversation_id as string,
    senderId: Number(r.sender_id),
    clientId: (r.client_id as string | null) ?? null,
    body: r.body as string,
    type: r.message_type as Message["type"],
    status: r.status as MessageStatus,
    offPlatform: Boolean(r.off_platform),
    at: new Date(r.created_at as string).toISOString(),
    attachments,
  };
}

async function withAttachments(db: Db, rows: Row[]): Promise<Message[]> {
  const fileIds = rows.filter((r) => r.message_type === "file").map((r) => Number(r.id));
  const files = fileIds.length ? await db("message_attachments").whereIn("message_id", fileIds).orderBy("id") : [];
  const byMessage = new Map<number, Attachment[]>();
  for (const f of files) {
    const list = byMessage.get(Number(f.message_id)) ?? [];
    list.push({ id: Number(f.id), fileName: f.file_name, contentType: f.content_type, sizeBytes: f.size_bytes });
    byMessage.set(Number(f.message_id), list);
  }
  return rows.map((r) => toMessage(r, byMessage.get(Number(r.id))));
}

export type StoredAttachment = { storageKey: string; fileName: string; contentType: string; sizeBytes: number };

/** The recipient's mail round as the message's write left it (read under its row lock: see queueMessageMail). */
export type MailRound = { round: number; mailedAt: Date | null };

/**
 * Stores a message and moves its conversation along (last message, count, the recipient's unread count), in
 * one statement: a message is written on every send, and each statement is a round trip. Returns the
 * recipient's mail round as that unread count's update returns it, under the row's lock. A second message
 * with the same sender and client id is not stored again and moves nothing: the first is returned, marked
 * `duplicate`.
 */
export async function insertMessage(
  db: Db,
  m: { conversationId: string; senderId: number; recipientId: number; body: string; clientId?: string; offPlatform: boolean; attachments: StoredAttachment[] },
): Promise<{ message: Message; duplicate: true } | { message: Message; duplicate: false; recipientMail: MailRound }> {
  const { rows } = await prepared(
    db.raw(
      `WITH m AS (
         INSERT INTO messages (conversation_id, sender_id, client_id, body, message_type, off_platform)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (sender_id, client_id) WHERE client_id IS NOT NULL DO NOTHING
         RETURNING ${MESSAGE_COLUMNS}
       ), moved AS (
         UPDATE conversations c
         SET last_message_id = m.id, last_message_at = m.created_at, updated_at = m.created_at, message_count = c.message_count + 1
         FROM m WHERE c.id = m.conversation_id
       ), unread AS (
         UPDATE conversation_participants p SET unread_count = p.unread_count + 1
         FROM m WHERE p.conversation_id = m.conversation_id AND p.user_id = ?
         RETURNING p.mail_round, p.mailed_at
       )
       SELECT m.*, unread.mail_round AS recipient_mail_round, unread.mailed_at AS recipient_mailed_at FROM m LEFT JOIN unread ON true`,
      [m.conversationId, m.senderId, m.clientId ?? null, m.body, m.attachments.length ? "file" : "text", m.offPlatform, m.recipientId],
    ),
  );
  if (!rows.length) return { message: (await sentMessage(db, m.senderId, m.clientId!))!, duplicate: true };
  const row = rows[0]!;
  if (m.attachments.length) {
    await db("message_attachments").insert(
      m.attachments.map((a) => ({
        message_id: row.id,
        storage_key: a.storageKey,
        file_name: a.fileName,
        content_type: a.contentType,
        size_bytes: a.sizeBytes,
      })),
    );
  }
  const recipientMail = { round: Number(row.recipient_mail_round), mailedAt: row.recipient_mailed_at ? new Date(row.recipient_mailed_at) : null };
  return { message: (await withAttachments(db, [row]))[0]!, duplicate: false, recipientMail };
}

/** The message a sender already sent with this client id, with its files, or null. */
export async function sentMessage(db: Db, senderId: number, clientId: string): Promise<Message | null> {
  const row = await db("messages").where({ sender_id: senderId, client_id: clientId }).first();
  return row ? (await withAttachments(db, [row]))[0]! : null;
}

const THREAD_PAGE = 50;

/**
 * A page of a conversation's messages, oldest first within the page: the newest page, or the page before
 * message `before` ("load older"). Null if the member is not in the conversation.
 */
export async function threadPage(
  db: Db,
  conversationId: string,
  userId: number,
  { before, limit = THREAD_PAGE }: { before?: number; limit?: number } = {},
): Promise<{ messages: Message[]; older: boolean } | null> {
  const member = await db("conversation_participants").where({ conversation_id: conversationId, user_id: userId }).first("user_id");
  if (!member) return null;
  const query = db("messages")
    .where({ conversation_id: conversationId })
    .orderBy("id", "desc")
    .limit(limit + 1);
  if (before) query.where("id", "<", before);
  const rows = await query;
  const older = rows.length > limit;
  return { older, messages: await withAttachments(db, rows.slice(0, limit).reverse()) };
}

/** Messages of the member's conversations after message id `after` (what a reconnecting page missed), oldest first. */
export async function messagesSince(db: Db, userId: number, after: number, limit = 200): Promise<{ messages: Message[]; more: boolean }> {
  const rows = await db("messages as m")
    .join("conversation_participants as p", function () {
      this.on("p.conversation_id", "=", "m.conversation_id").andOnVal("p.user_id", "=", userId);
    })
    .where("m.id", ">", after)
    .orderBy("m.id")
    .limit(limit + 1)
    .select("m.*");
  return { more: rows.length > limit, messages: await withAttachments(db, rows.slice(0, limit)) };
}

/**
 * Moves the other member's messages to the member up to `upTo` (every one, without it) to `status`, never
 * back (a read message is not delivered again). Returns the ids it moved, by sender.
 */
export async function markMessages(
  db: Db,
  { userId, conversationId, upTo, status }: { userId: number; conversationId?: string; upTo?: number; status: "delivered" | "read" },
): Promise<{ conversationId: string; senderId: number; ids: number[] }[]> {
  const from = status === "read" ? ["sent", "delivered"] : ["sent"];
  const query = db("messages as m")
    .whereIn("m.status", from)
    .whereNot("m.sender_id", userId)
    .whereIn("m.conversation_id", db("conversation_participants").select("conversation_id").where({ user_id: userId }));
  if (conversationId) query.where("m.conversation_id", conversationId);
  if (upTo) query.where("m.id", "<=", upTo);
  const patch =
    status === "read" ? { status, read_at: db.fn.now(), delivered_at: db.raw("coalesce(delivered_at, now())") } : { status, delivered_at: db.fn.now() };
  const rows: { id: string; conversation_id: string; sender_id: string }[] = await prepared(
    query.update(patch).returning(["m.id", "m.conversation_id", "m.sender_id"]),
  );
  const groups = new Map<string, { conversationId: string; senderId: number; ids: number[] }>();
  for (const r of rows) {
    const g = groups.get(r.conversation_id) ?? { conversationId: r.conversation_id, senderId: Number(r.sender_id), ids: [] };
    g.ids.push(Number(r.id));
    groups.set(r.conversation_id, g);
  }
  return [...groups.values()].map((g) => ({ ...g, ids: g.ids.sort((a, b) => a - b) }));
}

/**
 * The member has read the conversation (to `upTo`, or all): their unread count follows what is still unread.
 * Returns that count (null if the member is not in the conversation).
 */
export async function resetUnread(db: Db, conversationId: string, userId: number, upTo?: number): Promise<number | null> {
  const last = upTo ?? db("messages").where({ conversation_id: conversationId }).max("id");
  const [side] = await prepared(
    db("conversation_participants")
      .where({ conversation_id: conversationId, user_id: userId })
      .update({
        last_read_message_id: db.raw("greatest(last_read_message_id, coalesce((?), 0))", [last]),
        unread_count: db.raw(
          "(select count(*) from messages m where m.conversation_id = ? and m.sender_id <> ? and m.id > greatest(conversation_participants.last_read_message_id, coalesce((?), 0)))",
          [conversationId, userId, last],
        ),
      })
      .returning("unread_count"),
  );
  return side ? Number(side.unread_count) : null;
}

/** An attachment the member may download (they are in its conversation, which is `conversationId` if given), or null. */
export async function findAttachment(
  db: Db,
  attachmentId: number,
  userId: number,
  conversationId?: string,
): Promise<(Attachment & { storageKey: string }) | null> {
  const query = db("message_attachments as a")
    .join("messages as m", "m.id", "a.message_id")
    .join("conversation_participants as p", "p.conversation_id", "m.conversation_id")
    .where({ "a.id": attachmentId, "p.user_id": userId });
  if (conversationId !== undefined) query.andWhere("m.conversation_id", conversationId);
  const row = await query.first("a.*");
  if (!row) return null;
  return { id: Number(row.id), fileName: row.file_name, contentType: row.content_type, sizeBytes: row.size_bytes, storageKey: row.storage_key };
}
