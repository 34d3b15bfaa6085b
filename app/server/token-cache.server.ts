/**
 * Session lookups, held by each web process for up to a minute (ADR 042): app tokens' (every API call names its
 * member by a Bearer token, and looking it up in Postgres was most of a cached catalog answer's cost) and live
 * sockets' (every chat event checks its session again, ADR 016; a page request reads its session with the header's
 * counts, so pages do not use this). A member's held
 * lookups are forgotten as soon as Postgres announces a change to their sessions or to what a request knows of
 * them (the `soko_session_drop` triggers: a session ended, rotated or shortened; status, role, name, email,
 * currency or time zone changed), however the change was made. While this process cannot hear that channel it
 * holds nothing, and it starts empty each time it hears again.
 *
 * A lookup that was under way when a drop arrived is not held: it may have read the row before the change.
 * A held lookup also ends at its session's own end. The note of a token's last use (keepSessionAlive) is
 * taken on the lookups that reach Postgres, at least once a minute while the token is in use.
 */
import { LRUCache } from "lru-cache";
import pg from "pg";
import { getSessionWithEnd, hashToken, type SessionKind, type SessionUser } from "~/models/session.server";
import type { Db } from "~/server/db.server";
import { getEnv } from "~/server/env.server";
import { backoffDelay } from "~/utils/backoff";
import { maskUrlCredentials } from "~/utils/mask-url";
import { log } from "~/server/log.server";

/** How long a lookup is held at most. */
export const HOLD_MS = 60_000;
const MAX_ENTRIES = 50_000;
export const DROP_CHANNEL = "soko_session_drop";

type Held = { user: SessionUser; expiresAt: number };

class TokenCache {
  private entries = new LRUCache<string, Held>({ max: MAX_ENTRIES, ttl: HOLD_MS });
  /** Bumped by every drop: a lookup stores its answer only if none came while it ran. */
  private generation = 0;
  listening = false;

  get(id: string): SessionUser | null {
    if (!this.listening) return null;
    const held = this.entries.get(id);
    if (!held) return null;
    if (held.expiresAt <= Date.now()) {
      this.entries.delete(id);
      return null;
    }
    return held.user;
  }

  /** The generation to hand back to `set`, taken before the lookup starts. */
  get now() {
    return this.generation;
  }

  set(id: string, user: SessionUser, expiresAt: number, generation: number) {
    if (this.listening && generation === this.generation) this.entries.set(id, { user, expiresAt });
  }

  /** A member's held lookups go (or everyone's, for null), and lookups under way will not be held. */
  drop(userId: number | null) {
    this.generation++;
    if (userId === null) return this.entries.clear();
    for (const [id, held] of this.entries.entries()) if (held.user.id === userId) this.entries.delete(id);
  }

  /** One session's held lookups go (it was ended here: a sign-out, a token's logout), and lookups under way will not be held. */
  dropSession(sessionId: string) {
    this.generation++;
    for (const [id, held] of this.entries.entries()) if (held.user.sessionId === sessionId) this.entries.delete(id);
  }

  get size() {
    return this.entries.size;
  }
}

declare global {
  // eslint-disable-next-line no-var
  var __sokoTokenCache: TokenCache | undefined;
}

/** This process's cache (one, although server.ts and the Remix build each bundle this module). */
export function getTokenCache(): TokenCache {
  globalThis.__sokoTokenCache ??= new TokenCache();
  return globalThis.__sokoTokenCache;
}

/** Tokens' keys in the cache (their hashes), remembered: a socket asks with the same token on every event. */
const keys = new LRUCache<string, string>({ max: MAX_ENTRIES });
function heldKey(kind: SessionKind, token: string): string {
  let key = keys.get(token);
  if (key === undefined || !key.startsWith(`${kind}:`)) keys.set(token, (key = `${kind}:${hashToken(token)}`));
  return key;
}

/**
 * The member of a session token (an app's, or a browser's for a socket), held or looked up in Postgres. A held
 * one never says `renewalDue`: the session's renewal, or an app token's last use, is noted by the lookups that
 * reach Postgres.
 */
export async function heldSessionUser(db: Db, token: string, kind: SessionKind): Promise<SessionUser | null> {
  const cache = getTokenCache();
  const id = heldKey(kind, token);
  const held = cache.get(id);
  if (held) return held;
  const generation = cache.now;
  const session = await getSessionWithEnd(db, token, kind);
  if (!session) return null;
  const { renewalDue: _renewal, ...kept } = session.user;
  cache.set(id, kept, session.expiresAt.getTime(), generation);
  return session.user;
}

let listener: { client: pg.Client; stopped: boolean } | undefined;
let attempts = 0;

/**
 * Listens on its own Postgres connection for drops (server.ts calls this once unless TOKEN_CACHE=off); the
 * cache holds lookups only while it is connected, and reconnects with backoff when the connection goes.
 */
export async function listenForTokenDrops(): Promise<void> {
  const cache = getTokenCache();
  const client = new pg.Client({ connectionString: getEnv().DATABASE_URL });
  const state = { client, stopped: false };
  listener = state;
  const deaf = () => {
    cache.listening = false;
    cache.drop(null);
  };
  client.on("notification", (message) => {
    if (message.channel !== DROP_CHANNEL) return;
    const userId = Number(message.payload);
    cache.drop(Number.isSafeInteger(userId) ? userId : null);
  });
  // Once per connection: an error is followed by "end", and each would otherwise start a listener of its own.
  let gone = false;
  const lost = (error?: Error) => {
    if (gone) return;
    gone = true;
    deaf();
    if (error) log.error(maskUrlCredentials(`[token-cache] listener: ${error.message}`));
    if (state.stopped || listener !== state) return;
    const wait = backoffDelay(attempts++, { initialMs: 500, maxMs: 30_000, jitter: 0.2 });
    setTimeout(() => void listenForTokenDrops().catch(() => {}), wait).unref();
  };
  client.on("error", (error) => {
    client.end().catch(() => {});
    lost(error);
  });
  client.on("end", () => lost());
  try {
    await client.connect();
    await client.query(`LISTEN ${DROP_CHANNEL}`);
  } catch (error) {
    client.removeAllListeners("end");
    client.end().catch(() => {});
    lost(error as Error);
    return;
  }
  attempts = 0;
  cache.drop(null);
  cache.listening = true;
}

export async function closeTokenDrops() {
  const state = listener;
  listener = undefined;
  getTokenCache().listening = false;
  if (!state) return;
  state.stopped = true;
  await state.client.end().catch(() => {});
}
