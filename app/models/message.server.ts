/**
 * Messages of a conversation and their marks: sent (stored), delivered (the recipient's page has it), read
 * (the recipient opened the thread). Reads are filtered by the member who asks (through
 * conversation_participants), so a message of a conversation they are not in does not exist for them.
 */
import { prepared, runStatement, type Db } from "~/server/db.server";

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

/** The recipient's mail round as the message's write left it (read under its row lock: see storeMessage). */
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

/** What a send writes besides the message: the recipient's notification (its words in English and as a notice) and the effects' timing. */
export type SendPlan = {
  notice: { body: string; body_key: string; body_values: string };
  /** Set when the text looks like payment talk that leaves Soko: the reason the conversation is flagged with, unless the pair has a paid order. */
  offPlatformReason: string | null;
  /** Mail: not sooner than `mailDelayMs` from now, nor `mailGapMs` after the conversation's last mail to the recipient. */
  mailDelayMs: number;
  mailGapMs: number;
  /** The text about unread messages: this long from now. */
  textDelayMs: number;
  requestId: string | null;
};

/** A side of the conversation as the send's statement returns it: one row per member. */
export type SendSide = {
  userId: number;
  status: string;
  language: string;
  pushMessages: boolean;
  /** The recipient's unread notifications after this one (null for the sender, or when nothing was stored). */
  notificationsUnread: number | null;
};

// Each member's users row is read by its key (LATERAL ... LIMIT 1 keeps it a lookup): as a join, the generic plan
// Postgres settles on for a prepared statement scanned every user.
const SEND_STATEMENT = `
  WITH sides AS (
    SELECT p.user_id, p.unread_count, u.name, u.username, u.avatar_key, u.status, u.language, u.push_messages, u.email_messages
    FROM conversation_participants p
    JOIN LATERAL (
      SELECT name, username, avatar_key, status, language, notify_push_messages AS push_messages, notify_email_messages AS email_messages
      FROM users WHERE id = p.user_id LIMIT 1
    ) u ON true
    WHERE p.conversation_id = :conversation
  ), other AS (
    SELECT * FROM sides WHERE user_id <> :sender AND EXISTS (SELECT 1 FROM sides WHERE user_id = :sender)
  ), m AS (
    INSERT INTO messages (conversation_id, sender_id, client_id, body, message_type, off_platform)
    SELECT :conversation, :sender, :client, :body, :type,
           :reason::text IS NOT NULL AND NOT EXISTS (
             SELECT 1 FROM orders o WHERE o.paid_at IS NOT NULL
               AND ((o.buyer_id = :sender AND o.seller_id = other.user_id) OR (o.buyer_id = other.user_id AND o.seller_id = :sender)))
    FROM other WHERE other.status = 'active'
    ON CONFLICT (sender_id, client_id) WHERE client_id IS NOT NULL DO NOTHING
    RETURNING ${MESSAGE_COLUMNS}
  ), c AS (
    UPDATE conversations c
    SET last_message_id = m.id, last_message_at = m.created_at, updated_at = m.created_at, message_count = c.message_count + 1,
        flag_reason = CASE WHEN m.off_platform AND c.flagged_at IS NULL THEN 'off_platform:' || :reason ELSE c.flag_reason END,
        flagged_at = CASE WHEN m.off_platform AND c.flagged_at IS NULL THEN now() ELSE c.flagged_at END
    FROM m WHERE c.id = m.conversation_id
    RETURNING c.id, c.updated_at, c.order_id, c.gig_id
  ), unread AS (
    UPDATE conversation_participants p SET unread_count = p.unread_count + 1
    FROM m, other WHERE p.conversation_id = m.conversation_id AND p.user_id = other.user_id
    RETURNING p.user_id, p.unread_count, p.mail_round, p.mailed_at, p.last_read_message_id
  ), n AS (
    INSERT INTO notifications (user_id, kind, conversation_id, body, body_key, body_values)
    SELECT other.user_id, 'message', :conversation, :noticeBody, :noticeKey, :noticeValues::jsonb FROM m, other
    ON CONFLICT (user_id, conversation_id) WHERE read_at IS NULL AND conversation_id IS NOT NULL
    DO UPDATE SET body = excluded.body, body_key = excluded.body_key, body_values = excluded.body_values, created_at = now()
    RETURNING id
  ), mail AS (
    INSERT INTO effects (kind, payload, dedupe_key, run_after, request_id)
    SELECT 'message_mail', jsonb_build_object('conversationId', :conversation::text, 'userId', unread.user_id, 'round', unread.mail_round),
           'message_mail:' || :conversation || ':' || unread.user_id || ':' || unread.mail_round,
           greatest(now() + :mailDelay::interval, coalesce(unread.mailed_at + :mailGap::interval, now())), :requestId
    FROM unread JOIN other ON other.user_id = unread.user_id WHERE other.email_messages
    ON CONFLICT (dedupe_key) DO NOTHING
  ), text AS (
    INSERT INTO effects (kind, payload, dedupe_key, run_after, request_id)
    SELECT 'sms_unread', jsonb_build_object('conversationId', :conversation::text, 'userId', unread.user_id, 'lastRead', unread.last_read_message_id),
           'sms_unread:' || :conversation || ':' || unread.user_id || ':' || unread.last_read_message_id, now() + :textDelay::interval, :requestId
    FROM unread
    ON CONFLICT (dedupe_key) DO NOTHING
  )
  SELECT json_agg(r) AS rows FROM (
  SELECT s.user_id, s.name, s.username, s.avatar_key, s.status, s.language, s.push_messages,
         coalesce(unread.unread_count, s.unread_count) AS unread_count,
         c.id, c.updated_at, c.order_id, g.id AS gig_id, g.title AS gig_title,
         m.id AS m_id, m.sender_id AS m_sender, m.body AS m_body, m.message_type AS m_type, m.status AS m_status, m.created_at AS m_at,
         m.client_id AS m_client, m.off_platform AS m_off_platform,
         CASE WHEN unread.user_id IS NOT NULL THEN
           1 + (SELECT count(*) FROM notifications x WHERE x.user_id = s.user_id AND x.read_at IS NULL AND x.id <> (SELECT id FROM n))
         END AS notifications_unread
  FROM sides s
  LEFT JOIN m ON true
  LEFT JOIN c ON true
  LEFT JOIN unread ON unread.user_id = s.user_id
  LEFT JOIN gigs g ON g.id = c.gig_id
  ) r`;

