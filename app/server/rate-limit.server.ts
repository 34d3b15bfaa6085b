/**
 * Rate limits, counted in Redis so every web process shares them. Each limit is named for what it
 * protects; a request over the limit gets 429 with a message a person can act on, and a request that cannot
 * be counted (Redis unreachable) gets 503 with Retry-After rather than waiting. Addresses are counted by
 * addressKey (the /64 for IPv6). ADR 010 says why each limit is what it is.
 */
import type { Redis } from "ioredis";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { getEnv } from "~/server/env.server";
import { rateLimitKey } from "~/analytics/ip.server";
import { createRedis } from "~/server/redis.server";
import { LRUCache } from "lru-cache";
import { serverI18n } from "~/i18n/catalog.server";
import { DEFAULT_LOCALE } from "~/i18n/locales";
import { log } from "~/server/log.server";
import { rateLimitRefusals } from "~/server/metrics.server";

/** A limit: how many uses in how many seconds, and the key of its words in the `ops` catalogue. */
type LimitDefinition = { points: number; duration: number; key: string };
const MB = 1024 * 1024;

const LIMIT_DEFINITIONS = {
  /*
   * Sign-in attempts (ADR 030). Every attempt is counted before the password is checked (so a burst of
   * parallel guesses cannot all get through) and a right one is given back. A browser that signed in to the
   * account before (a valid device cookie) is counted only by `signInDevice`; any other attempt by
   * `signIn`, `signInAddress` and `signInEmail`, in that order, and a refused one is not counted further.
   * The messages end with when to try again (the operation adds it).
   */
  /** Wrong passwords for one email from one address: 10 a minute; the 11th is refused. */
  signIn: { points: 10, duration: 60, key: "ops.limit.signIn" },
  /** Wrong passwords for one email from one browser that signed in to it before: 10 a minute. */
  signInDevice: { points: 10, duration: 60, key: "ops.limit.signInDevice" },
  /** Wrong passwords from one address, any email: 30 a minute (a shared mobile-network address is many people). */
  signInAddress: { points: 30, duration: 60, key: "ops.limit.signInAddress" },
  /**
   * Wrong passwords for one email from browsers that never signed in to it, whatever their address: 50 an
   * hour. The ceiling on guessing from many addresses at once; it cannot lock out a browser that signed in before.
   */
  signInEmail: {
    points: 50,
    duration: 60 * 60,
    key: "ops.limit.signInEmail",
  },
  /** New accounts: 20 an hour per address (mobile networks put many people behind one address). */
  join: { points: 20, duration: 60 * 60, key: "ops.limit.join" },
  /**
   * Wrong current passwords of a signed-in member (the Billing and Security tabs), per member: 10 an hour.
   * Counted before the check and refunded when right, as sign-in's; a stolen session cannot guess the password.
   */
  currentPassword: { points: 10, duration: 60 * 60, key: "ops.limit.currentPassword" },
  /** Reset mails: 5 an hour per address and per email. */
  reset: { points: 5, duration: 60 * 60, key: "ops.limit.reset" },
  /**
   * Files stored per member, every kind together (gig images, profile pictures, message attachments, order
   * requirements and deliveries): a count of files and a count of bytes per minute, hour and day, all six
   * consumed at once by upload-quota.server.ts before a file is written. ADR 031 says why these numbers.
   */
  uploadFilesMinute: {
    points: 20,
    duration: 60,
    key: "ops.limit.uploadMinute",
  },
  uploadBytesMinute: {
    points: 25 * MB,
    duration: 60,
    key: "ops.limit.uploadMinute",
  },
  uploadFilesHour: {
    points: 100,
    duration: 60 * 60,
    key: "ops.limit.uploadHour",
  },
  uploadBytesHour: {
    points: 200 * MB,
    duration: 60 * 60,
    key: "ops.limit.uploadHour",
  },
  uploadFilesDay: {
    points: 300,
    duration: 24 * 60 * 60,
    key: "ops.limit.uploadDay",
  },
  uploadBytesDay: {
    points: 500 * MB,
    duration: 24 * 60 * 60,
    key: "ops.limit.uploadDay",
  },
  /**
   * Catalog pages (/search, /browse) per address: 300 a minute, five a second for a whole minute. A person
   * reading results never meets it, even many people behind one carrier address; a script that hammers the
   * costliest query we have (a misspelt search) does.
   */
  catalog: {
    get points() {
      return getEnv().CATALOG_RATE_LIMIT;
    },
    duration: 60,
    key: "ops.limit.catalog",
  },
  /** Checkouts per member: 30 an hour (each asks a phone to pay; a script must not flood payers with prompts). */
  checkout: { points: 30, duration: 60 * 60, key: "ops.limit.checkout" },
  /**
   * A payment asked for again ("Send the prompt again", "Use another number"), per order and member: 5 in 10
   * minutes. Each one makes a phone ring; a payer who missed a prompt asks once or twice (ADR 043).
   */
  payAgain: { points: 5, duration: 10 * 60, key: "ops.limit.payAgain" },
  /**
   * Provider callbacks per address: 120 a minute. Each one naming a pending payment makes us ask the provider
   * again, so a flood of forged callbacks must not become a flood of requests to MTN or Airtel; a provider
   * calls back once per transfer.
   */
  callback: { points: 120, duration: 60, key: "ops.limit.callback" },
  /**
   * Messages per member: 120 a minute, two a second for a whole minute. Nobody types that fast for that long;
   * a script sending spam or flooding a seller does. Counted by member (an account cannot be rotated cheaply: joining is limited).
   */
  message: { points: 120, duration: 60, key: "ops.limit.message" },
  /** Conversations started (or reopened) per member: 60 an hour (a buyer contacts a few sellers; a spammer contacts them all). */
  conversation: { points: 60, duration: 60 * 60, key: "ops.limit.conversation" },
  /**
   * Phone verification codes texted (ADR 050): 5 an hour per member and 5 an hour per number, both counted. Each
   * text costs money and wakes a phone; a member who mistyped asks two or three times, and nobody can make us
   * text one number (someone else's) more than that by rotating accounts.
   */
  phoneCode: { points: 5, duration: 60 * 60, key: "ops.limit.phoneCode" },
  phoneCodeNumber: { points: 5, duration: 60 * 60, key: "ops.limit.phoneCode" },
  /** New gigs per seller: 30 an hour. */
  gigCreate: { points: 30, duration: 60 * 60, key: "ops.limit.gigCreate" },
  /** Hearts put on or taken off per member: 300 an hour (a shopper saves dozens; a script toggling one does not stop). */
  saved: { points: 300, duration: 60 * 60, key: "ops.saved.limit" },
  /**
   * Tracking requests per address: 600 a minute (a tracker batches its events, but one mobile carrier's NAT
   * address is many visitors). See analyticsLimiter.
   */
  /** JSON API calls per token: 300 a minute (API_TOKEN_RATE_LIMIT; ADR 041). */
  apiToken: {
    get points() {
      return getEnv().API_TOKEN_RATE_LIMIT;
    },
    duration: 60,
    key: "ops.limit.apiToken",
  },
  /** JSON API calls per address: 1,200 a minute (API_ADDRESS_RATE_LIMIT): a carrier's address is many phones. */
  apiAddress: {
    get points() {
      return getEnv().API_ADDRESS_RATE_LIMIT;
    },
    duration: 60,
    key: "ops.limit.apiAddress",
  },
  /** Verification mails a member asks for again (ADR 051): 5 an hour per member, whatever their address. */
  verifyEmail: { points: 5, duration: 60 * 60, key: "ops.verify.resendLimit" },
  analytics: {
    get points() {
      return getEnv().ANALYTICS_RATE_LIMIT;
    },
    duration: 60,
    key: "ops.limit.analytics",
  },
} satisfies Record<string, LimitDefinition>;

