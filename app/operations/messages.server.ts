/**
 * Messaging (ADR 016): members talk before and during an order. The /messages form actions, the socket.io
 * events (app/realtime/chat.server.ts) and, later, the JSON API call these operations, which check that the
 * member is in the conversation, store first, and push live events only after the commit.
 *
 * Marks: a message is `sent` when stored, `delivered` when the recipient's page has it (their socket
 * acknowledged it, or they loaded /messages), `read` when they open the thread.
 */
import type { Knex } from "knex";
import { conversationViews, findOrCreateConversation, senderSide, viewsOf } from "~/models/conversation.server";
import {
  addAttachments,
  markDeliveredMessages,
  readConversation,
  sentMessage,
  storeMessage,
  type Message,
  type StoredAttachment,
} from "~/models/message.server";
import { takeUploadedFiles } from "~/models/uploaded-file.server";
import { findPartyOrder } from "~/models/order.server";
import { noticeColumns, sayNotice, type Notice } from "~/models/notification.server";
import type { SessionUser } from "~/models/session.server";
import { sayIn } from "~/content/operation-messages";
import { DEFAULT_LOCALE, isLocale } from "~/i18n/locales";
import { sendMail } from "~/models/outbox.server";
import {
  conflict,
  forbidden,
  invalid,
  issue,
  limitedBy,
  notFound,
  ok,
  requestIdOfActor,
  transact,
  writeOnce,
  type Actor,
  type OneStatement,
  type Result,
  type Tx,
} from "~/operations/core.server";
import { notificationPush, preferencesOf } from "~/operations/notifications.server";
import type { Db } from "~/server/db.server";
import type { DeliveredInput, MarkInput, SendMessageInput, StartConversationInput } from "~/schemas/message";
import { OFF_PLATFORM_WARNING, offPlatformReason } from "~/domain/off-platform";
import { appMailOrigin } from "~/server/host.server";
import { isMessageFileType } from "~/server/files/message-files.server";
import { consume } from "~/server/rate-limit.server";
import { UNREAD_TEXT_DELAY_MS } from "~/operations/sms-alerts.server";

type Options = { db?: Knex };
type Member = Extract<Actor, { kind: "member" }>;

/** The live events (ADR 016), as the browser's chat hook (app/hooks/use-chat.ts) listens for them. */
export const CHAT_EVENTS = {
  newMessage: "new_message",
  statusUpdate: "message_status_update",
  conversationCreated: "conversation_created",
  conversationUpdated: "conversation_updated",
} as const;

/** How long after a message its mail waits (read on the page meanwhile, no mail), and the least gap between two mails. */
export const MESSAGE_MAIL_DELAY_MS = 2 * 60_000;
export const MESSAGE_MAIL_GAP_MS = 15 * 60_000;
/** A message mail quotes at most this many of the unread messages. */
const MAIL_LISTS = 5;

const memberOnly = (actor: Actor): actor is Member => actor.kind === "member";

/**
 * Opens the conversation between the member and another (from a gig's Contact Seller, an order, a profile,
 * or the socket's `create_conversation`), reusing the pair's conversation if there is one; it is then about
 * the gig or order it was opened from. Both members' pages are told of a new one.
 */
export async function startConversation(
  actor: Actor,
  input: StartConversationInput,
  { db }: Options = {},
): Promise<Result<{ conversationId: string; created: boolean }>> {
  if (!memberOnly(actor)) return forbidden("message.sign_in_required");
  const me = actor.user.id;
  return transact(
    actor,
    async (tx) => {
      const other = await otherParty(tx, me, input);
      if (!other.ok) return other;
      const otherId = other.value.userId;
      if (otherId === me) return invalid({ to: [issue("message.to_yourself")] });
      const limited = await consume("conversation", [`user:${me}`]);
      if (limited) return limitedBy(limited);
      const { id, created } = await findOrCreateConversation(tx.trx, {
        a: me,
        b: otherId,
        createdBy: me,
        gigId: other.value.gigId,
        orderId: other.value.orderId,
      });
      if (created) {
        const views = await conversationViews(tx.trx, id);
        for (const userId of [me, otherId]) {
          tx.live({ to: userId, event: CHAT_EVENTS.conversationCreated, data: { conversation: views.get(userId) ?? null } });
        }
      }
      return ok({ conversationId: id, created });
    },
    { db },
  );
}

