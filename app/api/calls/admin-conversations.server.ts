/**
 * Message monitoring for admins (ADR 017, ADR 041): every conversation, searched and filtered; one
 * conversation's messages; flag, unflag and delete. Through the screen's operations
 * (app/operations/admin-conversations.server.ts), which audit each of them, reading a conversation's messages
 * included (`conversation.read`): members' private words are read by an admin only on the record.
 */
import { sayIn } from "~/content/operation-messages";
import { z } from "zod";
import { findAdminConversation, type AdminConversation, type AdminMessage } from "~/models/admin-conversation.server";
import { deleteConversationAsAdmin, flagConversationAsAdmin, listConversationsForAdmin, readConversation } from "~/operations/admin-conversations.server";
import { notFound, ok } from "~/operations/core.server";
import { ADMIN_CONVERSATION_FILTERS } from "~/schemas/monitoring";
import { getDb } from "~/server/db.server";
import { imageUrl } from "~/utils/media";
import { call } from "../route.server";
import { Iso, pageOf, PageQuery } from "../shapes";
import { cursorOf, encodeCursor } from "./admin-users.server";
import { msg } from "~/i18n/message-key";

const ConversationParams = z.object({
  id: z
    .string()
    .trim()
    .regex(/^conv_[a-z0-9]{10,40}$/, "api.conversations.id"),
});

const Participant = z.object({ id: z.number().int(), name: z.string(), email: z.string(), avatarUrl: z.string().nullable() });

const Conversation = z.object({
  id: z.string(),
  participants: z.array(Participant),
  flagged: z.boolean(),
  flaggedAt: Iso.nullable(),
  flagReason: z
    .string()
    .nullable()
    .describe("Why it is flagged: `admin` (an admin's flag) or `off_platform:<reason>` (messaging saw payment talk off the platform)."),
  messageCount: z.number().int(),
  lastMessage: z.object({ senderName: z.string(), body: z.string(), type: z.enum(["text", "file"]), at: Iso }).nullable(),
  updatedAt: Iso,
});

const Message = z.object({
  id: z.number().int(),
  sender: z.object({ id: z.number().int(), name: z.string(), avatarUrl: z.string().nullable() }),
  body: z.string(),
  type: z.enum(["text", "file"]),
  offPlatform: z.boolean().describe("Messaging found payment talk off the platform in it."),
  at: Iso,
  attachments: z.array(z.object({ id: z.number().int(), fileName: z.string(), contentType: z.string(), sizeBytes: z.number().int() })),
});

const avatar = (key: string | null) => (key ? imageUrl(key, "avatar") : null);

const conversationOf = (c: AdminConversation): z.input<typeof Conversation> => ({
  id: c.id,
  participants: c.participants.map((p) => ({ id: p.id, name: p.name, email: p.email, avatarUrl: avatar(p.avatarKey) })),
  flagged: c.flaggedAt !== null,
  flaggedAt: c.flaggedAt,
  flagReason: c.flagReason,
  messageCount: c.messageCount,
  lastMessage: c.lastMessage,
  updatedAt: c.updatedAt,
});

const messageOf = (m: AdminMessage): z.input<typeof Message> => ({
  ...m,
  sender: { id: m.sender.id, name: m.sender.name, avatarUrl: avatar(m.sender.avatarKey) },
});

const blank = (v: unknown) => (v === "" ? undefined : v);

