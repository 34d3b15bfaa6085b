/**
 * Messages calls (ADR 016, ADR 041): the member's conversations and one conversation's thread (the same reads as
 * the /messages pages), a message sent (text and the member's uploads by key, stored once per client id), a
 * conversation marked read, and a conversation started. Each goes through the operations the pages and the chat
 * socket use, so a conversation the member is not in is 404 here as there. Live events reach the member's sockets
 * (a page's cookie or an app's `auth: { token }`) whichever door the change came through.
 */
import { sayIn } from "~/content/operation-messages";
import { sayMessage } from "~/i18n/message-key";
import { z } from "zod";
import { conversationFor, listConversations, type ConversationSummary } from "~/models/conversation.server";
import { threadPage, type Message } from "~/models/message.server";
import { notFound, ok } from "~/operations/core.server";
import { markConversationRead, sendMessage, startConversation } from "~/operations/messages.server";
import { clientMessageId, conversationId, listCursor, MAX_MESSAGE_CHARS, SendMessageSchema } from "~/schemas/message";
import { getDb } from "~/server/db.server";
import { MAX_MESSAGE_FILES } from "~/server/files/message-files.server";
import { imageUrl } from "~/utils/media";
import { call } from "../route.server";
import { Iso, PageQuery, pageOf } from "../shapes";
import { msg } from "~/i18n/message-key";

const TAG = "Messages";

const Party = z.object({
  id: z.number().int(),
  name: z.string(),
  username: z.string(),
  avatarUrl: z.string().nullable().describe("The avatar's path on this site, or null."),
  available: z.boolean().describe("False once the member can no longer receive messages (suspended, banned, deleted)."),
});

const ConversationItem = z.object({
  id: z.string(),
  other: Party,
  lastMessage: z
    .object({
      id: z.number().int(),
      senderId: z.number().int(),
      body: z.string(),
      type: z.enum(["text", "file"]),
      status: z.enum(["sent", "delivered", "read"]),
      at: Iso,
    })
    .nullable(),
  unreadCount: z.number().int().describe("The member's messages not yet read in this conversation."),
  updatedAt: Iso,
  gig: z.object({ id: z.number().int(), title: z.string() }).nullable().describe("The gig the conversation is about, if any."),
  orderId: z.number().int().nullable().describe("The order the conversation is about, if any."),
});

const AttachmentItem = z.object({
  id: z.number().int(),
  name: z.string(),
  contentType: z.string(),
  sizeBytes: z.number().int(),
  downloadUrl: z.string().describe("The file's API path (GET it with the token), for the conversation's two members."),
});

const MessageItem = z.object({
  id: z.number().int(),
  conversationId: z.string(),
  senderId: z.number().int(),
  clientId: z.string().nullable().describe("The id the sender's app gave the message."),
  body: z.string(),
  type: z.enum(["text", "file"]),
  status: z.enum(["sent", "delivered", "read"]).describe("sent (stored), delivered (the recipient's app or page has it), read."),
  offPlatform: z.boolean().describe("The message talks of paying outside Soko before any paid order between the two."),
  at: Iso,
  attachments: z.array(AttachmentItem),
});

const conversationOf = (c: ConversationSummary): z.input<typeof ConversationItem> => ({
  id: c.id,
  other: {
    id: c.other.id,
    name: c.other.name,
    username: c.other.username,
    avatarUrl: c.other.avatarKey ? imageUrl(c.other.avatarKey, "avatar") : null,
    available: c.other.status === "active",
  },
  lastMessage: c.lastMessage,
  unreadCount: c.unreadCount,
  updatedAt: c.updatedAt,
  gig: c.gig,
  orderId: c.orderId,
});

const messageOf = (m: Message): z.input<typeof MessageItem> => ({
  id: m.id,
  conversationId: m.conversationId,
  senderId: m.senderId,
  clientId: m.clientId,
  body: m.body,
  type: m.type,
  status: m.status,
  offPlatform: m.offPlatform,
  at: m.at,
  attachments: m.attachments.map((a) => ({
    id: a.id,
    name: a.fileName,
    contentType: a.contentType,
    sizeBytes: a.sizeBytes,
    downloadUrl: `/api/v1/messages/${encodeURIComponent(m.conversationId)}/files/${a.id}`,
  })),
});