/** Who the member means to write to, and what about: an order's other party, a gig's seller, or a member. */
async function otherParty(
  tx: Tx,
  me: number,
  input: StartConversationInput,
): Promise<Result<{ userId: number; gigId: number | null; orderId: number | null }>> {
  const db = tx.trx;
  if (input.orderId !== undefined) {
    // Someone else's order does not exist for this member; nor, to its seller, one not paid yet (partyRole).
    const own = await findPartyOrder(db, input.orderId, me);
    if (!own) return notFound("order.not_found");
    const { order, role } = own;
    return active(db, role === "buyer" ? order.sellerId : order.buyerId, { gigId: order.gigId, orderId: order.id });
  }
  if (input.gigId !== undefined) {
    const gig = await db("gigs").where({ id: input.gigId, status: "published" }).first("seller_id");
    if (!gig) return notFound("gig.not_found");
    return active(db, Number(gig.seller_id), { gigId: input.gigId, orderId: null });
  }
  const user =
    input.userId !== undefined
      ? await db("users").where({ id: input.userId }).first("id")
      : input.to
        ? await db("users").where({ username: input.to.toLowerCase() }).first("id")
        : null;
  if (!user) return notFound("member.not_found");
  return active(db, Number(user.id), { gigId: null, orderId: null });
}

/** Members write to active members; admins are reached through support, not the marketplace's chat. */
async function active(db: Knex.Transaction, userId: number, about: { gigId: number | null; orderId: number | null }) {
  const user = await db("users").where({ id: userId }).first("status", "role");
  if (!user || user.status !== "active" || user.role === "admin") return notFound("member.not_found");
  return ok({ userId, ...about });
}

export type SentMessage = { message: Message; duplicate: boolean; warning: string | null };

/**
 * Sends a message (text, files, or both) into a conversation the member is in. Before a paid order exists
 * between the two, payment talk that leaves Soko warns the sender and flags the conversation. The recipient
 * gets the message live, a notification (pushed and mailed as they chose; mail at most once per 15 minutes
 * per conversation), and an unread count one higher. The same client id twice stores one message.
 *
 * A text is one statement (storeMessage, run by writeOnce: no transaction of its own to begin and commit).
 * Files come stored already (`attachments`, the page's form), or as the member's uploads by key (`uploadKeys`,
 * the JSON API): those are taken, and the message's attachments written, in one transaction with the same
 * statement, so a message that is not stored leaves them unused.
 */
export async function sendMessage(
  actor: Actor,
  input: SendMessageInput & { attachments?: StoredAttachment[]; uploadKeys?: string[] },
  { db }: Options = {},
): Promise<Result<SentMessage>> {
  if (!memberOnly(actor)) return forbidden("message.sign_in_required");
  const me = actor.user;
  const uploadKeys = input.uploadKeys ?? [];
  const attachments = input.attachments ?? [];
  if (!input.body && !attachments.length && !uploadKeys.length) return invalid({ body: [issue("message.empty")] });
  const limited = await consume("message", [`user:${me.id}`]);
  if (limited) return limitedBy(limited);
  if (!attachments.length && !uploadKeys.length) return writeOnce(actor, (w) => storeAndAnnounce(w, w.db, me, input, []), { db });
  return transact<SentMessage>(
    actor,
    async (tx) => {
      const side = await senderSide(tx.trx, input.conversationId, me.id);
      if (!side) return notFound("conversation.not_found");
      if (!side.other?.active) return conflict("message.recipient_unavailable");
      let files = attachments;
      if (uploadKeys.length) {
        // A resend of a message that took its uploads already is answered with that message, as any resend is.
        const resent = async () => {
          const earlier = input.clientId ? await sentMessage(tx.trx, me.id, input.clientId) : null;
          return earlier && ok({ message: earlier, duplicate: true, warning: earlier.offPlatform ? OFF_PLATFORM_WARNING : null });
        };
        const earlier = await resent();
        if (earlier) return earlier;
        const taken = await takeUploadedFiles(tx.trx, me.id, uploadKeys);
        // Null: a key is not this member's unused upload, or a resend racing the first send found them taken.
        if (!taken) return (await resent()) ?? invalid({ files: [issue("message.file_unavailable")] });
        const refused = taken.find((f) => !isMessageFileType(f.contentType));
        if (refused) return invalid({ files: [issue("message.file_type", { file: refused.fileName })] });
        files = taken;
      }
      return storeAndAnnounce({ actor, requestId: requestIdOfActor(actor), live: tx.live }, tx.trx, me, input, files);
    },
    { db },
  );
}

