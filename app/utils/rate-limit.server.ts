/**
 * Rate limits, counted in Redis so every web process shares them. Each limit is named for what it
 * protects; a request over the limit gets 429 with a message a person can act on.
 */
import type { Redis } from "ioredis";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { getEnv } from "~/utils/env.server";
import { getRedis } from "~/utils/redis.server";

type Limit = { points: number; duration: number; message: string };


export const LIMITS = {
  /** Wrong passwords for one email: 10 a minute; the 11th is refused. */
  signIn: { points: 10, duration: 60, message: "Too many sign-in attempts. Please wait a minute and try again." },
  /** Wrong passwords from one address, any email: 30 a minute (a shared mobile-network address is many people). */
  signInAddress: { points: 30, duration: 60, message: "Too many sign-in attempts. Please wait a minute and try again." },
  /** New accounts: 20 an hour per address (mobile networks put many people behind one address). */
  join: { points: 20, duration: 60 * 60, message: "Too many accounts were created from your network. Please try again later." },
  /** Reset mails: 5 an hour per address and per email. */
  reset: { points: 5, duration: 60 * 60, message: "Too many reset requests. Please wait before asking again." },
  /** Images stored per member: 60 an hour (a gallery is at most 5; this stops filling the disk). */
  upload: { points: 60, duration: 60 * 60, message: "You have uploaded many images in a short time. Please try again later." },
  /** New gigs per seller: 30 an hour. */
  gigCreate: { points: 30, duration: 60 * 60, message: "You have created many gigs in a short time. Please try again later." },
  /**
   * Tracking requests per address: 600 a minute (a tracker batches its events, but one mobile carrier's NAT
   * address is many visitors). See analyticsLimiter.
   */
  analytics: { get points() { return getEnv().ANALYTICS_RATE_LIMIT; }, duration: 60, message: "Too many tracking requests from your network. Please slow down." },
} satisfies Record<string, Limit>;

const limiters = new Map<string, RateLimiterRedis>();
function limiter(name: keyof typeof LIMITS) {
  let l = limiters.get(name);
  if (!l) {
    const { points, duration } = LIMITS[name];
    l = new RateLimiterRedis({ storeClient: getRedis(), keyPrefix: `${getEnv().QUEUE_PREFIX}:rl:${name}`, points, duration });
    limiters.set(name, l);
  }
  return l;
}

export type Limited = { message: string; retryAfter: number };

/** Counts one use for each key; returns what to tell the user when any key is over the limit. */
export async function consume(name: keyof typeof LIMITS, keys: string[]): Promise<Limited | null> {
  try {
    await Promise.all(keys.map((key) => limiter(name).consume(key.toLowerCase())));
    return null;
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) throw error;
    return { message: LIMITS[name].message, retryAfter: Math.max(1, Math.ceil(error.msBeforeNext / 1000)) };
  }
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
      return { message, retryAfter: Math.max(1, Math.ceil(error.msBeforeNext / 1000)) };
    }
  };
}

/**
 * Looks at a key without counting a use (before expensive work such as hashing): what to tell the user,
 * with the seconds until the limit's window ends, when the key is already over the limit; null otherwise.
 */
export async function peekLimit(name: keyof typeof LIMITS, key: string): Promise<Limited | null> {
  const res = await limiter(name).get(key.toLowerCase());
  if (res === null || res.consumedPoints < LIMITS[name].points) return null;
  return { message: LIMITS[name].message, retryAfter: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
}

/** Clears a key, e.g. an email's failed sign-ins after a successful one. */
export async function resetLimit(name: keyof typeof LIMITS, key: string) {
  await limiter(name).delete(key.toLowerCase());
}
