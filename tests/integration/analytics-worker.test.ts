/**
 * The analytics worker (worker/ingest-consumer.server.ts) against the real Redis and ClickHouse: stream entries
 * as the endpoints append them → rows in a fresh ClickHouse database of this file. Each test has its own
 * queue prefix (so its own stream and counters). The stream protocol itself (claims, dead letters, ClickHouse
 * down, a worker killed) is analytics-stream.test.ts's.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { ClickHouseClient } from "@clickhouse/client";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { clickHouseOptions, createClickHouse } from "~/analytics/clickhouse.server";
import { quote, quoteList } from "~/analytics/clickhouse-sql.server";
import { TABLES, type EventKind, type QueuedEvent } from "~/analytics/events";
import { appendEntry, ingestStreamKey } from "~/analytics/ingest-stream.server";
import { queuedEvent as event, SESSION_ID as sessionIdOf, storedCommon, storedCount as countStored, waitFor } from "../support/analytics-events";
import { checkEvents, enrichEvents } from "~/analytics/ingest.server";
import { pageViews } from "~/analytics/reports.server";
import { getEnv, parseEnv } from "~/server/env.server";
import { migrateClickHouse } from "../../scripts/lib/migrate";
import { createRedis } from "~/server/redis.server";
import { startIngest, type Ingest, type IngestOptions } from "../../worker/ingest-consumer.server";
import { analyticsCountersKey } from "../../worker/ingest-counters.server";

const baseEnv = getEnv();
const database = `soko_test_${randomBytes(5).toString("hex")}`;
let clickhouse: ClickHouseClient;
let redis: Redis;
let cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  await migrateClickHouse(clickHouseOptions(baseEnv, database));
  clickhouse = createClickHouse(clickHouseOptions(baseEnv, database));
  redis = createRedis(baseEnv.REDIS_URL, { maxRetriesPerRequest: null });
});

afterEach(async () => {
  for (const cleanup of cleanups) await cleanup().catch(() => {});
  cleanups = [];
});

afterAll(async () => {
  await clickhouse.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await clickhouse.close();
  await redis.quit();
});

/** A stream of this test's own, and a way to start workers on it. */
function setup(envOverrides: Record<string, string> = {}) {
  const prefix = `soko_t_${randomBytes(4).toString("hex")}`;
  const env = parseEnv({ ...process.env, QUEUE_PREFIX: prefix, CLICKHOUSE_DATABASE: database, ...envOverrides });
  cleanups.push(async () => {
    await redis.del(ingestStreamKey(prefix), analyticsCountersKey(prefix));
  });
  const start = async (options: IngestOptions = {}): Promise<Ingest> => {
    const ingest = await startIngest(env, { redis, clickhouse, ...options });
    cleanups.unshift(() => ingest.close());
    return ingest;
  };
  const counters = async () => redis.hgetall(analyticsCountersKey(prefix));
  const add = (events: QueuedEvent[]) => appendEntry(redis, prefix, events);
  /** Whether the entry has left the stream (acknowledged and deleted: its rows are in). */
  const written = async (id: string) => (await redis.xrange(ingestStreamKey(prefix), id, id)).length === 0;
  const empty = async () => (await redis.xlen(ingestStreamKey(prefix))) === 0;
  return { prefix, env, start, counters, add, written, empty };
}

async function select<T>(query: string): Promise<T[]> {
  return (await clickhouse.query({ query, format: "JSONEachRow" })).json<T>();
}

const storedCount = (ids: string[]) => countStored(clickhouse, ids);

const ids = (events: QueuedEvent[]) => events.map((e) => e.event_id);

