/**
 * The messaging forms' and socket events' rules, shared by the server (which decides) and the browser (which
 * only helps): the same schema parses a form post, a socket event's payload and, later, an API call.
 */
import { z } from "~/schemas/zod";

import { EMPTY_MESSAGE, LONG_MESSAGE, MAX_MESSAGE_CHARS, NO_CONVERSATION, SEND_FAILED } from "~/domain/message-rules";

export { EMPTY_MESSAGE, LONG_MESSAGE, MAX_MESSAGE_CHARS, NO_CONVERSATION, SEND_FAILED };

export const conversationId = z
  .string({ required_error: NO_CONVERSATION, invalid_type_error: NO_CONVERSATION })
  .regex(/^conv_[a-z0-9]{10,40}$/, NO_CONVERSATION);

/** A random id the sending page gives each message, so a send retried after a dropped connection is stored once. */
export const clientMessageId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, SEND_FAILED);

const messageText = z.string({ invalid_type_error: EMPTY_MESSAGE }).trim().max(MAX_MESSAGE_CHARS, LONG_MESSAGE).default("");

/** A message: text, or (from the form) files with or without text; the operation checks it is not empty. */
export const SendMessageSchema = z.object({
  conversationId,
  body: messageText,
  clientId: clientMessageId.optional(),
});
export type SendMessageInput = z.output<typeof SendMessageSchema>;

const positiveId = (message: string) => z.coerce.number({ invalid_type_error: message }).int(message).positive(message);

/**
 * A conversation with another member: by username (Contact Seller on a gig, a profile) or by id (socket
 * `create_conversation`), with what it is about (a gig or an order), and optionally a first message.
 */
export const StartConversationSchema = z
  .object({
    to: z.string().trim().min(1).max(60).optional(),
    userId: positiveId("chat.start.chooseWho").optional(),
    gigId: positiveId("chat.start.chooseGig").optional(),
    orderId: positiveId("chat.start.chooseOrder").optional(),
  })
  .refine((v) => v.to !== undefined || v.userId !== undefined || v.gigId !== undefined || v.orderId !== undefined, {
    message: "chat.start.chooseWho",
    path: ["to"],
  });
export type StartConversationInput = z.output<typeof StartConversationSchema>;

/** Marks the member's side of a conversation read (or delivered) up to a message id (all, without one). */
export const MarkSchema = z.object({ conversationId, upTo: positiveId("chat.send.chooseMessage").optional() });
export type MarkInput = z.output<typeof MarkSchema>;

/** Marks messages delivered to this page: those of one conversation, or every conversation's (after a reconnect). */
export const DeliveredSchema = z.object({ conversationId: conversationId.optional(), upTo: positiveId("chat.send.chooseMessage") });
export type DeliveredInput = z.output<typeof DeliveredSchema>;

/** Conversation list: search text (names and message text) and a cursor (the last row's time and id: `listCursor`). */
export const ConversationListSchema = z.object({
  q: z.string().trim().max(100).default(""),
  before: z
    .string()
    .regex(/^\d+~conv_[a-z0-9]{10,40}$/)
    .optional(),
});

/** Where the next page of conversations starts: after this one (its last change's time, then its id). */
export const listCursor = (c: { updatedAt: string; id: string }) => `${new Date(c.updatedAt).getTime()}~${c.id}`;