/**
 * The send's statement and what follows it: the answer, why nothing was stored (not the member's conversation,
 * the other member no longer active, or a resend, answered with the first), the files' rows, and the live events
 * (the message to both members' pages, the recipient's bell).
 */
async function storeAndAnnounce(
  w: Pick<OneStatement, "actor" | "requestId" | "live">,
  db: Db,
  me: SessionUser,
  input: SendMessageInput,
  files: StoredAttachment[],
): Promise<Result<SentMessage>> {
  const notice: Notice = { key: "notify.message.new", values: { name: me.name } };
  const stored = await storeMessage(
    db,
    { conversationId: input.conversationId, senderId: me.id, body: input.body, clientId: input.clientId, type: files.length ? "file" : "text" },
    {
      notice: noticeColumns(notice),
      offPlatformReason: offPlatformReason(input.body),
      mailDelayMs: MESSAGE_MAIL_DELAY_MS,
      mailGapMs: MESSAGE_MAIL_GAP_MS,
      textDelayMs: UNREAD_TEXT_DELAY_MS,
      requestId: w.requestId,
    },
  );
  const other = stored.sides.find((side) => side.userId !== me.id);
  if (!stored.sides.some((side) => side.userId === me.id)) return notFound("conversation.not_found");
  if (other?.status !== "active") return conflict("message.recipient_unavailable");
  if (!stored.message) {
    // Nothing stored for a member of the conversation writing to an active member: the client id was used already.
    const earlier = input.clientId ? await sentMessage(db, me.id, input.clientId) : null;
    if (!earlier) throw new Error("a send stored nothing, and the sender has no message with its client id");
    return ok({ message: earlier, duplicate: true, warning: earlier.offPlatform ? OFF_PLATFORM_WARNING : null });
  }
  const message = files.length ? await addAttachments(db, stored.message, files) : stored.message;
  if (other.pushMessages) {
    // Said in the recipient's language (ADR 047), never the sender's.
    const body = sayNotice(notice, isLocale(other.language) ? other.language : DEFAULT_LOCALE);
    w.live(notificationPush(other.userId, other.notificationsUnread!, { kind: "message", body, orderId: null, conversationId: input.conversationId }));
  }
  const views = viewsOf(stored.rows);
  for (const userId of [other.userId, me.id]) {
    w.live({ to: userId, event: CHAT_EVENTS.newMessage, data: { message, conversation: views.get(userId) ?? null } });
  }
  return ok({ message, duplicate: false, warning: message.offPlatform ? OFF_PLATFORM_WARNING : null });
}

/**
 * The worker's side of message mail (a `message_mail` effect): if the member still has unread messages in
 * the conversation and still wants message mail, one mail lists them; either way the round is over, so the
 * next message starts a new one.
 */