describe("analytics worker", () => {
  it("writes each kind of event to its table with the values it was queued with", async () => {
    const t = setup({ INGEST_BATCH_MS: "100" });
    const session = event("session");
    const pageview = event("pageview", { user_id: 0, platform: "web-nojs" });
    const click = event("action");
    const jsError = event("error");
    // An /action event with action_type "error" queued as kind "action" is a JavaScript error too.
    const actionError = event("action", { action_type: "error", error_message: "boom", error_stack: "s" });
    const conversion = event("conversion");
    const userAction = event("user_action");
    const all = [session, pageview, click, jsError, actionError, conversion, userAction];
    await t.start();
    const id = await t.add(all);
    await waitFor(() => t.written(id), 10_000, "the entry to be written");

    const common = storedCommon;
    const read = (table: string) =>
      select<Record<string, unknown>>(
        `SELECT * FROM ${table} FINAL WHERE toString(event_id) IN ${quoteList(ids(all))} ORDER BY event_time, toString(event_id)`,
      );
    expect(await read("sessions")).toEqual([
      { ...common(session), user_agent: "Mozilla/5.0 (Linux; Android 14)", screen_resolution: "412x915", timezone: "Africa/Kampala" },
    ]);
    expect(await read("pageviews")).toEqual([
      { ...common(pageview), page: "/gigs/12", title: "Logo design", url: "https://soko.test/gigs/12?ref=x", referrer: "https://google.com/" },
    ]);
    expect(await read("actions")).toEqual([
      {
        ...common(click),
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
    const errors = await read("errors");
    expect(errors).toHaveLength(2);
    expect(errors).toEqual(
      expect.arrayContaining([
        { ...common(jsError), page: "/gigs", message: "TypeError: x is undefined", stack: "at f (app.js:1:2)" },
        { ...common(actionError), page: "/gigs", message: "boom", stack: "s" },
      ]),
    );
    expect(await read("conversions")).toEqual([{ ...common(conversion), conversion_type: "order_placed", value: 80_000, metadata: '{"gig":12}' }]);
    expect(await read("user_actions")).toEqual([{ ...common(userAction), action: "search", details: '{"q":"logo"}', page: "/search" }]);
    expect(await t.counters()).toEqual({ inserted: "7" });
  });

  it("stores an anonymous route change, sent to /action as a page view, in pageviews as user 0, and the page-view report counts it", async () => {
    const t = setup({ INGEST_BATCH_MS: "100" });
    await t.start();
    // What the tracker sends for a client-side navigation, through the endpoint's own checks and enrichment,
    // at a time no other test of this file writes to.
    const receivedAtMs = Date.parse("2025-06-15T08:00:00.000Z");
    const sent = {
      event_id: randomUUID(),
      session_id: "1749974000000-a1b2c3d4e5f6",
      timestamp: receivedAtMs - 1000,
      platform: "web",
      page: "/terms",
      action_type: "pageview",
      title: "Terms of Service | Soko",
      url: "https://soko.test/terms",
      referrer: "https://soko.test/help",
    };
    const checked = checkEvents("action", JSON.stringify([sent]), receivedAtMs);
    if (!checked.ok) throw new Error(`refused: ${checked.error}`);
    const android = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
    const queued = await enrichEvents(checked.events, { ip: "41.210.145.12", userAgent: android, userId: 0 }, receivedAtMs, "soko.test");
    const id = await t.add(queued);
    await waitFor(() => t.written(id), 10_000, "the entry to be written");

    const where = `toString(event_id) = ${quote(sent.event_id)}`;
    expect(await select(`SELECT * FROM pageviews FINAL WHERE ${where}`)).toEqual([
      {
        event_id: sent.event_id,
        session_id: sent.session_id,
        user_id: 0,
        event_time: "2025-06-15 07:59:59",
        received_at: "2025-06-15 08:00:00",
        platform: "web",
        ip: "41.210.145.0",
        country: "Uganda",
        city: "Kampala",
        device: "mobile",
        browser: "Mobile Chrome",
        os: "Android",
        page: "/terms",
        title: "Terms of Service | Soko",
        url: "https://soko.test/terms",
        referrer: "https://soko.test/help",
      },
    ]);
    expect(await storedCount([sent.event_id])).toBe(1);
    expect(await pageViews(clickhouse, "1d", { now: new Date(receivedAtMs) })).toEqual({
      total: 1,
      unique: 1,
      pages: [{ page: "/terms", views: 1, unique_views: 1 }],
    });
  });

  it("places each event by the truncated address the web process queued; an event queued with its place keeps it", async () => {
    const t = setup({ INGEST_BATCH_MS: "100" });
    await t.start();
    const receivedAtMs = Date.parse("2025-06-16T08:00:00.000Z");
    /** Two clicks of one request from `ip`, as the endpoint checks and enriches them (truncated, no place). */
    const fromWeb = (ip: string) => {
      const click = () => ({
        event_id: randomUUID(),
        session_id: "1750060800000-a1b2c3d4e5f6",
        timestamp: receivedAtMs - 1000,
        action_type: "click",
        page: "/browse",
        x: 1,
        y: 2,
      });
      const checked = checkEvents("action", JSON.stringify([click(), click()]), receivedAtMs);
      if (!checked.ok) throw new Error(`refused: ${checked.error}`);
      return enrichEvents(checked.events, { ip, userAgent: "Mozilla/5.0 (X11; Linux x86_64)", userId: 0 }, receivedAtMs, "soko.test");
    };
    const uganda = fromWeb("41.210.145.12");
    const ipv6 = fromWeb("2c0f:f6d0:12:3456:789a::1");
    const unknown = fromWeb("10.1.2.3");
    for (const e of [...uganda, ...ipv6, ...unknown]) expect(e).not.toHaveProperty("country");
    // Queued by a web process from before the worker placed events: whatever place it found stays, even
    // where the lookup of the truncated address would now say otherwise.
    const oldPlaced = event("action", { ip: "41.210.145.0", country: "Kenya", city: "Nairobi" });
    const oldUnknown = event("action", { ip: "41.210.145.0", country: "Unknown", city: "Unknown" });
    const all = [...uganda, oldPlaced, ...ipv6, oldUnknown, ...unknown];
    const id = await t.add(all);
    await waitFor(() => t.written(id), 10_000, "the entry to be written");

    const rows = await select<{ id: string; ip: string; country: string; city: string }>(
      `SELECT toString(event_id) AS id, ip, country, city FROM actions FINAL WHERE toString(event_id) IN ${quoteList(ids(all))}`,
    );
    const placeOf = (e: QueuedEvent) => rows.filter((r) => r.id === e.event_id).map(({ ip, country, city }) => ({ ip, country, city }));
    for (const e of uganda) expect(placeOf(e)).toEqual([{ ip: "41.210.145.0", country: "Uganda", city: "Kampala" }]);
    for (const e of ipv6) expect(placeOf(e)).toEqual([{ ip: "2c0f:f6d0:12::", country: "Uganda", city: "Kampala" }]);
    for (const e of unknown) expect(placeOf(e)).toEqual([{ ip: "10.1.2.0", country: "Unknown", city: "Unknown" }]);
    expect(placeOf(oldPlaced)).toEqual([{ ip: "41.210.145.0", country: "Kenya", city: "Nairobi" }]);
    expect(placeOf(oldUnknown)).toEqual([{ ip: "41.210.145.0", country: "Unknown", city: "Unknown" }]);
    expect(rows).toHaveLength(all.length);
  });

  it("deletes an entry only once its rows can be read, never before", async () => {
    const t = setup({ INGEST_BATCH_MS: "60000" });
    const ingest = await t.start();
    const events = [event("pageview"), event("action"), event("session")];
    const id = await t.add(events);
    await waitFor(() => ingest.stats.pendingEntries === 1, 5000, "the entry to be buffered");
    await new Promise((r) => setTimeout(r, 500)); // time for a flush the 60 s batch must not make yet (a non-event)
    expect(await t.written(id)).toBe(false);
    expect(await storedCount(ids(events))).toBe(0);

    await ingest.flush();
    expect(await t.written(id)).toBe(true);
    expect(await storedCount(ids(events))).toBe(3);
  });

  it("inserts 25,000 events in batches of at most 10,000 rows (the default), one INSERT per table", async () => {
    expect(parseEnv({}).INGEST_BATCH_ROWS).toBe(10_000);
    expect(parseEnv({}).INGEST_BATCH_MS).toBe(1000);
    const t = setup({ INGEST_BATCH_ROWS: "10000", INGEST_BATCH_MS: "1000" });
    const kinds: EventKind[] = ["pageview", "action", "session", "conversion", "user_action", "error"];
    const marker = `1764000000000-${randomBytes(6).toString("hex")}`;
    for (let j = 0; j < 250; j++) await t.add(Array.from({ length: 100 }, (_, i) => event(kinds[(j + i) % kinds.length]!, { session_id: marker })));
    const inserts: number[] = [];
    const counting = createClickHouse(clickHouseOptions(baseEnv, database));
    const original = counting.insert.bind(counting);
    counting.insert = ((params: Parameters<typeof original>[0]) => {
      // The events' tables only (not the counters' pipeline_minutes, moved every 10 s on the same client).
      if (params.table !== "pipeline_minutes") inserts.push((params.values as unknown[]).length);
      return original(params);
    }) as typeof counting.insert;
    cleanups.push(() => counting.close());
    const ingest = await t.start({ clickhouse: counting });

    await waitFor(() => t.empty(), 25_000, "250 entries");
    expect(ingest.stats.batches).toBeGreaterThanOrEqual(3);
    expect(ingest.stats.batchRows.reduce((a, b) => a + b, 0)).toBe(25_000);
    expect(Math.max(...ingest.stats.batchRows)).toBeLessThanOrEqual(10_000);
    // Each batch has rows of all six tables: six INSERTs per batch (and one per retry, on a busy machine), none per entry.
    expect(inserts).toHaveLength(ingest.stats.batches * 6 + ingest.stats.retries);
    expect(inserts.reduce((a, b) => a + b, 0)).toBe(25_000);
    const parts = Object.values(TABLES).map((t) => `SELECT event_id FROM ${t} WHERE session_id = ${quote(marker)}`);
    const [stored] = await select<{ n: number; all: number }>(`SELECT uniqExact(event_id) AS n, count() AS all FROM (${parts.join(" UNION ALL ")})`);
    expect(stored).toEqual({ n: 25_000, all: 25_000 });
    expect(await t.counters()).toEqual({ inserted: "25000" });
    expect(ingest.stats.insertedRows).toBe(25_000);
  });

  it("with a small INGEST_BATCH_MS, stores a single event within a second", async () => {
    const t = setup({ INGEST_BATCH_MS: "50" });
    await t.start();
    const one = event("pageview");
    const startedAt = Date.now();
    await t.add([one]);
    await waitFor(async () => (await storedCount([one.event_id])) === 1, 3000, "the event");
    expect(Date.now() - startedAt).toBeLessThan(1000);
  });

  it("stores an event sent twice (or three times) once as the reports count it, keeping the copy received last", async () => {
    const t = setup({ INGEST_BATCH_MS: "100" });
    const first = [event("pageview", { platform: "web-nojs", session_id: "1763596800000-0a1b2c3d4e5f", user_id: 0 }), event("action")];
    const again = first.map((e) => ({ ...e, received_at: "2026-11-20T10:11:20.000Z", platform: "web", session_id: sessionIdOf }));
    await t.start();
    await t.add(first);
    await t.add(again);
    await t.add(first);
    await waitFor(() => t.empty(), 10_000, "3 entries");

    const where = `toString(event_id) IN ${quoteList(ids(first))}`;
    const [pv] = await select<{ n: number; platform: string; session_id: string }>(
      `SELECT count() AS n, any(platform) AS platform, any(session_id) AS session_id FROM pageviews FINAL WHERE ${where}`,
    );
    expect(pv).toEqual({ n: 1, platform: "web", session_id: sessionIdOf });
    const [act] = await select<{ n: number }>(`SELECT count() AS n FROM actions FINAL WHERE ${where}`);
    expect(act?.n).toBe(1);
    expect(await storedCount(ids(first))).toBe(2);
    // `inserted` counts rows written, duplicates included; the tables and reports deduplicate.
    expect(await t.counters()).toEqual({ inserted: "6" });
  });

  it("close() inserts a partly filled batch before it returns", async () => {
    const t = setup({ INGEST_BATCH_MS: "60000" });
    const ingest = await t.start();
    const events = [event("pageview"), event("conversion"), event("user_action"), event("error"), event("session")];
    await t.add(events.slice(0, 2));
    await t.add(events.slice(2));
    await waitFor(() => ingest.stats.pendingEntries === 2, 5000, "both entries to be buffered");
    expect(await storedCount(ids(events))).toBe(0);

    await ingest.close();
    expect(await storedCount(ids(events))).toBe(5);
    expect(await t.empty()).toBe(true);
    expect(ingest.stats).toMatchObject({ batches: 1, batchRows: [5], pendingEntries: 0, releasedEntries: 0 });
    expect(await t.counters()).toEqual({ inserted: "5" });
  });
});