/**
 * The limits, each with `message`: its words in English, read from the `ops` catalogue by its key (ADR 047). A
 * door that knows its reader's language says a refusal with `limitedMessage` (app/content/operation-messages.ts)
 * or, for an operation's failure, `messageOf`. A getter, so that `points` getters (read from the environment) stay
 * getters and the catalogue is read when a message is first wanted.
 */
export const LIMITS = LIMIT_DEFINITIONS as { [K in keyof typeof LIMIT_DEFINITIONS]: (typeof LIMIT_DEFINITIONS)[K] & { readonly message: string } };
for (const limit of Object.values(LIMIT_DEFINITIONS)) {
  Object.defineProperty(limit, "message", { get: () => englishWords()(limit.key), enumerable: true });
}

function englishWords() {
  const i18n = serverI18n(DEFAULT_LOCALE);
  return i18n._.bind(i18n);
}

/**
 * What to tell a visitor who is limited (429), or who cannot be counted because Redis is away (503). `limit`
 * names the limit (or "unavailable") for operations, whose failures carry it as a code, not the message.
 */
export type Limited = { status: 429 | 503; message: string; retryAfter: number; limit?: LimitName };
export type LimitName = keyof typeof LIMITS | "unavailable";

export const LIMITS_UNAVAILABLE: Limited = {
  status: 503,
  get message() {
    return englishWords()("ops.limit.unavailable");
  },
  retryAfter: 5,
  limit: "unavailable",
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
  catalogLimit = undefined;
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
  log.error(`[rate-limit] ${name}: Redis unavailable (${(error as Error).message}); answering 503`);
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
    rateLimitRefusals.inc({ limit: name });
    return { status: 429, message: LIMITS[name].message, retryAfter: Math.max(1, Math.ceil(error.msBeforeNext / 1000)), limit: name };
  }
}

