/**
 * Rate limits, counted in Redis so every web process shares them. Each limit is named for what it
 * protects; a request over the limit gets 429 with a message a person can act on, and a request that cannot
 * be counted (Redis unreachable) gets 503 with Retry-After rather than waiting. Addresses are counted by
 * addressKey (the /64 for IPv6). ADR 010 says why each limit is what it is.
 */
import type { Redis } from "ioredis";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { getEnv } from "~/utils/env.server";
import { rateLimitKey } from "~/analytics/geo.server";
import { createRedis } from "~/utils/redis.server";

type Limit = { points: number; duration: number; message: string };


export const LIMITS = {
  /**
   * Wrong passwords for one email: 10 a minute; the 11th is refused. Every attempt is counted before the
   * password is checked (so a burst of parallel guesses cannot all get through) and a right one is refunded.
   */
  signIn: { points: 10, duration: 60, message: "Too many sign-in attempts. Please wait a minute and try again." },
  /** Wrong passwords from one address, any email: 30 a minute (a shared mobile-network address is many people). */
  signInAddress: { points: 30, duration: 60, message: "Too many sign-in attempts. Please wait a minute and try again." },
  /** New accounts: 20 an hour per address (mobile networks put many people behind one address). */
  join: { points: 20, duration: 60 * 60, message: "Too many accounts were created from your network. Please try again later." },
  /** Reset mails: 5 an hour per address and per email. */
  reset: { points: 5, duration: 60 * 60, message: "Too many reset requests. Please wait before asking again." },
  /** Images stored per member, each file counted (gig images and profile pictures): 60 an hour (a gallery is at most 5; this stops filling the disk). */
  upload: { points: 60, duration: 60 * 60, message: "You have uploaded many images in a short time. Please try again later." },
  /**
   * Catalog pages (/search, /browse) per address: 300 a minute, five a second for a whole minute. A person
   * reading results never meets it, even many people behind one carrier address; a script that hammers the
   * costliest query we have (a misspelt search) does.
   */
  catalog: { get points() { return getEnv().CATALOG_RATE_LIMIT; }, duration: 60, message: "Too many searches from your network in a short time. Please wait a moment and try again." },
  /** Checkouts per member: 30 an hour (each asks a phone to pay; a script must not flood payers with prompts). */
  checkout: { points: 30, duration: 60 * 60, message: "You have started many orders in a short time. Please try again later." },
  /**
   * Provider callbacks per address: 120 a minute. Each one naming a pending payment makes us ask the provider
   * again, so a flood of forged callbacks must not become a flood of requests to MTN or Airtel; a provider
   * calls back once per transfer.
   */
  callback: { points: 120, duration: 60, message: "Too many callbacks from this address." },
  /**
   * Messages per member: 120 a minute, two a second for a whole minute. Nobody types that fast for that long;
   * a script sending spam or flooding a seller does. Counted by member (an account cannot be rotated cheaply: joining is limited).
   */
  message: { points: 120, duration: 60, message: "You are sending messages very fast. Please wait a moment and try again." },
  /** Conversations started (or reopened) per member: 60 an hour (a buyer contacts a few sellers; a spammer contacts them all). */
  conversation: { points: 60, duration: 60 * 60, message: "You have contacted many members in a short time. Please try again later." },
  /** New gigs per seller: 30 an hour. */
  gigCreate: { points: 30, duration: 60 * 60, message: "You have created many gigs in a short time. Please try again later." },
  /**
   * Tracking requests per address: 600 a minute (a tracker batches its events, but one mobile carrier's NAT
   * address is many visitors). See analyticsLimiter.
   */
  analytics: { get points() { return getEnv().ANALYTICS_RATE_LIMIT; }, duration: 60, message: "Too many tracking requests from your network. Please slow down." },
} satisfies Record<string, Limit>;

/** What to tell a visitor who is limited (429), or who cannot be counted because Redis is away (503). */
export type Limited = { status: 429 | 503; message: string; retryAfter: number };

export const LIMITS_UNAVAILABLE: Limited = {
  status: 503,
  message: "This is unavailable for a moment. Please try again in a few seconds.",
  retryAfter: 5,
};

/** How long a limit waits for Redis before the request is answered 503 instead of hanging. */
const REDIS_TIMEOUT_MS = 2_000;

