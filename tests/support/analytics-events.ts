/**
 * Analytics for tests: events as the endpoints queue them (checked and enriched), one of each kind; and the
 * whole pipeline (web server, worker, ClickHouse) for a test that reads back what was stored.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { clickHouseOptions, createClickHouse } from "~/analytics/clickhouse.server";
import type { EventKind, QueuedEvent } from "~/analytics/events";
import { getEnv, parseEnv } from "~/utils/env.server";
import { createRedis } from "~/utils/redis.server";
import { startEffects } from "../../worker/effects.server";
import { startIngest } from "../../worker/ingest.server";
import { createTestClickHouseDatabase } from "./databases";
import { startTestServer } from "./test-server";

/** A tracking session id as the tracker makes them (time plus random). */
export const SESSION_ID = "1764000000000-k3j9x2";

/** One event as the endpoints queue it (checked and enriched). */
export function queuedEvent<K extends EventKind>(kind: K, overrides: Partial<Record<string, unknown>> = {}): QueuedEvent {
  const base = {
    event_id: randomUUID(),
    session_id: SESSION_ID,
    platform: "web",
    event_time: "2026-11-20T10:11:12.345Z",
    received_at: "2026-11-20T10:11:13.001Z",
    user_id: 7,
    ip: "41.210.145.0",
    country: "UG",
    city: "Kampala",
    device: "mobile",
    browser: "Chrome",
    os: "Android",
  };
  const action = {
    action_type: "click",
    page: "/gigs",
    element_id: "buy",
    element_class: "btn primary",
    element_tag: "button",
    element_text: "Continue (UGX 75,000)",
    x: 120,
    y: 640,
    value: 0,
    error_message: "",
    error_stack: "",
  };
  const own: Record<EventKind, Record<string, unknown>> = {
    session: { user_agent: "Mozilla/5.0 (Linux; Android 14)", screen_resolution: "412x915", timezone: "Africa/Kampala" },
    pageview: { page: "/gigs/12", title: "Logo design", url: "https://soko.test/gigs/12?ref=x", referrer: "https://google.com/" },
    action,
    error: { ...action, action_type: "error", error_message: "TypeError: x is undefined", error_stack: "at f (app.js:1:2)" },
    conversion: { conversion_type: "order_placed", value: 80_000, metadata: '{"gig":12}' },
    user_action: { action: "search", details: '{"q":"logo"}', page: "/search" },
  };
  return { kind, ...base, ...own[kind], ...overrides } as unknown as QueuedEvent;
}

/**
 * The whole pipeline for one test file: the built web server, the worker (in the test's process) on its
 * own queue prefix, and a ClickHouse database of its own, so a test can post or browse and then read what
 * was stored. With a database of the test's own (`env.DATABASE_URL`), the worker also carries out the
 * operations' after-commit effects there (the signup and gig_published conversions wait in it). `stop`
 * takes it all down again.
 */
export async function startAnalyticsPipeline(env: Record<string, string>, { name = "soko_pipe" }: { name?: string } = {}) {
  const base = getEnv();
  const prefix = `t_${name}_${randomBytes(4).toString("hex")}`;
  const database = await createTestClickHouseDatabase(name);
  const clickhouse = createClickHouse(clickHouseOptions(base, database));
  const redis = createRedis(base.REDIS_URL, { maxRetriesPerRequest: null });
  const server = await startTestServer({ QUEUE_PREFIX: prefix, CLICKHOUSE_DATABASE: database, TRUST_PROXY: "loopback", ...env });
  const workerEnv = parseEnv({ ...process.env, QUEUE_PREFIX: prefix, CLICKHOUSE_DATABASE: database, ...(env.DATABASE_URL ? { DATABASE_URL: env.DATABASE_URL } : {}) });
  const worker = await startIngest(workerEnv, { redis, clickhouse, batchMs: 100 });
  // Never the shared database's effects: only a test's own database has effects for this pipeline.
  const effects = env.DATABASE_URL ? startEffects(workerEnv, { pollMs: 100 }) : undefined;
  return {
    server,
    clickhouse,
    database,
    /** The queue prefix, and the worker (its rollup moves the counters' minute hashes to ClickHouse). */
    prefix,
    worker,
    async stop() {
      await server.stop();
      await effects?.close();
      await worker.close();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
      await clickhouse.command({ query: `DROP DATABASE IF EXISTS ${database}` });
      await clickhouse.close();
    },
  };
}
