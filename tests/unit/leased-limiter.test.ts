/**
 * The leased per-address limit's windows (app/server/rate-limit.server.ts leasedLimiter, ADR 021), read from
 * a clock the test holds, so crossing a window's end takes no waiting. Redis is an in-memory stand-in for the
 * one script the limiter runs (INCRBY, with the expiry set when the key is made); the limit against the real
 * Redis, across processes, is tests/integration/analytics-rate-limit.test.ts.
 */
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { leasedLimiter } from "~/server/rate-limit.server";

const MINUTE_MS = 60_000;
const message = "Too many tracking requests from your network. Please slow down.";

/** What the limiter asks of Redis, kept in memory: each key's count and the expiry it was given. */
function memoryRedis() {
  const counts = new Map<string, number>();
  const expiries = new Map<string, number>();
  const redis = {
    eval: async (_script: string, _keys: number, key: string, by: number, expiresMs: number) => {
      const n = (counts.get(key) ?? 0) + Number(by);
      counts.set(key, n);
      if (n === Number(by)) expiries.set(key, Number(expiresMs));
      return n;
    },
  } as unknown as Redis;
  return { redis, counts, expiries };
}

/** A clock that moves only when told. */
function clock(startMs: number) {
  let t = startMs;
  return { now: () => t, set: (ms: number) => void (t = ms) };
}

describe("the leased limit's windows, on an injected clock", () => {
  // A minute's start in 2026; the windows are the minutes since 1970.
  const minute = Math.floor(Date.UTC(2026, 11, 6, 10, 0) / MINUTE_MS);
  const at = (m: number, ms: number) => (minute + m) * MINUTE_MS + ms;

  it("refuses past the limit until the minute ends, with a Retry-After of what is left of it, and counts afresh in the next", async () => {
    const { redis, counts } = memoryRedis();
    const time = clock(at(0, 50_000));
    const limit = leasedLimiter({ redis, keyPrefix: "t:rl:analytics", points: 5, durationMs: MINUTE_MS, message, leaseSize: 5, now: time.now });
    for (let i = 0; i < 5; i++) expect(await limit("41.210.150.77")).toBeNull();
    expect(await limit("41.210.150.77")).toEqual({ status: 429, message, retryAfter: 10 });
    time.set(at(0, 59_100));
    expect(await limit("41.210.150.77")).toEqual({ status: 429, message, retryAfter: 1 });
    // Another address has its own count.
    expect(await limit("41.210.150.78")).toBeNull();

    time.set(at(1, 0));
    expect(await limit("41.210.150.77")).toBeNull();
    // Redis counted the first minute's five and the lease asked for after them (which found it spent)…
    expect(counts.get(`t:rl:analytics:${minute}:41.210.150.77`)).toBe(10);
    // …and the new minute under a key of its own.
    expect(counts.get(`t:rl:analytics:${minute + 1}:41.210.150.77`)).toBe(5);
  });

  it("keeps a window's key in Redis until a second after the window ends, counted from the clock", async () => {
    const { redis, expiries } = memoryRedis();
    const time = clock(at(0, 45_000));
    const limit = leasedLimiter({ redis, keyPrefix: "t:rl:catalog", points: 300, durationMs: MINUTE_MS, message, now: time.now });
    expect(await limit("192.0.2.50")).toBeNull();
    expect(expiries.get(`t:rl:catalog:${minute}:192.0.2.50`)).toBe(15_000 + 1_000);
    // A key made in a window's last moments is still kept at least a second.
    time.set(at(1, 59_999));
    expect(await limit("192.0.2.50")).toBeNull();
    expect(expiries.get(`t:rl:catalog:${minute + 1}:192.0.2.50`)).toBe(1_001);
  });

  it("holds the limit across processes sharing Redis, each refusing from memory once Redis says the window is spent", async () => {
    const { redis, counts } = memoryRedis();
    const time = clock(at(0, 1_000));
    const [a, b] = [0, 1].map(() => leasedLimiter({ redis, keyPrefix: "t:rl:analytics", points: 40, durationMs: MINUTE_MS, message, now: time.now }));
    const answers = [];
    for (let i = 0; i < 30; i++) answers.push(await a!("41.210.150.77"), await b!("41.210.150.77"));
    // Each process leases 40 / 20 = 2 uses at a time: the 40 of the minute go out, never more.
    expect(answers.filter((x) => x === null)).toHaveLength(40);
    expect(answers.slice(40).every((x) => x?.status === 429 && x.retryAfter === 59)).toBe(true);
    expect(counts.get(`t:rl:analytics:${minute}:41.210.150.77`)).toBeGreaterThanOrEqual(40);
    time.set(at(1, 0));
    expect(await a!("41.210.150.77")).toBeNull();
    expect(await b!("41.210.150.77")).toBeNull();
  });
});
