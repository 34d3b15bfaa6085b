/**
 * The /messages page's live chat state (ADR 016): the conversation list and the open thread as the loaders
 * gave them, kept up to date by the page's socket (app/hooks/live-client.ts) once JavaScript runs. Without
 * JavaScript none of this runs and the page is its loaders' HTML: forms post, the server redirects.
 *
 * - `new_message` appends to the open thread (deduplicated by id, and by client id for this page's own
 *   sends) and moves its conversation to the top of the list with the count the server sends; a message
 *   from the other member is then marked read (the thread is open) or delivered (it is not).
 * - `message_status_update` moves my messages' marks forward (sent → delivered → read, never back).
 * - `conversation_created` adds a conversation; `conversation_updated` sets its unread count.
 * - On every (re)connect the page asks `get_conversations` for what it missed after the largest message id
 *   it has seen, merges it and marks it delivered (or read, in the open thread).
 * - `send` stores through `send_message` with a client id: an optimistic bubble, "Sent" on the ack. A send
 *   that fails hands its client id back with the text, and the send box sends it again under that id: if the
 *   first try was stored and only its answer was lost (the connection dropped), the server keeps one message
 *   (unique (sender_id, client_id)) and the thread shows it once.
 */
import { useRevalidator } from "@remix-run/react";
import { useCallback, useEffect, useRef, useState } from "react";
import type { ConversationSummary } from "~/models/conversation.server";
import type { Message, MessageStatus } from "~/models/message.server";
import { ask, useLiveConnected, useLiveEvent } from "~/hooks/live-client";
import { NO_CONVERSATION, SEND_FAILED } from "~/domain/message-rules";

/** The socket events this page uses (the server's names: CHAT_EVENTS in app/operations/messages.server.ts). */
const CHAT_EVENTS_CLIENT = {
  newMessage: "new_message",
  statusUpdate: "message_status_update",
  conversationCreated: "conversation_created",
  conversationUpdated: "conversation_updated",
  send: "send_message",
} as const;

/** A message as the page shows it: `pending` while this page's send waits for the server's answer. */
export type ChatMessage = Message & { pending?: boolean };

/**
 * A failed send gives back the client id it used, for the retry of the same text (see `send`). Its `message` is
 * a catalogue key of the `chat` namespace, or the server's words: the send box says it with `sayMessage`.
 */
export type SendResult = { ok: true } | { ok: false; message: string; clientId: string };

export type Chat = {
  /** null before JavaScript runs (and without it), then whether the socket is up. */
  connected: boolean | null;
  conversations: ConversationSummary[];
  /** The open thread's messages (this page of them), oldest first. */
  thread: ChatMessage[];
  /** Sends `body`; `clientId` is a failed send's, when the same text is sent again. */
  send: (body: string, clientId?: string) => Promise<SendResult>;
};

const RANK: Record<MessageStatus, number> = { sent: 0, delivered: 1, read: 2 };

/** A random id for a message this page sends (app/schemas/message.ts clientMessageId). */
export function newClientId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The thread with `m` in it once: replacing the same id, or this page's pending bubble of the same client id. */
function withMessage(list: ChatMessage[], m: ChatMessage): ChatMessage[] {
  const at = list.findIndex((x) => x.id === m.id || (m.clientId !== null && x.clientId === m.clientId && x.senderId === m.senderId));
  const next =
    at === -1 ? [...list, m] : list.map((x, i) => (i === at ? { ...m, status: RANK[x.status] > RANK[m.status] && !x.pending ? x.status : m.status } : x));
  // Stored messages by id; pending ones (not stored yet) after them, as they were sent.
  return [...next.filter((x) => !x.pending).sort((a, b) => a.id - b.id), ...next.filter((x) => x.pending)];
}

/** The list with `c` at the top (it just moved), or as it was if `c` is not in it and may not be added. */
function withConversation(list: ConversationSummary[], c: ConversationSummary, { add, top }: { add: boolean; top: boolean }): ConversationSummary[] {
  const at = list.findIndex((x) => x.id === c.id);
  if (at === -1) return add ? [c, ...list] : list;
  if (!top) return list.map((x, i) => (i === at ? c : x));
  return [c, ...list.filter((x) => x.id !== c.id)];
}

