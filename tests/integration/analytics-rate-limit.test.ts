/**
 * The tracking endpoints' per-address limit (app/server/rate-limit.server.ts leasedLimiter, ADR 021): uses
 * taken from Redis in leases and handed out from memory, so most requests cost no round trip, while Redis's
 * count keeps the limit across processes. Against the real Redis, each test on a private key prefix; two
 * limiters on one prefix stand for two web processes.
 */
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { leasedLimiter, type AddressLimiter } from "~/server/rate-limit.server";
import { getEnv } from "~/server/env.server";
import { createRedis } from "~/server/redis.server";

const connections: Redis[] = [];
const prefixes: string[] = [];
/** An hour's window, so a test never straddles two of them. */
const HOUR_MS = 3_600_000;
const message = "Too many tracking requests from your network. Please slow down.";

function connect() {
  const redis = createRedis(getEnv().REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
  connections.push(redis);
  return redis;
}

async function processes(n: number, points: number) {
  const keyPrefix = `soko_t_rl_${randomBytes(4).toString("hex")}`;
  prefixes.push(keyPrefix);
  const list: { limit: AddressLimiter; redis: Redis }[] = [];
  for (let i = 0; i < n; i++) {
    const redis = connect();
    await redis.connect();
    list.push({ redis, limit: leasedLimiter({ redis, keyPrefix, points, durationMs: HOUR_MS, message }) });
  }
  return { keyPrefix, list };
}

/** What Redis counted for `key` in the current window. */
async function counted(keyPrefix: string, key: string) {
  const reader = connections.find((c) => c.status === "ready")!;
  return Number(await reader.get(`${keyPrefix}:${Math.floor(Date.now() / HOUR_MS)}:${key}`));
}

afterEach(async () => {
  const reader = createRedis(getEnv().REDIS_URL);
  for (const prefix of prefixes.splice(0)) {
    const keys = await reader.keys(`${prefix}:*`);
    if (keys.length) await reader.del(...keys);
  }
  await reader.quit();
});
afterAll(async () => {
  await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())));
});

describe("the tracking limit, leased from Redis", () => {
  it("lets exactly the limit through a burst in one process and refuses the rest with a Retry-After inside the window", async () => {
    const { list } = await processes(1, 40);
    const answers = await Promise.all(Array.from({ length: 50 }, () => list[0]!.limit("41.210.150.77")));
    expect(answers.filter((a) => a === null)).toHaveLength(40);
    const refused = answers.filter((a) => a !== null);
    expect(refused).toHaveLength(10);
    for (const r of refused) {
      expect(r).toMatchObject({ status: 429, message });
      expect(r!.retryAfter).toBeGreaterThanOrEqual(1);
      expect(r!.retryAfter).toBeLessThanOrEqual(HOUR_MS / 1000);
    }
    // Another address has its own count.
    expect(await list[0]!.limit("41.210.150.78")).toBeNull();
  });

  it("never lets more than the limit through across processes, and refuses at most a lease per extra process early", async () => {
    const points = 200;
    const lease = points / 20;
    const { keyPrefix, list } = await processes(3, points);
    const key = "2c0f:f5c0:1:2::/64";
    // 400 requests from one address, spread over three processes, in waves as a flood would come.
    let accepted = 0;
    for (let wave = 0; wave < 20; wave++) {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => list[i % 3]!.limit(key)));
      accepted += answers.filter((a) => a === null).length;
    }
    expect(accepted).toBeLessThanOrEqual(points);
    expect(accepted).toBeGreaterThanOrEqual(points - (list.length - 1) * lease);
    // Redis counted at least everything that was let through.
    expect(await counted(keyPrefix, key)).toBeGreaterThanOrEqual(accepted);
  });

  it("asks Redis once per lease: after the first request the rest of the lease is answered from memory", async () => {
    const { list } = await processes(1, 600);
    const { limit, redis } = list[0]!;
    expect(await limit("41.210.150.90")).toBeNull(); // takes a lease of 30
    redis.disconnect(); // from here every command to Redis fails at once
    const answers = await Promise.allSettled(Array.from({ length: 30 }, () => limit("41.210.150.90")));
    // 29 more from the lease; the 30th needs Redis, which is away: the caller answers 503.
    expect(answers.filter((a) => a.status === "fulfilled" && a.value === null)).toHaveLength(29);
    expect(answers.filter((a) => a.status === "rejected")).toHaveLength(1);
  });

  it("refuses an address that is out from memory until the window ends, Redis or not", async () => {
    const { list } = await processes(1, 20);
    const { limit, redis } = list[0]!;
    for (let i = 0; i < 20; i++) expect(await limit("41.210.150.91")).toBeNull();
    expect(await limit("41.210.150.91")).toMatchObject({ status: 429 });
    redis.disconnect();
    expect(await limit("41.210.150.91")).toMatchObject({ status: 429, message });
  });
});