/**
 * `consume` of several limits together, all or nothing: when any of them is over (or Redis cannot be
 * reached), every one of them is given back what this call counted, the refused ones included (Redis
 * counts a refused use too), so a refused request leaves every limit as it found it. The refusal is the
 * one that frees last (the largest Retry-After), so that trying again then is not refused by another.
 */
export async function consumeAll(uses: { name: keyof typeof LIMITS; key: string; points: number }[]): Promise<Limited | null> {
  const counted = await Promise.allSettled(uses.map(({ name, key, points }) => limiter(name).consume(key.toLowerCase(), points)));
  const refused = counted.flatMap((c, i) => (c.status === "rejected" ? [{ use: uses[i]!, reason: c.reason as unknown }] : []));
  if (!refused.length) return null;
  await Promise.all(
    counted.map((c, i) => {
      // A use Redis never counted (its error) has nothing to give back.
      if (c.status === "rejected" && !(c.reason instanceof RateLimiterRes)) return undefined;
      return refund(uses[i]!.name, uses[i]!.key, uses[i]!.points);
    }),
  );
  const unavailable = refused.find((r) => !(r.reason instanceof RateLimiterRes));
  if (unavailable) {
    logUnavailable(unavailable.use.name, unavailable.reason);
    return LIMITS_UNAVAILABLE;
  }
  const last = refused.reduce((a, b) => ((b.reason as RateLimiterRes).msBeforeNext > (a.reason as RateLimiterRes).msBeforeNext ? b : a));
  rateLimitRefusals.inc({ limit: last.use.name });
  return {
    status: 429,
    message: LIMITS[last.use.name].message,
    retryAfter: Math.max(1, Math.ceil((last.reason as RateLimiterRes).msBeforeNext / 1000)),
    limit: last.use.name,
  };
}

let catalogLimit: AddressLimiter | undefined;

/**
 * `consume` for the catalog's limit (LIMITS.catalog, per address), leased as the tracking endpoints' is
 * (leasedLimiter, ADR 021): a Redis round trip on every /browse and /search page cost the web process more
 * than a statement's worth of CPU, and now one page in 15 (a lease of 300 / 20 uses) asks Redis. The limit
 * holds whatever the number of processes; a process may refuse an address up to a lease early (ADR 010).
 */
export async function consumeCatalog(key: string): Promise<Limited | null> {
  const { points, duration, message } = LIMITS.catalog;
  catalogLimit ??= leasedLimiter({ redis: limitRedis(), keyPrefix: `${getEnv().QUEUE_PREFIX}:rl:catalog`, points, durationMs: duration * 1000, message });
  try {
    const limited = await catalogLimit(key.toLowerCase());
    if (limited) rateLimitRefusals.inc({ limit: "catalog" });
    // Named, so a door can say it in its reader's language (limitedMessage).
    return limited && { ...limited, limit: "catalog" };
  } catch (error) {
    logUnavailable("catalog", error);
    return LIMITS_UNAVAILABLE;
  }
}

/** Gives back uses counted by `consume` (a sign-in that turned out right). A failure to reach Redis is only logged. */
export async function refund(name: keyof typeof LIMITS, key: string, points = 1) {
  await limiter(name)
    .reward(key.toLowerCase(), points)
    .catch((error: unknown) => logUnavailable(name, error));
}

/** What a leased per-address limiter (tracking, the catalog) answers for one request: null when allowed. Rejects when Redis is away. */
export type AddressLimiter = (key: string) => Promise<Limited | null>;

/**
 * The tracking endpoints' per-address limit (ADR 021), on the Redis connection the caller gives (theirs fails
 * fast when Redis is down instead of queueing commands, so the caller can answer 503 at once: it rejects with
 * Redis's error then).
 *
 * A Redis round trip per request cost more than the rest of a tracking request, so each process takes
 * uses from Redis in leases and hands them out from memory: the first request of an address in a window
 * takes a lease of `points / 20` uses (or as many as are waiting, if more) with one INCRBY on the window's
 * key, `${QUEUE_PREFIX}:rl:analytics:<window>:<address key>`; the next requests spend it without asking
 * Redis. Windows are fixed (the minute since 1970, for the default 60 s), so every process counts the
 * same window without talking to the others. Redis's count is always at least what every process has let
 * through, so the limit is never exceeded, whatever the number of processes. The tolerance is the other
 * way: uses leased by one process and not spent are lost to the others, so an address whose requests are
 * spread over P processes may be refused up to (P − 1) × lease uses early (5% of the limit per extra
 * process). Once Redis says an address is out, this process refuses it from memory until the window ends.
 */