declare global {
  // eslint-disable-next-line no-var
  var __sokoLimitRedis: Redis | undefined;
}

/**
 * The limits' own Redis connection. The shared one (getRedis) waits for Redis for as long as it takes, as
 * BullMQ needs; a limit must not: every command here gives up after REDIS_TIMEOUT_MS (waiting in the offline
 * queue included) and is retried at most once, so a sign-in or join answers 503 while Redis is away.
 */
function limitRedis(): Redis {
  globalThis.__sokoLimitRedis ??= createRedis(getEnv().REDIS_URL, { commandTimeout: REDIS_TIMEOUT_MS, maxRetriesPerRequest: 1 });
  return globalThis.__sokoLimitRedis;
}

export async function closeLimitRedis() {
  const redis = globalThis.__sokoLimitRedis;
  globalThis.__sokoLimitRedis = undefined;
  if (redis) await redis.quit().catch(() => redis.disconnect());
}

const limiters = new Map<string, RateLimiterRedis>();
function limiter(name: keyof typeof LIMITS) {
  let l = limiters.get(name);
  if (!l) {
    const { points, duration } = LIMITS[name];
    l = new RateLimiterRedis({ storeClient: limitRedis(), keyPrefix: `${getEnv().QUEUE_PREFIX}:rl:${name}`, points, duration });
    limiters.set(name, l);
  }
  return l;
}

/**
 * The key an address is counted under: an IPv4 address itself, the /64 of an IPv6 address (one subscriber
 * holds a whole /64 and can rotate through it), an IPv4-mapped IPv6 address as its IPv4 address.
 */
export function addressKey(clientIp: string): string {
  return rateLimitKey(clientIp);
}

function logUnavailable(name: string, error: unknown) {
  const now = Date.now();
  if (now - lastUnavailableLog < 10_000) return;
  lastUnavailableLog = now;
  console.error(`[rate-limit] ${name}: Redis unavailable (${(error as Error).message}); answering 503`);
}
let lastUnavailableLog = 0;

/**
 * Counts `points` uses (1 unless given) for each key, before the work it protects. Returns what to tell the
 * visitor when any key is over its limit (429), or when Redis cannot be reached in time (503); null to go on.
 */
export async function consume(name: keyof typeof LIMITS, keys: string[], points = 1): Promise<Limited | null> {
  try {
    await Promise.all(keys.map((key) => limiter(name).consume(key.toLowerCase(), points)));
    return null;
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) {
      logUnavailable(name, error);
      return LIMITS_UNAVAILABLE;
    }
    return { status: 429, message: LIMITS[name].message, retryAfter: Math.max(1, Math.ceil(error.msBeforeNext / 1000)) };
  }
}

/** Gives back uses counted by `consume` (a sign-in that turned out right). A failure to reach Redis is only logged. */
export async function refund(name: keyof typeof LIMITS, key: string, points = 1) {
  await limiter(name)
    .reward(key.toLowerCase(), points)
    .catch((error: unknown) => logUnavailable(name, error));
}

/**
 * The tracking endpoints' per-address limit, on the Redis connection the caller gives (theirs fails fast
 * when Redis is down instead of queueing commands, so the caller can answer 503 at once: it rejects with
 * Redis's error then). Once an address is over the limit it is refused from memory until the minute ends,
 * so a flood costs no Redis round trips.
 */
export function analyticsLimiter(storeClient: Redis) {
  const { points, duration, message } = LIMITS.analytics;
  const l = new RateLimiterRedis({
    storeClient,
    keyPrefix: `${getEnv().QUEUE_PREFIX}:rl:analytics`,
    points,
    duration,
    inMemoryBlockOnConsumed: points + 1,
    rejectIfRedisNotReady: true,
  });
  return async (key: string): Promise<Limited | null> => {
    try {
      await l.consume(key);
      return null;
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      return { status: 429, message, retryAfter: Math.max(1, Math.ceil(error.msBeforeNext / 1000)) };
    }
  };
}

/** Clears a key, e.g. an email's failed sign-ins after a successful one. A failure to reach Redis is only logged. */
export async function resetLimit(name: keyof typeof LIMITS, key: string) {
  await limiter(name)
    .delete(key.toLowerCase())
    .catch((error: unknown) => logUnavailable(name, error));
}