/**
 * A member's message into a conversation, and everything a send changes, in one statement (a message is written
 * on every send, and every statement is a round trip: ADR 016): the message (not again for a client id the sender
 * used already), the conversation's last message and count (and its flag, for payment talk that leaves Soko before
 * a paid order), the recipient's unread count, their notification of the conversation (created or brought up to
 * now), and the effects that may follow: mail about it, if they want message mail, and a text if it is still
 * unread in 15 minutes (sms_unread: one per point the recipient had read up to). Nothing is written unless the
 * sender is in the conversation and the other member is active.
 *
 * Mail is batched (mailUnreadMessages in app/operations/messages.server.ts): one `message_mail` effect per
 * conversation, recipient and mail round, due `mailDelayMs` from now (read on the page meanwhile, no mail) and
 * never sooner than `mailGapMs` after that conversation's last mail. Messages that come while a round waits join
 * it (the effect's dedupe key). The round is the one the update of the recipient's unread count returns, so read
 * under their row's lock, as mailUnreadMessages reads it: a message sent while its round's mail is being written
 * waits for that round to end and starts the next one. Read without the lock, it could see the round still
 * running (whose list was read without this message), join that round's key, and never be mailed.
 *
 * Returns both members' rows: their side, and the conversation as they see it in their list (conversationViews'
 * columns); the message's columns are null when nothing was stored (see `sides` to tell why).
 */