export const adminConversationCalls = [
  call({
    method: "get",
    path: "/admin/conversations",
    operationId: "adminListConversations",
    summary: "Every conversation, searched and filtered, flagged ones first",
    description:
      "`search` matches both members' names and emails and the text of every message. `filter`: `flagged`, `recent` (a message in the last 24 hours) " +
      "or `high_volume` (most messages first). Flagged conversations come first (messaging's off-platform flags before an admin's), then the latest.",
    tag: "Admin",
    access: "admin",
    query: PageQuery.extend({
      search: z
        .string()
        .trim()
        .max(200, msg("api.field.searchTooLong", { max: 200 }))
        .default(""),
      filter: z.preprocess(blank, z.enum(ADMIN_CONVERSATION_FILTERS, { errorMap: () => ({ message: "api.conversations.filter" }) }).default("all")),
      cursor: cursorOf("o"),
    }),
    response: pageOf(Conversation),
    async handle({ actor, query }) {
      const offset = query.cursor ?? 0;
      const listed = await listConversationsForAdmin(actor, { q: query.search, filter: query.filter, page: 1, limit: query.limit, offset });
      if (!listed.ok) return listed;
      const { conversations, more } = listed.value;
      return ok({ items: conversations.map(conversationOf), nextCursor: more ? encodeCursor("o", offset + conversations.length) : null });
    },
  }),
  call({
    method: "get",
    path: "/admin/conversations/{id}/messages",
    operationId: "adminConversationMessages",
    summary: "A conversation's messages, the newest page first (audited)",
    description:
      "Each page is in time order, oldest first; `nextCursor` pages back to older messages. Every reading is written to the audit log " +
      "(`conversation.read`), with who was in the conversation and how many messages were shown.",
    tag: "Admin",
    access: "admin",
    params: ConversationParams,
    query: PageQuery.extend({ cursor: cursorOf("before") }),
    response: pageOf(Message).extend({ conversation: Conversation }),
    failures: [404],
    async handle({ actor, params, query }) {
      const read = await readConversation(actor, { conversationId: params.id, before: query.cursor || undefined, limit: query.limit });
      if (!read.ok) return read;
      const { conversation, messages, older } = read.value;
      return ok({
        conversation: conversationOf(conversation),
        items: messages.map(messageOf),
        nextCursor: older && messages.length > 0 ? encodeCursor("before", messages[0]!.id) : null,
      });
    },
  }),
  call({
    method: "delete",
    path: "/admin/conversations/{id}",
    operationId: "adminDeleteConversation",
    summary: "Delete a conversation with its messages and files",
    description: "Both members' sides go, with its notifications; the attachments' files are deleted once that is done. Audited. This cannot be undone.",
    tag: "Admin",
    access: "admin",
    params: ConversationParams,
    response: z.object({
      participants: z.array(z.number().int()).describe("The members who were in it."),
      messageCount: z.number().int(),
      files: z.number().int().describe("How many attachments' files are deleted."),
    }),
    failures: [404],
    async handle({ actor, params, locale }) {
      const result = await deleteConversationAsAdmin(actor, { conversationId: params.id });
      return result.ok ? { ok: true, value: result.value, message: sayIn(locale)("api.conversations.deleted") } : result;
    },
  }),
  call({
    method: "patch",
    path: "/admin/conversations/{id}/flag",
    operationId: "adminFlagConversation",
    summary: "Flag a conversation for review, or clear its flag",
    description:
      "Flagging keeps an earlier flag and its reason; clearing removes any flag, whichever reason raised it. `changed` is false when it already was so. Audited.",
    tag: "Admin",
    access: "admin",
    params: ConversationParams,
    body: z
      .object({ flagged: z.boolean({ required_error: "api.conversations.flagRequired", invalid_type_error: msg("api.field.boolean", { field: "flagged" }) }) })
      .strict(),
    response: z.object({ changed: z.boolean(), conversation: Conversation }),
    failures: [404],
    async handle({ actor, params, body, locale }) {
      const result = await flagConversationAsAdmin(actor, { conversationId: params.id, flagged: body.flagged });
      if (!result.ok) return result;
      const conversation = await findAdminConversation(getDb(), params.id);
      if (!conversation) return notFound("conversation.not_found");
      return {
        ok: true,
        value: { changed: result.value.changed, conversation: conversationOf(conversation) },
        message: sayIn(locale)(body.flagged ? "api.conversations.flagged" : "api.conversations.unflagged"),
      };
    },
  }),
];
