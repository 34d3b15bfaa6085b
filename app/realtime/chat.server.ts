/**
 * Live chat over socket.io (docs/architecture.md, "A message"; ADR 016). The handshake makes the socket's actor from its session
 * cookie, or an app's token (`auth: { token }`, ADR 041), with getSocketActor, and refuses visitors; a member's sockets share the member's room and their
 * session's room. Each client event is parsed with the same schema as the /messages form and answered by
 * the same operation, through its acknowledgement callback: `{ ok: true, ... }` or `{ ok: false, error,
 * message | issues }`. What the operations push after their commits reaches every web process's sockets
 * through one Redis channel (app/realtime/live.server.ts); the Redis adapter shares the rest of socket.io's
 * cross-process work.
 *
 * Client events: join, get_conversations, send_message, mark_read, mark_delivered, create_conversation.
 * Server events: new_message, message_status_update, conversation_created, conversation_updated, notification.
 */
import { createAdapter } from "@socket.io/redis-adapter";
import type { Redis } from "ioredis";
import type { Server, Socket } from "socket.io";
import type { ZodType } from "zod";
import { listConversations } from "~/models/conversation.server";
import { messagesSince } from "~/models/message.server";
import { issuesOf, type Actor, type Result } from "~/operations/core.server";
import { markConversationRead, markDelivered, sendMessage, startConversation } from "~/operations/messages.server";
import { deliverLive, hearLive, liveChannelKey, liveEventsChannel, sessionRoom } from "~/realtime/live.server";
import { getSocketActor, memberRoom } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { maskUrlCredentials } from "~/utils/mask-url";
import { ConversationListSchema, DeliveredSchema, MarkSchema, SendMessageSchema, StartConversationSchema } from "~/schemas/message";
import { createRedis } from "~/server/redis.server";
import { getEnv } from "~/server/env.server";
import { z } from "zod";
import { issueMessage, issueMessages, messageOf, sayIn } from "~/content/operation-messages";
import { DEFAULT_LOCALE, type Locale } from "~/i18n/locales";
import { sayMessage } from "~/i18n/message-key";
import type { Issues } from "~/operations/failure-codes";
import { log } from "~/server/log.server";
import { chatMessages, socketConnections } from "~/server/metrics.server";

type Member = Extract<Actor, { kind: "member" }>;
type Ack = (answer: unknown) => void;

/** A socket event's payload is small (a message is at most 5,000 characters): larger frames are refused by socket.io itself. */
export const MAX_SOCKET_PAYLOAD_BYTES = 64 * 1024;

/**
 * What a failed operation tells the page: the same words the form would show, and the code they are of (ADR 035),
 * in the member's language (ADR 047).
 */
function answer<T>(result: Result<T>, value: (v: T) => unknown, locale: Locale) {
  if (result.ok) return { ok: true, ...(value(result.value) as object) };
  if (result.error === "invalid") return { ok: false, error: "invalid", issues: issueMessages(result.issues, locale) };
  return { ok: false, error: result.error, code: result.code, message: messageOf(result, locale) };
}

/** A payload's issues as the socket answers them (each with its code), their words in the member's language. */
const saidIssues = (issues: Issues, locale: Locale) =>
  Object.fromEntries(Object.entries(issues).map(([field, list]) => [field, list.map((issue) => ({ ...issue, message: issueMessage(issue, locale) }))]));

/** The language of the socket's member (their saved one), English before the handshake set it. */
const localeOf = (socket: Socket): Locale => (socket.data.actor as Member | undefined)?.user.language ?? DEFAULT_LOCALE;

const GetConversationsSchema = ConversationListSchema.extend({ after: z.coerce.number().int().nonnegative().optional() });
const JoinSchema = z.object({ userId: z.coerce.number().int().positive().optional() }).default({});

/**
 * Events per member and web process: a burst of 60, then 20 a second. A page sends a few (a send, its marks,
 * a list after a reconnect); a script looping on `get_conversations` across many sockets of one session
 * costs queries, and meets this. Sends are limited in Redis too (LIMITS.message), across processes. Kept in
 * memory on purpose: it is checked on every event, and a member's sockets are few.
 */
