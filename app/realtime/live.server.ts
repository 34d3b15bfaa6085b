/**
 * Live events for members' open pages (docs/architecture.md, ADR 016). Any process (a web process handling a form
 * post or a socket event, the worker) publishes through Redis with the socket.io emitter; every web process's
 * Redis adapter (server.ts, app/realtime/chat.server.ts) hands the event to the sockets in the member's room,
 * wherever they are connected. Operations queue pushes with `tx.live(...)`; they go out after the commit.
 *
 * Delivery is best effort on purpose: everything a push announces is already stored, and a page that missed
 * it (offline, reconnecting) asks for what it missed by the last message id it saw.
 */
import { createHash } from "node:crypto";
import { Emitter } from "@socket.io/redis-emitter";
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

/** The Redis channel prefix that the adapter and the emitter share; each QUEUE_PREFIX (a test) has its own. */
export const liveChannelKey = () => `${getEnv().QUEUE_PREFIX}:socket.io`;

let emitter: { key: string; emitter: Emitter } | undefined;

function getEmitter(): Emitter {
  const key = liveChannelKey();
  if (emitter?.key !== key) emitter = { key, emitter: new Emitter(getRedis(), { key }) };
  return emitter.emitter;
}

/** Publishes pushes now (called after a commit); a failure is logged, never thrown at the committed operation. */
export function sendLive(pushes: LivePush[]) {
  try {
    const io = getEmitter();
    for (const push of pushes) {
      if ("disconnectSession" in push) io.in(sessionRoom(push.disconnectSession)).disconnectSockets(true);
      else if ("disconnect" in push) {
        const room = io.in(memberRoom(push.disconnect));
        (push.except ? room.except(sessionRoom(push.except)) : room).disconnectSockets(true);
      } else io.to(memberRoom(push.to)).emit(push.event, push.data);
    }
  } catch (error) {
    log.error(maskUrlCredentials(`[live] could not publish: ${(error as Error).message}`));
  }
}