type Options = {
  me: number;
  conversations: ConversationSummary[];
  /** The list is a search or a later page: live conversations it does not hold are not added to it. */
  filtered: boolean;
  /** The open thread and its messages from the loader, or null on the list alone. */
  open: { id: string; messages: Message[]; newest: boolean } | null;
};

export function useChat({ me, conversations, filtered, open }: Options): Chat {
  const connected = useLiveConnected(true);
  const revalidator = useRevalidator();
  const [list, setList] = useState(conversations);
  const [thread, setThread] = useState<ChatMessage[]>(open?.messages ?? []);
  const openId = open?.id ?? null;

  // What the handlers read without being made again on every render.
  const latest = useRef({ me, openId, filtered, newest: open?.newest ?? true, revalidator });
  latest.current = { me, openId, filtered, newest: open?.newest ?? true, revalidator };
  const maxSeen = useRef(0);
  const seen = (ids: number[]) => {
    for (const id of ids) if (id > maxSeen.current) maxSeen.current = id;
  };

  // New loader data (a navigation, a revalidation): it is the truth; this page's unanswered sends stay.
  useEffect(() => {
    seen(conversations.map((c) => c.lastMessage?.id ?? 0));
    setList(conversations);
  }, [conversations]);
  const loaded = open?.messages;
  useEffect(() => {
    seen((loaded ?? []).map((m) => m.id));
    setThread((prev) => {
      const pending = prev.filter((m) => m.pending && m.conversationId === openId);
      return pending.reduce(withMessage, (loaded ?? []) as ChatMessage[]);
    });
  }, [loaded, openId]);

  /** The other member's messages have reached this page: read if their thread is open, else delivered. */
  const acknowledge = useCallback((messages: Message[]) => {
    const { me, openId } = latest.current;
    const upTo = new Map<string, number>();
    for (const m of messages) if (m.senderId !== me) upTo.set(m.conversationId, Math.max(upTo.get(m.conversationId) ?? 0, m.id));
    for (const [conversationId, id] of upTo) {
      const event = conversationId === openId ? "mark_read" : "mark_delivered";
      ask(event, { conversationId, upTo: id }).catch(() => {
        // Not acknowledged now: the next visit or reconnect marks it (markDelivered on load, get_conversations).
      });
    }
  }, []);

  // Marks can overtake the message they are about (the recipient's page marks it delivered before this
  // page has the send's answer): the latest mark of each id is kept and applied when the message comes.
  const marks = useRef(new Map<number, MessageStatus>());
  const marked = useCallback((m: Message): Message => {
    const later = marks.current.get(m.id);
    return later && RANK[later] > RANK[m.status] ? { ...m, status: later } : m;
  }, []);

  const onNewMessage = useCallback(
    ({ message, conversation }: { message: Message; conversation: ConversationSummary | null }) => {
      const { openId, filtered, newest } = latest.current;
      seen([message.id]);
      const isOpen = message.conversationId === openId;
      if (conversation) setList((prev) => withConversation(prev, isOpen ? { ...conversation, unreadCount: 0 } : conversation, { add: !filtered, top: true }));
      if (isOpen && newest) setThread((prev) => withMessage(prev, marked(message)));
      acknowledge([message]);
    },
    [acknowledge, marked],
  );

  const onStatus = useCallback(({ conversationId, ids, status }: { conversationId: string; ids: number[]; status: MessageStatus }) => {
    const moved = new Set(ids);
    for (const id of ids) if (RANK[status] > RANK[marks.current.get(id) ?? "sent"]) marks.current.set(id, status);
    const forward = <T extends { id: number; status: MessageStatus }>(m: T): T => (moved.has(m.id) && RANK[status] > RANK[m.status] ? { ...m, status } : m);
    setThread((prev) => prev.map((m) => (m.conversationId === conversationId ? forward(m) : m)));
    setList((prev) => prev.map((c) => (c.id === conversationId && c.lastMessage ? { ...c, lastMessage: forward(c.lastMessage) } : c)));
  }, []);

  const onCreated = useCallback(({ conversation }: { conversation: ConversationSummary | null }) => {
    if (conversation) setList((prev) => withConversation(prev, conversation, { add: !latest.current.filtered, top: false }));
  }, []);

  const onUpdated = useCallback(({ conversationId, unreadCount }: { conversationId: string; unreadCount: number }) => {
    setList((prev) => prev.map((c) => (c.id === conversationId ? { ...c, unreadCount } : c)));
  }, []);

  useLiveEvent(true, CHAT_EVENTS_CLIENT.newMessage, onNewMessage);
  useLiveEvent(true, CHAT_EVENTS_CLIENT.statusUpdate, onStatus);
  useLiveEvent(true, CHAT_EVENTS_CLIENT.conversationCreated, onCreated);
  useLiveEvent(true, CHAT_EVENTS_CLIENT.conversationUpdated, onUpdated);

  // Each (re)connect: what was missed after the last message this page saw, merged and acknowledged. After a
  // reconnect the loaders run again too, for the marks that moved meanwhile.
  const everConnected = useRef(false);
  useEffect(() => {
    if (!connected) return;
    const reconnect = everConnected.current;
    everConnected.current = true;
    let stale = false;
    ask<{ ok: boolean; conversations?: ConversationSummary[]; missed?: Message[] }>("get_conversations", { after: maxSeen.current })
      .then((answer) => {
        if (stale || !answer.ok) return;
        const { openId, filtered, newest } = latest.current;
        const missed = answer.missed ?? [];
        seen(missed.map((m) => m.id));
        if (!filtered && answer.conversations) setList(answer.conversations.map((c) => (c.id === openId ? { ...c, unreadCount: 0 } : c)));
        if (newest) setThread((prev) => missed.filter((m) => m.conversationId === openId).reduce(withMessage, prev));
        acknowledge(missed);
        if (reconnect && latest.current.revalidator.state === "idle") latest.current.revalidator.revalidate();
      })
      .catch(() => {
        // The socket dropped again before answering: the next connect asks again.
      });
    return () => {
      stale = true;
    };
  }, [connected, acknowledge]);

  const tempId = useRef(0);
  const send = useCallback(
    async (body: string, retryOf?: string): Promise<SendResult> => {
      const { me, openId } = latest.current;
      const clientId = retryOf ?? newClientId();
      if (!openId) return { ok: false, message: NO_CONVERSATION, clientId };
      const bubble: ChatMessage = {
        id: --tempId.current,
        conversationId: openId,
        senderId: me,
        clientId,
        body,
        type: "text",
        status: "sent",
        offPlatform: false,
        at: new Date().toISOString(),
        attachments: [],
        pending: true,
      };
      // A retry whose first try is already shown (the reconnect brought it) keeps that message: no second bubble.
      setThread((prev) => (prev.some((m) => !m.pending && m.senderId === me && m.clientId === clientId) ? prev : withMessage(prev, bubble)));
      const drop = () => setThread((prev) => prev.filter((m) => m.id !== bubble.id));
      try {
        const answer = await ask<{ ok: boolean; message?: Message | string; issues?: Record<string, string[]> }>(CHAT_EVENTS_CLIENT.send, {
          conversationId: openId,
          body,
          clientId,
        });
        if (answer.ok && typeof answer.message === "object") {
          const stored = answer.message;
          seen([stored.id]);
          setThread((prev) => withMessage(prev, marked(stored)));
          return { ok: true };
        }
        drop();
        const words = typeof answer.message === "string" ? answer.message : Object.values(answer.issues ?? {}).flat()[0];
        return { ok: false, message: words ?? SEND_FAILED, clientId };
      } catch {
        drop();
        return { ok: false, message: "chat.send.dropped", clientId };
      }
    },
    [marked],
  );

  return { connected, conversations: list, thread, send };
}