const ConversationParams = z.object({ id: conversationId });

/** The cursor of the conversation list: the last item's time (epoch milliseconds) and id, as listCursor makes it. */
const ConversationsQuery = PageQuery.extend({
  q: z
    .string()
    .trim()
    .max(100, msg("api.field.searchTooLong", { max: 100 }))
    .optional()
    .describe("Searches the other member's name and the messages' text."),
  cursor: z
    .string()
    .regex(/^\d{1,15}~conv_[a-z0-9]{10,40}$/, "api.page.cursor")
    .optional(),
});

/** The cursor of a thread: the oldest message id of the page before. */
const ThreadQuery = PageQuery.extend({
  cursor: z
    .string()
    .regex(/^\d{1,15}$/, "api.page.cursor")
    .optional(),
});

const SendBody = z
  .object({
    conversationId,
    body: SendMessageSchema.shape.body.describe(`The text, at most ${MAX_MESSAGE_CHARS} characters; may be empty when files are sent.`),
    clientId: clientMessageId.describe(
      "A random id the app gives each message (1–64 of A–Z, a–z, 0–9, _ and -): a resend with the same one stores nothing new.",
    ),
    files: z
      .array(z.string().min(1).max(100), { invalid_type_error: "api.field.uploadKeys" })
      .max(MAX_MESSAGE_FILES, msg("api.field.tooManyFiles", { max: MAX_MESSAGE_FILES }))
      .optional()
      .describe("Keys of the member's uploads (images or PDFs) from POST /upload/document; each can be sent once."),
  })
  .strict();

const positive = (what: string) =>
  z
    .number({ invalid_type_error: `${what} is a number` })
    .int(`${what} is a whole number`)
    .positive(`${what} is positive`);

const StartBody = z
  .object({
    userId: positive("userId").optional(),
    username: z.string().trim().min(1).max(60).optional(),
    gigId: positive("gigId").optional().describe("A published gig: the conversation is with its seller, about it."),
    orderId: positive("orderId").optional().describe("The member's order: the conversation is with its other party, about it."),
  })
  .strict()
  .refine((v) => v.userId !== undefined || v.username !== undefined || v.gigId !== undefined || v.orderId !== undefined, {
    message: "api.messages.recipient",
    path: ["userId"],
  });

/** The member's view of a conversation just written (null cannot happen for its member: the operation checked). */
async function summaryFor(id: string, userId: number) {
  const summary = await conversationFor(getDb(), id, userId);
  return summary ? ok(conversationOf(summary)) : notFound("conversation.not_found");
}

