/**
 * The ingest side's group commit (app/analytics/ingest.server.ts createIngest): requests that reach the stream
 * in the same turn of the event loop, or while the previous entry is being written, share one stream entry
 * (ADRs 009 and 025), each answered only once that entry is in Redis, and all of them refused together when it
 * cannot be written. Against the real Redis, on a private prefix.
 */
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { MAX_EVENTS_PER_REQUEST } from "~/analytics/events";
import { ingestStreamKey, streamEntries } from "~/analytics/ingest-stream.server";
import { countersKey, createIngest, IngestUnavailableError, type Ingest } from "~/analytics/ingest.server";
import { getEnv } from "~/server/env.server";
import { createRedis } from "~/server/redis.server";
import { queuedEvent } from "../support/analytics-events";

const pageview = (page: string) => queuedEvent("pageview", { page, url: `http://localhost${page}` });

describe("group commit of tracking requests", () => {
  const prefix = `soko_t_${randomBytes(4).toString("hex")}`;
  let redis: Redis;
  let ingest: Ingest;
  beforeAll(async () => {
    redis = createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: null });
    ingest = createIngest({ redisUrl: getEnv().REDIS_URL, prefix });
    await vi.waitFor(() => ingest.limit("192.0.2.254"), { timeout: 5_000, interval: 20 }); // connected: its limiter reaches Redis
  });
  afterAll(async () => {
    await ingest?.close();
    await redis?.del(countersKey(prefix), ingestStreamKey(prefix));
    await redis?.quit();
  });

  /** The event ids of each entry in the stream. */
  const entries = async () => (await streamEntries(redis, prefix)).map((entry) => entry.events.map((e) => e.event_id));
  const empty = () => redis.del(ingestStreamKey(prefix));

  it("puts requests of the same moment into one entry, never more events than one request may carry, and answers each once it is in Redis", async () => {
    await empty();
    // 150 single-event requests at once, and one of 60 events.
    const singles = Array.from({ length: 150 }, (_, i) => [pageview(`/gig/${i}`)]);
    const big = Array.from({ length: 60 }, (_, i) => pageview(`/big/${i}`));
    await Promise.all([...singles, big].map((events) => ingest.enqueue(events)));

    const stored = await entries();
    const ids = stored.flat();
    expect(new Set(ids)).toEqual(new Set([...singles.flat(), ...big].map((e) => e.event_id)));
    expect(ids).toHaveLength(210);
    // 210 events in entries of at most 100, with the 60-event request kept whole in one of them.
    expect(stored.length).toBeGreaterThanOrEqual(3);
    expect(stored.length).toBeLessThan(10);
    for (const entry of stored) expect(entry.length).toBeLessThanOrEqual(MAX_EVENTS_PER_REQUEST);
    const bigIds = new Set(big.map((e) => e.event_id));
    expect(stored.filter((entry) => entry.some((id) => bigIds.has(id)))).toHaveLength(1);
    // The counters are written a moment later (every 250 ms), not with the entry.
    await expect.poll(async () => Number(await redis.hget(countersKey(prefix), "accepted"))).toBe(210);
  });

  it("while one entry is being written, the requests that arrive form the next one", async () => {
    await empty();
    // 20 requests, each in a turn of the event loop of its own: before, each turn wrote a job of its own. Redis
    // holds writes for 300 ms (CLIENT PAUSE … WRITE), so the first entry is still being written while the other
    // 19 arrive, however fast Redis would have answered: they must make one entry between them. (Without the
    // pause the count depended on how many turns a write took, and a busy machine made it 11 once.)
    await redis.call("CLIENT", "PAUSE", "300", "WRITE");
    const answered: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) {
      answered.push(ingest.enqueue([pageview(`/turn/${i}`)]));
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(answered);
    const stored = await entries();
    expect(stored.flat()).toHaveLength(20);
    expect(stored.length).toBeLessThanOrEqual(2);
  });

  it("writes the counts it holds before its connections close", async () => {
    const other = createIngest({ redisUrl: getEnv().REDIS_URL, prefix });
    await vi.waitFor(() => other.limit("192.0.2.254"), { timeout: 5_000, interval: 20 }); // connected: its limiter reaches Redis
    const before = Number((await redis.hget(countersKey(prefix), "dropped:bot")) ?? 0);
    other.count("dropped:bot", 3);
    await other.close();
    expect(Number(await redis.hget(countersKey(prefix), "dropped:bot"))).toBe(before + 3);
  });

  it("refuses every request of a group, and queues nothing, when Redis is not there", async () => {
    await empty();
    const down = createIngest({ redisUrl: "redis://127.0.0.1:1", prefix });
    try {
      const results = await Promise.allSettled([1, 2, 3].map((i) => down.enqueue([pageview(`/down/${i}`)])));
      for (const r of results) {
        expect(r.status).toBe("rejected");
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(IngestUnavailableError);
      }
      expect(await entries()).toEqual([]);
    } finally {
      await down.close();
    }
  });
});
