/**
 * Analytics for tests: events as the endpoints queue them (checked and enriched), one of each kind; and the
 * whole pipeline (web server, worker, ClickHouse) for a test that reads back what was stored.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ClickHouseClient } from "@clickhouse/client";
import { clickHouseOptions, createClickHouse } from "~/analytics/clickhouse.server";
import { quoteList } from "~/analytics/clickhouse-sql.server";
import { TABLES, type EventKind, type QueuedEvent } from "~/analytics/events";
import { getEnv, parseEnv } from "~/server/env.server";
import { createRedis } from "~/server/redis.server";
import { startEffects } from "../../worker/effects-runner.server";
import { startIngest, type IngestStats } from "../../worker/ingest-consumer.server";
import { createTestClickHouseDatabase } from "./databases";
import { startTestServer } from "./test-server";

/** A tracking session id as the tracker makes them (time plus random). */
export const SESSION_ID = "1764000000000-k3j9x2";

/** What the web process and the worker add to `queuedEvent`'s events: truncated address, place, device. */
const ENRICHED = { ip: "41.210.145.0", country: "UG", city: "Kampala", device: "mobile", browser: "Chrome", os: "Android" };

/** The columns every table has, as ClickHouse returns them for an event `queuedEvent` made (its defaults). */
export function storedCommon(e: QueuedEvent) {
  return {
    event_id: e.event_id,
    session_id: e.session_id,
    user_id: e.user_id,
    event_time: "2026-11-20 10:11:12",
    received_at: "2026-11-20 10:11:13",
    platform: e.platform,
    ...ENRICHED,
  };
}

/** One event as the endpoints queue it (checked and enriched). */
export function queuedEvent<K extends EventKind>(kind: K, overrides: Partial<Record<string, unknown>> = {}): QueuedEvent {
  const base = {
    event_id: randomUUID(),
    session_id: SESSION_ID,
    platform: "web",
    event_time: "2026-11-20T10:11:12.345Z",
    received_at: "2026-11-20T10:11:13.001Z",
    user_id: 7,
    ...ENRICHED,
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
  const workerEnv = parseEnv({
    ...process.env,
    QUEUE_PREFIX: prefix,
    CLICKHOUSE_DATABASE: database,
    ...(env.DATABASE_URL ? { DATABASE_URL: env.DATABASE_URL } : {}),
  });
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

/**
 * A worker's ingest in a child process (node itself, not the tsx CLI, so SIGKILL reaches it), for a test that
 * kills it while it holds events: it prints `<stat> <n>` every 50 ms, and `output()` is all it has printed.
 * Killed by `cleanup`, which also removes its script.
 */
export async function startIngestChild(env: Record<string, string>, stat: keyof IngestStats) {
  const root = path.resolve(import.meta.dirname, "../..");
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "soko-ingest-"));
  const script = path.join(dir, "dying-worker.mts");
  await fs.writeFile(
    script,
    `import { parseEnv } from ${JSON.stringify(path.join(root, "app/server/env.server.ts"))};
     import { startIngest } from ${JSON.stringify(path.join(root, "worker/ingest-consumer.server.ts"))};
     const ingest = await startIngest(parseEnv(process.env), { lockDurationMs: 1500, stalledIntervalMs: 500 });
     setInterval(() => console.log(${JSON.stringify(stat)} + " " + ingest.stats[${JSON.stringify(stat)}]), 50);\n`,
  );
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    child,
    exited,
    output: () => output,
    cleanup: async () => {
      child.kill("SIGKILL");
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** How many distinct events of these ids `clickhouse`'s database stores, over every table. */
export async function storedCount(clickhouse: ClickHouseClient, ids: string[]): Promise<number> {
  const parts = Object.values(TABLES).map((t) => `SELECT toString(event_id) AS id FROM ${t} WHERE toString(event_id) IN ${quoteList(ids)}`);
  const rs = await clickhouse.query({ query: `SELECT uniqExact(id) AS n FROM (${parts.join(" UNION ALL ")})`, format: "JSONEachRow" });
  const [row] = await rs.json<{ n: number }>();
  return Number(row?.n ?? 0);
}

/** Polls `check` every 25 ms until it holds; throws, naming `what`, after `ms`. */
export async function waitFor(check: () => Promise<boolean> | boolean, ms = 15_000, what: string | (() => string) = "condition") {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