export const messageCalls = [
  call({
    method: "get",
    path: "/messages/conversations",
    operationId: "listConversations",
    summary: "The member's conversations, most recent first",
    description: "Each with the other member, the last message and the member's unread count.",
    tag: TAG,
    access: "member",
    query: ConversationsQuery,
    response: pageOf(ConversationItem),
    async handle({ actor, query }) {
      if (actor.kind !== "member") return notFound("conversation.not_found");
      const { conversations, more } = await listConversations(getDb(), actor.user.id, { q: query.q, before: query.cursor, limit: query.limit });
      const last = conversations.at(-1);
      return ok({ items: conversations.map(conversationOf), nextCursor: more && last ? listCursor(last) : null });
    },
  }),
  call({
    method: "post",
    path: "/messages/conversations",
    operationId: "startConversation",
    summary: "Start a conversation (or find the one with that member)",
    description:
      "With a member by id or username, with a gig's seller about the gig, or with an order's other party about the order. Two members have one conversation: " +
      "asking again answers the same one (`created: false`), now about the gig or order named.",
    tag: TAG,
    access: "member",
    body: StartBody,
    response: z.object({ conversation: ConversationItem, created: z.boolean() }),
    status: 201,
    failures: [404],
    async handle({ actor, body }) {
      const started = await startConversation(actor, { userId: body.userId, to: body.username, gigId: body.gigId, orderId: body.orderId });
      if (!started.ok && started.error === "invalid" && started.issues.to) {
        // The operation calls the other member `to`: here, the field they were named by (in the operation's order).
        const { to, ...rest } = started.issues;
        const named = body.orderId !== undefined ? "orderId" : body.gigId !== undefined ? "gigId" : body.userId !== undefined ? "userId" : "username";
        return { ...started, issues: { ...rest, [named]: to } };
      }
      if (!started.ok || actor.kind !== "member") return started as never;
      const summary = await summaryFor(started.value.conversationId, actor.user.id);
      if (!summary.ok) return summary;
      return { ok: true, status: 201, value: { conversation: summary.value, created: started.value.created } };
    },
  }),
  call({
    method: "post",
    path: "/messages/send",
    operationId: "sendMessage",
    summary: "Send a message",
    description:
      "Text, files (the member's uploads by key), or both. The same `clientId` again (a retry after a lost answer) stores nothing new and answers the " +
      "first message with `duplicate: true`. Talk of paying outside Soko before a paid order between the two is stored with a `warning`. " +
      "The other member's app and pages get `new_message` on the chat socket.",
    tag: TAG,
    access: "member",
    body: SendBody,
    response: z.object({
      message: MessageItem,
      duplicate: z.boolean().describe("True when this clientId was sent before: the message is that first one."),
      warning: z.string().nullable(),
    }),
    status: 201,
    idempotent: true,
    failures: [404, 409],
    async handle({ actor, body, locale }) {
      const sent = await sendMessage(actor, { conversationId: body.conversationId, body: body.body, clientId: body.clientId, uploadKeys: body.files });
      if (!sent.ok) return sent;
      return {
        ok: true,
        status: 201,
        value: {
          message: messageOf(sent.value.message),
          duplicate: sent.value.duplicate,
          warning: sent.value.warning && sayMessage(sayIn(locale), sent.value.warning),
        },
      };
    },
  }),
  call({
    method: "get",
    path: "/messages/{id}",
    operationId: "getConversation",
    summary: "One conversation and a page of its messages",
    description:
      "The newest messages first come as a page, oldest first within it; `nextCursor` asks for the older page before it. Reading does not mark " +
      "anything read: POST /messages/{id}/read does.",
    tag: TAG,
    access: "member",
    params: ConversationParams,
    query: ThreadQuery,
    response: pageOf(MessageItem).extend({ conversation: ConversationItem }),
    failures: [404],
    async handle({ actor, params, query }) {
      if (actor.kind !== "member") return notFound("conversation.not_found");
      const db = getDb();
      const before = query.cursor === undefined ? undefined : Number(query.cursor);
      const [conversation, page] = await Promise.all([
        conversationFor(db, params.id, actor.user.id),
        threadPage(db, params.id, actor.user.id, { before, limit: query.limit }),
      ]);
      // Another member's conversation does not exist for this one.
      if (!conversation || !page) return notFound("conversation.not_found");
      const oldest = page.messages[0];
      return ok({
        conversation: conversationOf(conversation),
        items: page.messages.map(messageOf),
        nextCursor: page.older && oldest ? String(oldest.id) : null,
      });
    },
  }),
  call({
    method: "post",
    path: "/messages/{id}/read",
    operationId: "markConversationRead",
    summary: "Mark a conversation read",
    description: "The other member's messages (up to `upTo`, or all) become read; their sender's apps and pages get `message_status_update`.",
    tag: TAG,
    access: "member",
    params: ConversationParams,
    body: z.object({ upTo: positive("upTo").optional().describe("The last message id read; all without it.") }).strict(),
    response: z.object({ marked: z.number().int().describe("How many messages became read.") }),
    failures: [404],
    handle: ({ actor, params, body }) => markConversationRead(actor, { conversationId: params.id, upTo: body.upTo }),
  }),
];