export const SOCKET_EVENT_BURST = 60;
const SOCKET_EVENTS_PER_SECOND = 20;
const buckets = new Map<number, { tokens: number; at: number }>();
/** The key of what a member over the allowance is told (said in their language). */
export const SOCKET_LIMITED = "ops.socket.limited";

function takeToken(userId: number, now = Date.now()): boolean {
  const bucket = buckets.get(userId) ?? { tokens: SOCKET_EVENT_BURST, at: now };
  bucket.tokens = Math.min(SOCKET_EVENT_BURST, bucket.tokens + ((now - bucket.at) / 1000) * SOCKET_EVENTS_PER_SECOND);
  bucket.at = now;
  buckets.set(userId, bucket);
  if (bucket.tokens < 1) return false;
  bucket.tokens -= 1;
  return true;
}

// A full bucket is the same as none: forget members who have been quiet for a while.
setInterval(() => {
  const quiet = Date.now() - (SOCKET_EVENT_BURST / SOCKET_EVENTS_PER_SECOND) * 1000;
  for (const [userId, bucket] of buckets) if (bucket.at < quiet) buckets.delete(userId);
}, 60_000).unref();

/** The key of what a socket whose session ended is told. */
export const SOCKET_SIGNED_OUT = "ops.socket.signedOut";

/**
 * The socket's member as they are now. A socket outlives its handshake, and the push that ends a suspended or
 * banned member's sockets (or a signed-out session's) is best effort: so an event is answered only while the
 * session is still valid and the member still active. Null otherwise.
 *
 * The session's lookup is held by this process (heldSessionUser) for a minute at most and forgotten as soon as
 * Postgres announces a change to the member's sessions or account (a sign-out, a suspension, an edit by SQL), so
 * most events cost no query. The check waits one turn of the event loop first: an announcement that came in with
 * the event (a suspension committed just before it) is heard before the held lookup is trusted.
 */
async function currentMember(socket: Socket): Promise<Member | null> {
  await new Promise((resolve) => setImmediate(resolve));
  const actor = await getSocketActor({ headers: socket.handshake.headers, address: socket.handshake.address, auth: socket.handshake.auth });
  if (actor.kind !== "member") return null;
  socket.data.actor = actor;
  return actor;
}

/**
 * Registers one client event: within the member's event allowance, its payload parsed by `schema` (a bad
 * one is answered `invalid` and changes nothing), the member checked again (a session that ended or a member
 * no longer active is answered `unauthorized` and the socket closed), its handler run for the member, any
 * throw logged and answered `unavailable` (never left hanging), and an event without an acknowledgement
 * callback still handled.
 */
function on<S extends ZodType>(socket: Socket, event: string, schema: S, handle: (actor: Member, input: z.output<S>) => Promise<unknown>) {
  socket.on(event, (payload: unknown, maybeAck?: unknown) => {
    const ack: Ack = typeof maybeAck === "function" ? (maybeAck as Ack) : typeof payload === "function" ? (payload as Ack) : () => {};
    const _ = sayIn(localeOf(socket));
    if (!takeToken((socket.data.actor as Member).user.id)) return ack({ ok: false, error: "limited", message: _(SOCKET_LIMITED) });
    const parsed = schema.safeParse(typeof payload === "function" ? undefined : payload);
    if (!parsed.success) return ack({ ok: false, error: "invalid", issues: saidIssues(issuesOf(parsed.error), localeOf(socket)) });
    currentMember(socket)
      .then(async (actor) => {
        if (actor) return ack(await handle(actor, parsed.data));
        // Told why, then the socket ends as the lost push would have ended it (the page reconnects, and is refused).
        ack({ ok: false, error: "unauthorized", message: _(SOCKET_SIGNED_OUT) });
        socket.disconnect(true);
      })
      .catch((error: Error) => {
        log.error(maskUrlCredentials(`[chat] ${event}: ${error.message}`));
        ack({ ok: false, error: "unavailable", message: _("ops.socket.unavailable") });
      });
  });
}