export function analyticsLimiter(
  storeClient: Redis,
  { points = LIMITS.analytics.points, durationS = LIMITS.analytics.duration, now }: { points?: number; durationS?: number; now?: () => number } = {},
): AddressLimiter {
  const { message } = LIMITS.analytics;
  return leasedLimiter({ redis: storeClient, keyPrefix: `${getEnv().QUEUE_PREFIX}:rl:analytics`, points, durationMs: durationS * 1000, message, now });
}

/** Keys a process remembers per window; past it the oldest are forgotten (which only ever refuses earlier). */
const LEASE_KEYS_MAX = 100_000;

/** INCRBY that sets the key's expiry when it creates it: one round trip, and no key is left without one. */
const LEASE_SCRIPT = `local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if n == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return n`;

type Lease = {
  /** Uses this process holds and has not handed out. */
  left: number;
  /** Redis said the window's uses are gone: refuse until the window ends. */
  out: boolean;
  /** Requests waiting for the lease being taken. */
  waiting: { resolve: (allowed: boolean) => void; reject: (error: unknown) => void }[];
  taking: boolean;
};

/**
 * The mechanism of analyticsLimiter, with its numbers given (tests use small ones). `now` is the clock its
 * windows are read from (Date.now; a test gives its own, to cross a window's end without waiting for it).
 */
export function leasedLimiter(opts: {
  redis: Redis;
  keyPrefix: string;
  points: number;
  durationMs: number;
  message: string;
  leaseSize?: number;
  now?: () => number;
}): AddressLimiter {
  const { redis, keyPrefix, points, durationMs, message, now = Date.now } = opts;
  const leaseSize = opts.leaseSize ?? Math.max(1, Math.ceil(points / 20));
  let window = -1;
  const leases = new LRUCache<string, Lease>({ max: LEASE_KEYS_MAX });

  const take = (redisKey: string, lease: Lease, windowAtStart: number) => {
    lease.taking = true;
    const want = Math.min(points, Math.max(leaseSize, lease.waiting.length));
    const expiresMs = (windowAtStart + 1) * durationMs - now() + 1_000;
    redis
      .eval(LEASE_SCRIPT, 1, redisKey, want, Math.max(1_000, expiresMs))
      .then((total) => {
        lease.taking = false;
        // What Redis counted beyond the limit is not ours: total − want was taken before us.
        const granted = Math.max(0, Math.min(want, points - (Number(total) - want)));
        lease.left += granted;
        if (granted < want) lease.out = true;
        const waiting = lease.waiting.splice(0);
        for (const w of waiting) {
          if (lease.left > 0) {
            lease.left -= 1;
            w.resolve(true);
          } else if (lease.out) w.resolve(false);
          else lease.waiting.push(w);
        }
        if (lease.waiting.length > 0) take(redisKey, lease, windowAtStart);
      })
      .catch((error: unknown) => {
        lease.taking = false;
        for (const w of lease.waiting.splice(0)) w.reject(error);
      });
  };

  const refused = (windowNow: number): Limited => ({
    status: 429,
    message,
    retryAfter: Math.max(1, Math.ceil(((windowNow + 1) * durationMs - now()) / 1000)),
  });

  return async (key: string) => {
    const current = Math.floor(now() / durationMs);
    if (current !== window) {
      // A new window: last window's leases are worth nothing (its Redis keys expire on their own).
      window = current;
      leases.clear();
    }
    let lease = leases.get(key);
    if (!lease) {
      lease = { left: 0, out: false, waiting: [], taking: false };
      leases.set(key, lease);
    }
    if (lease.left > 0) {
      lease.left -= 1;
      return null;
    }
    if (lease.out) return refused(current);
    const allowed = await new Promise<boolean>((resolve, reject) => {
      lease.waiting.push({ resolve, reject });
      if (!lease.taking) take(`${keyPrefix}:${current}:${key}`, lease, current);
    });
    return allowed ? null : refused(current);
  };
}

/** Clears a key, e.g. an email's failed sign-ins after a successful one. A failure to reach Redis is only logged. */
export async function resetLimit(name: keyof typeof LIMITS, key: string) {
  await limiter(name)
    .delete(key.toLowerCase())
    .catch((error: unknown) => logUnavailable(name, error));
}
