/**
 * The analytics worker's stream path (worker/ingest-consumer.server.ts, ADR 036) against the real Redis and ClickHouse:
 * entries as the web processes append them (appendEntry) → rows in a fresh ClickHouse database of this file,
 * and what the stream, its consumer group and the dead letters hold at each step. Each test has its own
 * queue prefix (so its own stream, group, dead letters and counters).
 */
import { randomBytes } from "node:crypto";
import type { ClickHouseClient } from "@clickhouse/client";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { clickHouseOptions, createClickHouse } from "~/analytics/clickhouse.server";
import { quoteList } from "~/analytics/clickhouse-sql.server";
import type { QueuedEvent } from "~/analytics/events";
import {
  appendEntry,
  deadLetterKey,
  deadLetters,
  INGEST_GROUP,
  ingestStreamKey,
  replayDeadLetters,
  streamDepth,
  streamEntries,
} from "~/analytics/ingest-stream.server";
import { getEnv, parseEnv } from "~/server/env.server";
import { createRedis } from "~/server/redis.server";
import { freePort } from "../../scripts/lib/servers";
import { startIngest, type Ingest, type IngestOptions } from "../../worker/ingest-consumer.server";
import { analyticsCountersKey } from "../../worker/ingest-counters.server";
import { queuedEvent as event, startIngestChild, storedCommon, storedCount as countStored, waitFor } from "../support/analytics-events";
import { createTestClickHouseDatabase } from "../support/databases";

const baseEnv = getEnv();
let database: string;
let clickhouse: ClickHouseClient;
let redis: Redis;
let cleanups: (() => Promise<unknown>)[] = [];
const prefixes: string[] = [];

beforeAll(async () => {
  database = await createTestClickHouseDatabase("soko_stream");
  clickhouse = createClickHouse(clickHouseOptions(baseEnv, database));
  redis = createRedis(baseEnv.REDIS_URL, { maxRetriesPerRequest: null });
});

afterEach(async () => {
  for (const cleanup of cleanups) await cleanup().catch(() => {});
  cleanups = [];
});

afterAll(async () => {
  // Whatever a test left under its prefix (stream, dead letters, counters, late days, minute hashes).
  for (const prefix of prefixes) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
  }
  await clickhouse.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await clickhouse.close();
  await redis.quit();
});

/** A stream of this test's own, and a way to start workers on it. */
function setup() {
  const prefix = `soko_ts_${randomBytes(4).toString("hex")}`;
  prefixes.push(prefix);
  const key = ingestStreamKey(prefix);
  const env = parseEnv({ ...process.env, QUEUE_PREFIX: prefix, CLICKHOUSE_DATABASE: database });
  cleanups.push(async () => {
    await redis.del(key, deadLetterKey(prefix), analyticsCountersKey(prefix));
  });
  const start = async (options: IngestOptions = {}): Promise<Ingest> => {
    const ingest = await startIngest(env, { redis, clickhouse, ...options });
    cleanups.unshift(() => ingest.close());
    return ingest;
  };
  const append = (events: QueuedEvent[]) => appendEntry(redis, prefix, events);
  const counters = async () => redis.hgetall(analyticsCountersKey(prefix));
  /** The group's pending entries: id, consumer, idle ms, deliveries. */
  const pending = async () =>
    ((await redis.xpending(key, INGEST_GROUP, "-", "+", 1000)) as [string, string, number, number][]).map(([id, consumer, idleMs, deliveries]) => ({
      id,
      consumer,
      idleMs,
      deliveries,
    }));
  /** How many entries the group holds for its consumers (XPENDING's summary). */
  const pendingCount = async () => Number(((await redis.xpending(key, INGEST_GROUP)) as [number])[0]);
  /** XINFO GROUPS for the ingest group (pending, lag, last-delivered-id…). */
  const group = async () => {
    const groups = (await redis.xinfo("GROUPS", key)) as unknown[][];
    return groups.map(fields).find((g) => g.name === INGEST_GROUP);
  };
  /** XINFO CONSUMERS of the ingest group. */
  const consumers = async () => ((await redis.xinfo("CONSUMERS", key, INGEST_GROUP)) as unknown[][]).map(fields);
  /** The dead letters, oldest first, with their events. */
  const dead = async () =>
    (await redis.xrange(deadLetterKey(prefix), "-", "+")).map(([id, f]) => ({ id, events: f[f.indexOf("events") + 1], reason: f[f.indexOf("reason") + 1] }));
  return { prefix, key, env, dead, start, append, counters, pending, pendingCount, group, consumers };
}