export async function storeMessage(
  db: Db,
  m: { conversationId: string; senderId: number; body: string; clientId?: string; type: Message["type"] },
  plan: SendPlan,
): Promise<{ rows: Row[]; message: Message | null; sides: SendSide[] }> {
  const ms = (n: number) => `${Math.round(n)} milliseconds`;
  // One JSON column: node-postgres reads a result's column descriptions on every run, and two rows of twenty-odd
  // columns cost the web process more than the JSON does.
  const [result] = await runStatement<{ rows: Row[] | null }>(db, SEND_STATEMENT, {
    conversation: m.conversationId,
    sender: m.senderId,
    client: m.clientId ?? null,
    body: m.body,
    type: m.type,
    reason: plan.offPlatformReason,
    noticeBody: plan.notice.body,
    noticeKey: plan.notice.body_key,
    noticeValues: plan.notice.body_values,
    mailDelay: ms(plan.mailDelayMs),
    mailGap: ms(plan.mailGapMs),
    textDelay: ms(plan.textDelayMs),
    requestId: plan.requestId,
  });
  const rows = result?.rows ?? [];
  const sides = rows.map((r) => ({
    userId: Number(r.user_id),
    status: r.status as string,
    language: r.language as string,
    pushMessages: Boolean(r.push_messages),
    notificationsUnread: r.notifications_unread === null ? null : Number(r.notifications_unread),
  }));
  const r = rows.find((row) => row.m_id !== null);
  const message =
    r &&
    toMessage({
      id: r.m_id,
      conversation_id: m.conversationId,
      sender_id: r.m_sender,
      client_id: r.m_client,
      body: r.m_body,
      message_type: r.m_type,
      status: r.m_status,
      off_platform: r.m_off_platform,
      created_at: r.m_at,
    });
  return { rows, message: message ?? null, sides };
}