export async function mailUnreadMessages(
  actor: Actor,
  input: { conversationId: string; userId: number; round: number },
  { db }: Options = {},
): Promise<Result<{ mailed: boolean }>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "send_message_mail" });
  return transact(
    actor,
    async (tx) => {
      const side = await tx
        .trx("conversation_participants")
        .where({ conversation_id: input.conversationId, user_id: input.userId })
        .forUpdate()
        .first("mail_round", "last_read_message_id");
      if (!side || side.mail_round !== input.round) return ok({ mailed: false });
      const unread = await tx
        .trx("messages as m")
        .join("users as u", "u.id", "m.sender_id")
        .where("m.conversation_id", input.conversationId)
        .whereNot("m.sender_id", input.userId)
        .where("m.id", ">", side.last_read_message_id)
        .whereNot("m.status", "read")
        .orderBy("m.id", "desc")
        .limit(MAIL_LISTS)
        // Window functions run before LIMIT: `total` counts every unread message.
        .select("m.body", "m.message_type", "u.name", tx.trx.raw("count(*) over () as total"));
      const user = await preferencesOf(tx, input.userId);
      const mailed = unread.length > 0 && Boolean(user?.active && user.emailMessages);
      await tx
        .trx("conversation_participants")
        .where({ conversation_id: input.conversationId, user_id: input.userId })
        .update({ mail_round: input.round + 1, ...(mailed ? { mailed_at: tx.trx.fn.now() } : {}) });
      if (mailed) {
        const from = unread[0].name as string;
        // The five latest, oldest first, and how many more wait on Soko.
        const more = Number(unread[0].total) - Math.min(unread.length, MAIL_LISTS);
        // In the recipient's language (ADR 047); the messages themselves as they were written.
        const _ = sayIn(user!.language);
        const lines = unread
          .reverse()
          .map((m) =>
            _("mail.messages.line", {
              name: m.name,
              text: m.message_type === "file" && !m.body ? _("mail.messages.sentFile") : (m.body as string).slice(0, 300),
            }),
          )
          .concat(more > 0 ? [_("mail.messages.more", { count: more })] : [])
          .join("\n");
        await sendMail(tx.trx, {
          to: user!.email,
          subject: _("mail.messages.subject", { name: from }),
          body: _("mail.messages.body", { lines, url: `${appMailOrigin()}/messages/${input.conversationId}` }),
        });
      }
      return ok({ mailed });
    },
    { db },
  );
}

/**
 * The member opened the conversation (or read it to `upTo`): the other member's messages are read, the
 * member's unread count and the conversation's notification follow, and the sender's pages see the marks.
 * One statement (readConversation): a mark follows every message that arrives on an open thread.
 */
export async function markConversationRead(actor: Actor, input: MarkInput, { db }: Options = {}): Promise<Result<{ marked: number }>> {
  if (!memberOnly(actor)) return forbidden("message.sign_in_required");
  const me = actor.user.id;
  return writeOnce(
    actor,
    async (w) => {
      const read = await readConversation(w.db, { conversationId: input.conversationId, userId: me, upTo: input.upTo });
      if (!read) return notFound("conversation.not_found");
      for (const group of read.moved) {
        w.live({ to: group.senderId, event: CHAT_EVENTS.statusUpdate, data: { conversationId: group.conversationId, ids: group.ids, status: "read" } });
      }
      if (read.before !== read.unread || read.moved.length) {
        w.live({ to: me, event: CHAT_EVENTS.conversationUpdated, data: { conversationId: input.conversationId, unreadCount: read.unread } });
      }
      if (read.notificationsMarked) w.live(notificationPush(me, read.notificationsUnread));
      return ok({ marked: read.moved.reduce((n, g) => n + g.ids.length, 0) });
    },
    { db },
  );
}

/**
 * The member's page has the other members' messages up to `upTo` (one conversation's, or all of them after
 * a reconnect or a visit to /messages): they move from sent to delivered, and their senders' pages see it.
 */
export async function markDelivered(actor: Actor, input: Partial<DeliveredInput>, { db }: Options = {}): Promise<Result<{ marked: number }>> {
  if (!memberOnly(actor)) return forbidden("message.sign_in_required");
  const me = actor.user.id;
  return writeOnce(
    actor,
    async (w) => {
      const moved = await markDeliveredMessages(w.db, { userId: me, conversationId: input.conversationId, upTo: input.upTo });
      if (!moved) return notFound("conversation.not_found");
      for (const group of moved) {
        w.live({ to: group.senderId, event: CHAT_EVENTS.statusUpdate, data: { conversationId: group.conversationId, ids: group.ids, status: "delivered" } });
      }
      return ok({ marked: moved.reduce((n, g) => n + g.ids.length, 0) });
    },
    { db },
  );
}