function fields(flat: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[String(flat[i])] = flat[i + 1];
  return out;
}

async function select<T>(query: string): Promise<T[]> {
  return (await clickhouse.query({ query, format: "JSONEachRow" })).json<T>();
}

const storedCount = (ids: string[]) => countStored(clickhouse, ids);

/** The ids of the Redis connections blocked in an XREADGROUP right now (any process's). */
async function blockedReads(): Promise<Set<string>> {
  const list = (await redis.client("LIST")) as string;
  const ids = new Set<string>();
  for (const line of list.split("\n")) {
    const info = Object.fromEntries(line.split(" ").map((kv) => kv.split("=", 2) as [string, string]));
    if (info.cmd === "xreadgroup" && info.flags?.includes("b") && info.id) ids.add(info.id);
  }
  return ids;
}

/** Starts a worker and waits for its first read to block in Redis; resolves with that connection's id. */
async function startBlocked(start: () => Promise<Ingest>): Promise<{ ingest: Ingest; readerId: string }> {
  const before = await blockedReads();
  const ingest = await start();
  let readerId: string | undefined;
  await waitFor(
    async () => {
      readerId = [...(await blockedReads())].find((id) => !before.has(id));
      return readerId !== undefined;
    },
    5000,
    "the worker's read to block",
  );
  return { ingest, readerId: readerId! };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ids = (events: QueuedEvent[]) => events.map((e) => e.event_id);

/** A ClickHouse client that nothing answers: every insert fails as if the server were down. */
async function downClickHouse() {
  const down = createClickHouse({ url: `http://127.0.0.1:${await freePort()}`, database });
  cleanups.push(() => down.close());
  return down;
}

describe("analytics worker: the stream", () => {
  it("writes appended entries to their tables with their values, and deletes them only once the rows can be read", async () => {
    const t = setup();
    const first = [event("pageview", { user_id: 0, platform: "web-nojs" }), event("action")];
    const second = [event("session"), event("conversion")];
    const all = [...first, ...second];
    // Around each INSERT, how many entries the stream holds and how many are pending: never fewer than two
    // until every table's rows are in.
    const seen: { xlen: number; pending: number }[] = [];
    const watching = createClickHouse(clickHouseOptions(baseEnv, database));
    cleanups.push(() => watching.close());
    const original = watching.insert.bind(watching);
    watching.insert = (async (params: Parameters<typeof original>[0]) => {
      seen.push({ xlen: await redis.xlen(t.key), pending: await t.pendingCount() });
      const result = await original(params);
      seen.push({ xlen: await redis.xlen(t.key), pending: await t.pendingCount() });
      return result;
    }) as typeof watching.insert;
    const ingest = await t.start({ clickhouse: watching, batchMs: 60_000 });

    const entryIds = [await t.append(first), await t.append(second)];
    await waitFor(() => ingest.stats.pendingEntries === 2, 5000, "both entries to be buffered");
    await sleep(300); // time for a write the 60 s batch must not make yet (a non-event: nothing to wait for)
    // Read (pending for the worker), not yet written, so still in the stream.
    expect((await t.pending()).map((p) => p.id)).toEqual(entryIds);
    expect(await redis.xlen(t.key)).toBe(2);
    expect(await storedCount(ids(all))).toBe(0);
    expect(await t.counters()).toEqual({});

    await ingest.flush();
    expect(await storedCount(ids(all))).toBe(4);
    expect(await redis.xlen(t.key)).toBe(0);
    expect(await t.pendingCount()).toBe(0);
    expect(await t.group()).toMatchObject({ pending: 0, "last-delivered-id": entryIds[1] });
    expect(await streamEntries(redis, t.prefix)).toEqual([]);
    // One batch, one INSERT per table (4), each begun and ended with both entries still held.
    expect(seen).toHaveLength(8);
    for (const s of seen) expect(s).toEqual({ xlen: 2, pending: 2 });
    expect(ingest.stats).toMatchObject({ streamEntries: 2, batches: 1, batchRows: [4], insertedRows: 4, deadLettered: 0, pendingEntries: 0 });
    expect(await t.counters()).toEqual({ inserted: "4" });

    const common = storedCommon;
    const read = (table: string) => select<Record<string, unknown>>(`SELECT * FROM ${table} FINAL WHERE toString(event_id) IN ${quoteList(ids(all))}`);
    expect(await read("pageviews")).toEqual([
      { ...common(first[0]!), page: "/gigs/12", title: "Logo design", url: "https://soko.test/gigs/12?ref=x", referrer: "https://google.com/" },
    ]);
    expect(await read("actions")).toEqual([
      {
        ...common(first[1]!),
        action_type: "click",
        page: "/gigs",
        element_id: "buy",
        element_class: "btn primary",
        element_tag: "button",
        element_text: "Continue (UGX 75,000)",
        x: 120,
        y: 640,
        value: 0,
      },
    ]);
    expect(await read("sessions")).toEqual([
      { ...common(second[0]!), user_agent: "Mozilla/5.0 (Linux; Android 14)", screen_resolution: "412x915", timezone: "Africa/Kampala" },
    ]);
    expect(await read("conversions")).toEqual([{ ...common(second[1]!), conversion_type: "order_placed", value: 80_000, metadata: '{"gig":12}' }]);
  });

  it("moves the entries ClickHouse refuses, or that are not events, to the dead letters with their reason, and inserts the rest of their batch", async () => {
    const t = setup();
    const good = Array.from({ length: 6 }, () => [event("pageview"), event("action")]);
    // Valid to TypeScript (strings), refused by ClickHouse: a UUID that is not one, a date that is not one.
    const badUuid = [event("pageview"), event("pageview", { event_id: "not-a-uuid" })];
    const badDate = [event("session", { event_time: "the day after tomorrow" })];
    const unknownKind = [event("pageview", { kind: "heartbeat" })];
    for (const events of good.slice(0, 3)) await t.append(events);
    await t.append(badUuid);
    await redis.xadd(t.key, "*", "events", "not json");
    for (const events of good.slice(3)) await t.append(events);
    await t.append(badDate);
    await t.append(unknownKind);
    // All ten entries are there before the worker starts: one read, one batch.
    const ingest = await t.start({ batchMs: 1500 });
    await waitFor(async () => (await t.dead()).length === 4, 15_000, "the 4 refused entries to be dead letters");
    await waitFor(async () => (await redis.xlen(t.key)) === 0, 5_000, "the stream to empty");

    expect(await t.pendingCount()).toBe(0);
    const dead = await t.dead();
    const deadOf = (data: unknown) => {
      const entry = dead.find((d) => d.events === (typeof data === "string" ? data : JSON.stringify(data)));
      if (!entry) throw new Error(`no dead letter for ${JSON.stringify(data)}`);
      return entry;
    };
    expect(deadOf(badUuid).reason).toMatch(/^ClickHouse refused the pageviews rows: Code: (27|376)\b/);
    expect(deadOf(badDate).reason).toMatch(/^ClickHouse refused the sessions rows: Code: 41\b.*DateTime/);
    expect(deadOf(unknownKind).reason).toBe('unknown event kind "heartbeat"');
    expect(deadOf("not json").reason).toBe("the entry has no events array");
    // As the pipeline screen lists them: newest first, with their events counted.
    const listed = await deadLetters(redis, t.prefix, { limit: 10 });
    expect(listed.map((d) => d.id)).toEqual(dead.map((d) => d.id).reverse());
    expect(listed.find((d) => d.reason.startsWith("ClickHouse refused the pageviews"))).toMatchObject({ events: 2 });

    expect(await storedCount(good.flat().map((e) => e.event_id))).toBe(12);
    // An entry is refused whole: the valid-looking pageview of the bad-UUID entry is not stored either.
    expect(await storedCount([badUuid[0]!.event_id, badDate[0]!.event_id, unknownKind[0]!.event_id])).toBe(0);
    expect(ingest.stats).toMatchObject({ streamEntries: 10, deadLettered: 4, insertedRows: 12, failedEvents: 4 });
    // The good entries' batch was one; the refused ones were found by splitting it.
    expect(ingest.stats.batchRows[0]).toBe(15);
    expect(await t.counters()).toEqual({ inserted: "12", failed: "4" });

    // Replayed: back in the stream, refused again, dead letters again (counted failed a second time).
    const moved = await replayDeadLetters(
      redis,
      t.prefix,
      dead.map((d) => d.id),
    );
    expect(moved).toEqual(dead.map((d) => d.id));
    // A second replay of the same ids moves nothing.
    expect(
      await replayDeadLetters(
        redis,
        t.prefix,
        dead.map((d) => d.id),
      ),
    ).toEqual([]);
    await waitFor(async () => ingest.stats.deadLettered === 8, 15_000, "the replayed entries to be refused again");
    expect((await t.dead()).map((d) => d.events).sort()).toEqual(dead.map((d) => d.events).sort());
    expect(await t.counters()).toEqual({ inserted: "12", failed: "8" });
  });

  it("while ClickHouse is down, holds the entries (renewed, never claimed by another worker), gives them back on close, and a new worker writes them", async () => {
    const t = setup();
    const down = await downClickHouse();
    const holder = await t.start({
      clickhouse: down,
      batchMs: 50,
      retryInitialMs: 50,
      retryMaxMs: 300,
      closeTimeoutMs: 1000,
      // Short: were the held entries not renewed, another worker would claim them within a second.
      lockDurationMs: 1000,
      stalledIntervalMs: 200,
    });
    const batches = Array.from({ length: 5 }, () => [event("pageview"), event("action")]);
    const entryIds: string[] = [];
    for (const events of batches) entryIds.push(await t.append(events));
    await waitFor(() => holder.stats.pendingEntries === 5, 5000, "the 5 entries to be held");
    // A second worker, on the real ClickHouse, that would write any entry it managed to claim.
    const other = await t.start({ batchMs: 50, lockDurationMs: 1000, stalledIntervalMs: 200 });
    await sleep(3000);

    expect(holder.stats.retries).toBeGreaterThanOrEqual(3);
    expect(other.stats).toMatchObject({ streamEntries: 0, claimedEntries: 0 });
    const held = await t.pending();
    expect(held.map((p) => p.id)).toEqual(entryIds);
    expect(new Set(held.map((p) => p.consumer)).size).toBe(1);
    for (const p of held) {
      expect(p.idleMs).toBeLessThan(1000);
      expect(p.deliveries).toBe(1);
    }
    expect(await redis.xlen(t.key)).toBe(5);
    expect(await storedCount(batches.flat().map((e) => e.event_id))).toBe(0);
    expect(await t.counters()).toEqual({});
    await other.close();

    const closing = Date.now();
    await holder.close();
    expect(Date.now() - closing).toBeLessThan(5000);
    expect(holder.stats.releasedEntries).toBe(5);
    // Given back as new entries with the same events, in the same order, read by no one.
    const given = await streamEntries(redis, t.prefix);
    expect(given.map((e) => e.events)).toEqual(batches);
    for (const e of given) expect(entryIds).not.toContain(e.id);
    expect(await t.group()).toMatchObject({ pending: 0, lag: 5 });
    expect(await t.pendingCount()).toBe(0);
    expect(await streamDepth(redis, t.prefix)).toMatchObject({ waiting: 5, active: 0 });
    expect(await t.dead()).toEqual([]);

    // ClickHouse is back (a worker on the real server): everything goes in, and the stream empties.
    const next = await t.start({ batchMs: 50 });
    await waitFor(async () => (await redis.xlen(t.key)) === 0, 10_000, "the stream to empty");
    expect(await storedCount(batches.flat().map((e) => e.event_id))).toBe(10);
    expect(next.stats).toMatchObject({ streamEntries: 5, insertedRows: 10 });
    expect(await t.pendingCount()).toBe(0);
    expect(await t.counters()).toEqual({ inserted: "10" });
  });

  it("claims the entries another consumer read and left idle for lockDurationMs, and writes them", async () => {
    const t = setup();
    const stranded = Array.from({ length: 3 }, () => [event("pageview"), event("user_action")]);
    await redis.xgroup("CREATE", t.key, INGEST_GROUP, "0", "MKSTREAM");
    const strandedIds: string[] = [];
    for (const events of stranded) strandedIds.push(await t.append(events));
    // A consumer that reads them and stops (never acknowledges, never renews).
    const readAt = Date.now();
    await redis.xreadgroup("GROUP", INGEST_GROUP, "stopped-worker", "COUNT", 10, "STREAMS", t.key, ">");
    expect((await t.pending()).map((p) => [p.id, p.consumer])).toEqual(strandedIds.map((id) => [id, "stopped-worker"]));
    const fresh = [event("conversion")];

    const ingest = await t.start({ batchMs: 50, lockDurationMs: 1000, stalledIntervalMs: 200 });
    await t.append(fresh);
    await waitFor(async () => (await storedCount(ids(fresh))) === 1, 5000, "the fresh entry");
    // The new entry goes in at once; the stranded ones wait for their lock to run out.
    if (Date.now() - readAt < 700) expect(await storedCount(stranded.flat().map((e) => e.event_id))).toBe(0);
    await waitFor(async () => (await storedCount(stranded.flat().map((e) => e.event_id))) === 6, 10_000, "the stranded entries");
    expect(Date.now() - readAt).toBeGreaterThanOrEqual(1000);
    await waitFor(async () => (await redis.xlen(t.key)) === 0, 5000, "the stream to empty");

    expect(await t.pendingCount()).toBe(0);
    expect(ingest.stats).toMatchObject({ claimedEntries: 3, streamEntries: 4, insertedRows: 7, deadLettered: 0 });
    const stopped = (await t.consumers()).find((c) => c.name === "stopped-worker");
    expect(stopped).toMatchObject({ pending: 0 });
    expect(await t.dead()).toEqual([]);
    expect(await t.counters()).toEqual({ inserted: "7" });
  });

  it("moves an entry read maxStalledCount times by workers that stopped to the dead letters; replayed, it is written", async () => {
    const t = setup();
    const events = [event("pageview"), event("error")];
    await redis.xgroup("CREATE", t.key, INGEST_GROUP, "0", "MKSTREAM");
    const id = await t.append(events);
    await redis.xreadgroup("GROUP", INGEST_GROUP, "stopped-worker", "COUNT", 10, "STREAMS", t.key, ">");
    // As if it had been read ten times, by workers that each died holding it, the last a while ago.
    await redis.call("XCLAIM", t.key, INGEST_GROUP, "stopped-worker", "0", id, "IDLE", "5000", "RETRYCOUNT", "10");
    expect(await t.pending()).toMatchObject([{ id, consumer: "stopped-worker", deliveries: 10 }]);

    const ingest = await t.start({ batchMs: 50, lockDurationMs: 1000, stalledIntervalMs: 200 });
    await waitFor(async () => (await t.dead()).length === 1, 10_000, "the entry to be a dead letter");
    expect(await redis.xlen(t.key)).toBe(0);
    expect(await t.pendingCount()).toBe(0);
    expect(ingest.stats).toMatchObject({ claimedEntries: 1, deadLettered: 1, insertedRows: 0 });
    const [dead] = await t.dead();
    expect(dead).toMatchObject({ events: JSON.stringify(events), reason: "read 10 times by workers that stopped before writing it" });
    expect(await storedCount(ids(events))).toBe(0);

    expect(await replayDeadLetters(redis, t.prefix, [dead!.id])).toEqual([dead!.id]);
    await waitFor(async () => (await storedCount(ids(events))) === 2, 10_000, "the entry's events");
    await waitFor(async () => (await redis.xlen(t.key)) === 0, 5_000, "the stream to empty");
    expect(await t.dead()).toEqual([]);
    expect(await t.counters()).toEqual({ inserted: "2", failed: "2" });
  });

  it("claims and writes the entries of a worker killed with SIGKILL before its batch was inserted", async () => {
    const t = setup();
    const dying = await startIngestChild({ QUEUE_PREFIX: t.prefix, CLICKHOUSE_DATABASE: database, INGEST_BATCH_MS: "60000" }, "streamEntries");
    cleanups.push(dying.cleanup);
    const { child, exited } = dying;

    await waitFor(
      () => dying.output().includes("streamEntries 0"),
      20_000,
      () => `the child to start:\n${dying.output()}`,
    );
    const batches = Array.from({ length: 4 }, () => [event("pageview"), event("session")]);
    const entryIds: string[] = [];
    for (const events of batches) entryIds.push(await t.append(events));
    await waitFor(
      () => dying.output().includes("streamEntries 4"),
      10_000,
      () => `the child to hold 4 entries:\n${dying.output()}`,
    );
    const held = await t.pending();
    expect(held.map((p) => p.id)).toEqual(entryIds);
    expect(held.every((p) => p.consumer.includes(`-${child.pid}-`))).toBe(true);
    expect(await storedCount(batches.flat().map((e) => e.event_id))).toBe(0);
    child.kill("SIGKILL");
    await exited;
    expect(await t.pendingCount()).toBe(4);

    const ingest = await t.start({ batchMs: 50, lockDurationMs: 1500, stalledIntervalMs: 500 });
    await waitFor(async () => (await storedCount(batches.flat().map((e) => e.event_id))) === 8, 15_000, "the 4 entries to be claimed");
    await waitFor(async () => (await redis.xlen(t.key)) === 0, 5000, "the stream to empty");
    expect(await t.pendingCount()).toBe(0);
    expect(ingest.stats).toMatchObject({ claimedEntries: 4, streamEntries: 4, insertedRows: 8, deadLettered: 0 });
    expect(await t.counters()).toEqual({ inserted: "8" });
  }, 60_000);

  it("close() still ends a blocked read at once after the reading connection has reconnected (a new client id)", async () => {
    const t = setup();
    const { ingest, readerId } = await startBlocked(() => t.start({ batchMs: 50 }));
    // Redis drops the reading connection (as a restart would); the worker reconnects and blocks again, as a new
    // client of the same name (other files' workers block reads of their own meanwhile: found by name).
    const clients = async () =>
      ((await redis.client("LIST")) as string).split("\n").map((line) => Object.fromEntries(line.split(" ").map((kv) => kv.split("=", 2) as [string, string])));
    const name = (await clients()).find((c) => c.id === readerId)?.name;
    expect(name).toMatch(/-reader$/);
    await redis.call("CLIENT", "KILL", "ID", readerId);
    let again: string | undefined;
    await waitFor(
      async () => {
        const blocked = await blockedReads();
        again = (await clients()).find((c) => c.name === name && c.id !== readerId && blocked.has(c.id!))?.id;
        return again !== undefined;
      },
      5000,
      "the read to block again",
    );

    const closing = Date.now();
    await ingest.close();
    // Not the 1 s close() allows UNBLOCK before it drops the connection, nor the read's 5 s.
    expect(Date.now() - closing).toBeLessThan(500);
    expect(await blockedReads()).not.toContain(again);
    await t.append([event("pageview")]);
    await sleep(300);
    expect(await t.pendingCount()).toBe(0);
  });

  it("close() during a blocked read returns at once and leaves nothing pending for the closed consumer", async () => {
    const t = setup();
    // Its first read blocks (for up to 5 s) in Redis.
    const { ingest, readerId } = await startBlocked(() => t.start({ batchMs: 50 }));
    await sleep(200);

    const closing = Date.now();
    await ingest.close();
    // Not the 5 s of the read, nor the 1 s close() gives UNBLOCK before it drops the connection.
    expect(Date.now() - closing).toBeLessThan(500);
    // The reading connection is closed, not left blocked.
    expect(await blockedReads()).not.toContain(readerId);
    expect(((await redis.client("LIST")) as string).split("\n").some((line) => line.startsWith(`id=${readerId} `))).toBe(false);

    const later = [event("pageview")];
    const id = await t.append(later);
    // A read left blocked in Redis would take this entry for the closed consumer.
    await sleep(500);
    expect(await t.pendingCount()).toBe(0);
    // Redis 7.0 makes a consumer on its first read that returned entries; this one never had any.
    expect((await t.consumers()).filter((c) => Number(c.pending) > 0)).toEqual([]);
    expect(await t.group()).toMatchObject({ pending: 0, lag: 1 });
    expect((await streamEntries(redis, t.prefix)).map((e) => e.id)).toEqual([id]);
    expect(ingest.stats.streamEntries).toBe(0);

    // It waits for the next worker, which writes it.
    const next = await t.start({ batchMs: 50 });
    await waitFor(async () => (await storedCount(ids(later))) === 1, 5000, "the entry");
    await waitFor(async () => (await redis.xlen(t.key)) === 0, 5000, "the stream to empty");
    expect(next.stats.streamEntries).toBe(1);
  });

  it("an entry appended just before close() is either written or still waiting, never left pending", async () => {
    const t = setup();
    const { ingest } = await startBlocked(() => t.start({ batchMs: 60_000 }));
    const events = [event("action"), event("user_action")];
    await t.append(events);
    await ingest.close();

    expect(await t.pendingCount()).toBe(0);
    const stored = await storedCount(ids(events));
    const waiting = (await streamEntries(redis, t.prefix)).map((e) => e.events);
    // Read before the close: in ClickHouse, gone from the stream. Not read: still there, whole.
    if (stored === 2) {
      expect(waiting).toEqual([]);
    } else {
      expect(stored).toBe(0);
      expect(waiting).toEqual([events]);
    }
  });
});