/** The chat's handlers for one member's socket. */
function chatEvents(socket: Socket) {
  // The `join {userId}` event: a member's sockets are in their own room from the handshake; asking for
  // another member's room is refused and joins nothing.
  on(socket, "join", JoinSchema, async (actor, { userId }) =>
    userId === undefined || userId === actor.user.id
      ? { ok: true, userId: actor.user.id }
      : { ok: false, error: "forbidden", message: sayIn(actor.user.language)("ops.socket.ownConversationsOnly") },
  );

  // The conversation list (searched, paged) and, with `after` (the last message id the page saw), what it
  // missed while it was away.
  on(socket, "get_conversations", GetConversationsSchema, async (actor, input) => {
    const db = getDb();
    const list = await listConversations(db, actor.user.id, { q: input.q, before: input.before });
    const missed = input.after !== undefined ? await messagesSince(db, actor.user.id, input.after) : null;
    return { ok: true, ...list, missed: missed?.messages ?? [], moreMissed: missed?.more ?? false };
  });

  on(socket, "send_message", SendMessageSchema, async (actor, input) => {
    const sent = await sendMessage(actor, input);
    chatMessages.inc({ outcome: sent.ok ? "sent" : "refused" });
    return answer(
      sent,
      (v) => ({ message: v.message, duplicate: v.duplicate, warning: v.warning && sayMessage(sayIn(actor.user.language), v.warning) }),
      actor.user.language,
    );
  });
  on(socket, "mark_read", MarkSchema, async (actor, input) => answer(await markConversationRead(actor, input), (v) => v, actor.user.language));
  on(socket, "mark_delivered", DeliveredSchema, async (actor, input) => answer(await markDelivered(actor, input), (v) => v, actor.user.language));
  on(socket, "create_conversation", StartConversationSchema, async (actor, input) =>
    answer(await startConversation(actor, input), (v) => v, actor.user.language),
  );
}

/**
 * Chat on a socket.io server: the Redis adapter (rooms shared by every web process, on QUEUE_PREFIX's
 * channel), the member-only handshake, and the events. Returns what to close on shutdown.
 */
export function attachChat(io: Server, { redisUrl = getEnv().REDIS_URL }: { redisUrl?: string } = {}): { close: () => Promise<void> } {
  const pub: Redis = createRedis(redisUrl, { maxRetriesPerRequest: null });
  const sub: Redis = pub.duplicate();
  for (const client of [pub, sub]) client.on("error", (error: Error) => logRedis(error));
  io.adapter(createAdapter(pub, sub, { key: liveChannelKey() }));
  // The operations' live events, from every process (app/realtime/live.server.ts), on the adapter's subscriber.
  const channel = liveEventsChannel();
  void sub.subscribe(channel).catch((error: Error) => logRedis(error));
  sub.on("message", (from: string, message: string) => {
    if (from === channel) deliverLive(io, message);
  });
  const deaf = hearLive(io);

  io.use((socket, next) => {
    getSocketActor({ headers: socket.handshake.headers, address: socket.handshake.address, auth: socket.handshake.auth })
      .then((actor) => {
        socket.data.actor = actor;
        // Chat is for members: a visitor's socket (no cookie, an ended session) is refused here.
        if (actor.kind !== "member") return next(new Error("unauthorized"));
        void socket.join([memberRoom(actor.user.id), sessionRoom(actor.user.sessionId)]);
        next();
      })
      .catch((error: Error) => {
        log.error(maskUrlCredentials(`[socket.io] handshake: ${error.message}`));
        next(new Error("unavailable"));
      });
  });
  io.on("connection", (socket) => {
    socketConnections.inc();
    socket.once("disconnect", () => socketConnections.dec());
    chatEvents(socket);
  });

  return {
    close: async () => {
      deaf();
      await Promise.all([pub, sub].map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}

let lastRedisLog = 0;
function logRedis(error: Error) {
  if (Date.now() - lastRedisLog < 10_000) return;
  lastRedisLog = Date.now();
  log.error(maskUrlCredentials(`[chat] Redis: ${error.message}`));
}
