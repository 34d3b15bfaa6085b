/**
 * Live events for members' open pages (docs/architecture.md, ADR 016). Any process (a web process handling a form
 * post or a socket event, the worker) publishes them on one Redis channel; every web process hears it
 * (app/realtime/chat.server.ts) and hands each event to the sockets it holds in the member's room. Operations
 * queue pushes with `tx.live(...)`; they go out after the commit.
 *
 * Delivery is best effort on purpose: everything a push announces is already stored, and a page that missed
 * it (offline, reconnecting) asks for what it missed by the last message id it saw.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Server } from "socket.io";
import { memberRoom } from "~/server/auth.server";
import { getEnv } from "~/server/env.server";
import { maskUrlCredentials } from "~/utils/mask-url";
import { getRedis } from "~/server/redis.server";
import { log } from "~/server/log.server";

/**
 * An event for every open page of one member; the end of all their connections (suspended, banned, every
 * session ended), but those of the session `except`; or the end of one session's (signed out).
 */
export type LivePush = { to: number; event: string; data: unknown } | { disconnect: number; except?: string } | { disconnectSession: string };

/**
 * The socket.io room of one session's sockets, named by a hash of the session's id (itself the hash of the
 * token), so a room name seen in Redis leads nowhere.
 */
export const sessionRoom = (sessionId: string) => `session:${createHash("sha256").update(`room:${sessionId}`).digest("hex").slice(0, 32)}`;

/** The Redis channel prefix of the web processes' socket.io adapter; each QUEUE_PREFIX (a test) has its own. */
export const liveChannelKey = () => `${getEnv().QUEUE_PREFIX}:socket.io`;

/**
 * The Redis channel that carries live events to every web process (its own, beside the adapter's): each message
 * is a JSON list of pushes, every push of one turn of the publishing process's event loop.
 */
export const liveEventsChannel = () => `${getEnv().QUEUE_PREFIX}:live`;

let queued: LivePush[] = [];

/** This process's socket.io servers (a web process has one): its own pushes reach them without going through Redis. */
const localServers = new Set<Server>();
/** What starts this process's messages on the channel (followed by a space), so that it skips its own. */
const ORIGIN = randomBytes(8).toString("hex");

/** A web process's socket.io server gets the pushes published by any process (chat.server.ts). Returns how to stop. */
export function hearLive(io: Server): () => void {
  localServers.add(io);
  return () => void localServers.delete(io);
}

/**
 * Publishes pushes (called after a commit). Those queued in one turn of the event loop (an operation's two or
 * three, and those of other operations whose commits came back in the same turn) go in one Redis message, which
 * each other web process decodes once; this process's own sockets get them at once. A chat message's six pushes
 * were six publishes, each encoded by the socket.io emitter and decoded by every process's adapter, this one's
 * too (ADR 016). A failure is logged, never thrown at the operation.
 */
export function sendLive(pushes: LivePush[]) {
  if (!pushes.length) return;
  if (!queued.length) setImmediate(flushLive);
  queued.push(...pushes);
}

function flushLive() {
  const batch = queued;
  queued = [];
  if (!batch.length) return;
  for (const io of localServers) deliver(io, batch);
  try {
    getRedis()
      .publish(liveEventsChannel(), `${ORIGIN} ${JSON.stringify(batch)}`)
      .catch((error: Error) => logLost(error));
  } catch (error) {
    logLost(error as Error);
  }
}

const logLost = (error: Error) => log.error(maskUrlCredentials(`[live] could not publish: ${error.message}`));

/** A message heard on the live channel: another process's pushes, each to the sockets this process holds in its rooms. */
export function deliverLive(io: Server, message: string) {
  const space = message.indexOf(" ");
  // Ours were delivered here as they were published.
  if (message.slice(0, space) === ORIGIN) return;
  let pushes: LivePush[];
  try {
    pushes = JSON.parse(message.slice(space + 1)) as LivePush[];
  } catch {
    return log.error("[live] a message on the live channel is not JSON");
  }
  deliver(io, pushes);
}

function deliver(io: Server, pushes: LivePush[]) {
  // `local`: only this process's sockets; every other process hears the message and delivers to its own.
  for (const push of pushes) {
    if ("disconnectSession" in push) io.local.in(sessionRoom(push.disconnectSession)).disconnectSockets(true);
    else if ("disconnect" in push) {
      const room = io.local.in(memberRoom(push.disconnect));
      (push.except ? room.except(sessionRoom(push.except)) : room).disconnectSockets(true);
    } else io.local.to(memberRoom(push.to)).emit(push.event, push.data);
  }
}