/** A stored message's files (the message was just written, in the same transaction): the message with them. */
export async function addAttachments(db: Db, message: Message, files: StoredAttachment[]): Promise<Message> {
  const rows: Row[] = await db("message_attachments")
    .insert(
      files.map((a) => ({ message_id: message.id, storage_key: a.storageKey, file_name: a.fileName, content_type: a.contentType, size_bytes: a.sizeBytes })),
    )
    .returning(["id", "file_name", "content_type", "size_bytes"]);
  const attachments = rows
    .map((f) => ({ id: Number(f.id), fileName: f.file_name as string, contentType: f.content_type as string, sizeBytes: f.size_bytes as number }))
    .sort((a, b) => a.id - b.id);
  return { ...message, attachments };
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

/** Message ids a mark moved, by conversation and sender (a mark's live event tells the sender's pages). */
export type MovedMarks = { conversationId: string; senderId: number; ids: number[] }[];

function groupMoved(rows: Row[]): MovedMarks {
  const groups = new Map<string, { conversationId: string; senderId: number; ids: number[] }>();
  for (const r of rows) {
    if (r.id === null) continue;
    const conversationId = r.conversation_id as string;
    const g = groups.get(conversationId) ?? { conversationId, senderId: Number(r.sender_id), ids: [] };
    g.ids.push(Number(r.id));
    groups.set(conversationId, g);
  }
  return [...groups.values()].map((g) => ({ ...g, ids: g.ids.sort((a, b) => a - b) }));
}

const READ_STATEMENT = `
  WITH me AS (
    SELECT unread_count, last_read_message_id FROM conversation_participants WHERE conversation_id = :conversation AND user_id = :user
  ), upto AS (
    SELECT coalesce(:upTo::bigint, (SELECT max(id) FROM messages WHERE conversation_id = :conversation), 0) AS id
  ), moved AS (
    UPDATE messages m SET status = 'read', read_at = now(), delivered_at = coalesce(m.delivered_at, now())
    WHERE m.conversation_id = :conversation AND m.id > (SELECT last_read_message_id FROM me) AND m.status IN ('sent', 'delivered')
      AND m.sender_id <> :user AND (:upTo::bigint IS NULL OR m.id <= :upTo::bigint)
    RETURNING m.id, m.sender_id
  ), side AS (
    UPDATE conversation_participants p
    SET last_read_message_id = greatest(p.last_read_message_id, upto.id),
        unread_count = (SELECT count(*) FROM messages x
                        WHERE x.conversation_id = :conversation AND x.sender_id <> :user AND x.id > greatest(p.last_read_message_id, upto.id))
    FROM upto WHERE p.conversation_id = :conversation AND p.user_id = :user
    RETURNING p.unread_count
  ), r AS (
    UPDATE notifications SET read_at = now()
    WHERE user_id = :user AND conversation_id = :conversation AND read_at IS NULL AND EXISTS (SELECT 1 FROM me)
    RETURNING id
  )
  SELECT (SELECT unread_count FROM me) AS before, (SELECT unread_count FROM side) AS unread,
         (SELECT count(*) FROM r) AS notifications_marked,
         (SELECT count(*) FROM notifications x WHERE x.user_id = :user AND x.read_at IS NULL AND x.id NOT IN (SELECT id FROM r)) AS notifications_unread,
         moved.id, moved.sender_id, :conversation AS conversation_id
  FROM (SELECT 1) one LEFT JOIN moved ON true`;

/**
 * Marks look only after the reader's last read mark (`last_read_message_id`): every message before it is read
 * already, since a read mark reads all of the other member's messages up to where it moves that point. Scanning a
 * conversation from its start made each mark cost more the longer the conversation grew.
 *
 * The member has read a conversation (to `upTo`, or all of it), in one statement (a mark is sent for every
 * message that arrives on an open thread): the other member's messages move to read (never back), the member's
 * unread count follows what is still unread, and their notification of the conversation is read. Null if the
 * member is not in the conversation (nothing is written then); else their unread count before and after, the
 * ids moved, and how many notifications were marked and are still unread.
 */
export async function readConversation(
  db: Db,
  { conversationId, userId, upTo }: { conversationId: string; userId: number; upTo?: number },
): Promise<{ before: number; unread: number; moved: MovedMarks; notificationsMarked: number; notificationsUnread: number } | null> {
  const rows = await runStatement<Row>(db, READ_STATEMENT, { conversation: conversationId, user: userId, upTo: upTo ?? null });
  const first = rows[0]!;
  if (first.before === null) return null;
  return {
    before: Number(first.before),
    unread: Number(first.unread),
    moved: groupMoved(rows),
    notificationsMarked: Number(first.notifications_marked),
    notificationsUnread: Number(first.notifications_unread),
  };
}

const DELIVERED_STATEMENT = `
  WITH mine AS (
    SELECT conversation_id, last_read_message_id FROM conversation_participants
    WHERE user_id = :user AND (:conversation::text IS NULL OR conversation_id = :conversation::text)
  ), moved AS (
    UPDATE messages m SET status = 'delivered', delivered_at = now()
    FROM mine
    WHERE m.conversation_id = mine.conversation_id AND m.id > mine.last_read_message_id AND m.status = 'sent' AND m.sender_id <> :user
      AND (:upTo::bigint IS NULL OR m.id <= :upTo::bigint)
    RETURNING m.id, m.conversation_id, m.sender_id
  )
  SELECT EXISTS (SELECT 1 FROM mine) AS member, moved.id, moved.conversation_id, moved.sender_id
  FROM (SELECT 1) one LEFT JOIN moved ON true`;

/**
 * The member's page has the other members' messages up to `upTo` (one conversation's, or every one's): those
 * still only sent move to delivered, in one statement. Null if the member is not in the conversation named.
 */
export async function markDeliveredMessages(
  db: Db,
  { userId, conversationId, upTo }: { userId: number; conversationId?: string; upTo?: number },
): Promise<MovedMarks | null> {
  const rows = await runStatement<Row>(db, DELIVERED_STATEMENT, { user: userId, conversation: conversationId ?? null, upTo: upTo ?? null });
  if (conversationId !== undefined && !rows[0]!.member) return null;
  return groupMoved(rows);
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
