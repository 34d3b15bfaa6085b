/**
 * No loss: 10,000 events with unique ids go through the built web server, the ingest stream (ADR 036)
 * and the worker
 * into ClickHouse while (a) the worker is killed with SIGKILL in the middle of a batch and restarted,
 * (b) ClickHouse is killed and kept down for 15 s, then started again on the same files, and (c) Redis is
 * stopped and started again on its append-only file, the web server running throughout. The client
 * behaves like the tracker: it re-sends the same events after a 503, a 429 or a network error until it
 * gets a 202. Afterwards every event that got a 202 is in ClickHouse, nothing else is, and the reports
 * count each exactly once.
 *
 * Redis and ClickHouse are this test's own (tests/support/private-services.ts), so taking them down
 * never disturbs the shared services other tests use. Postgres is the shared one (the Bearer token of
 * the /pageview requests). Runs the built app: `npm run build` first (npm test does).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ClickHouseClient } from "@clickhouse/client";
import type { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createClickHouse } from "~/analytics/clickhouse.server";
import { TABLES } from "~/analytics/events";
import { deadLetterCount, INGEST_GROUP, ingestStreamKey, streamDepth, streamEntries } from "~/analytics/ingest-stream.server";
import { pageViews, TOP_ROWS, userActivity } from "~/analytics/reports.server";
import { migrateClickHouse } from "../../scripts/lib/migrate";
import { createRedis } from "~/server/redis.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createUser } from "../support/factories";
import { createAppToken } from "../support/api";
import { startPrivateClickHouse, startPrivateRedis, type PrivateService } from "../support/private-services";
import { startTestServer, type TestServer } from "../support/test-server";

const root = path.resolve(import.meta.dirname, "../..");

/** 500 requests of 20 events: 400 to /action (8,000 actions) and 100 to /pageview (2,000 page views). */
const REQUESTS = 500;
const EVENTS_PER_REQUEST = 20;
/** Request n is first sent at n × this after the start: the sending lasts about 45 s. */
const REQUEST_SPACING_MS = 90;
/** When each fault is injected, after the sending started. */
const KILL_WORKER_AT_MS = 5_000;
const CLICKHOUSE_DOWN_AT_MS = 10_000;
const CLICKHOUSE_DOWN_FOR_MS = 15_000;
const REDIS_DOWN_AT_MS = 30_000;
const REDIS_DOWN_FOR_MS = 3_000;
/** Every request must have its 202 by then, and every accepted event must be in ClickHouse by the next. */
const SENDING_DEADLINE_MS = 100_000;
const STORED_DEADLINE_MS = 90_000;

const ANDROID = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
const PAGES = Array.from({ length: 8 }, (_, i) => `/no-loss/page-${i}`);
const ACTION_TYPES = ["click", "scroll", "page_focus", "form_submit", "input_focus", "time_on_page"] as const;
const INTERACTIONS = new Set<string>(["click", "form_submit", "input_focus"]);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Event = { event_id: string; session_id: string; timestamp: number; page: string } & Record<string, unknown>;
type Request = { endpoint: "action" | "pageview"; events: Event[] };
type Answer = { at: number; status: number | "network error" };

/** The 500 requests, built once: a retry re-sends exactly the same events. */
function buildRequests(): Request[] {
  const stamp = Date.now();
  const sessions = Array.from({ length: 60 }, (_, i) => `${stamp}-noloss${i}`);
  let n = 0;
  const next = <T>(list: readonly T[]) => list[n++ % list.length]!;
  return Array.from({ length: REQUESTS }, (_, r): Request => {
    if (r % 5 === 4) {
      // The first page-view request is 20 one-page sessions (bounces); the others share the 60 sessions.
      const bounces = r === 4;
      return {
        endpoint: "pageview",
        events: Array.from({ length: EVENTS_PER_REQUEST }, (_, i) => ({
          event_id: randomUUID(),
          session_id: bounces ? `${stamp}-bounce${i}` : next(sessions),
          timestamp: stamp - 60_000 + r * 10 + i,
          page: next(PAGES),
          title: "No loss",
          platform: "web",
        })),
      };
    }
    return {
      endpoint: "action",
      events: Array.from({ length: EVENTS_PER_REQUEST }, (_, i) => ({
        event_id: randomUUID(),
        session_id: next(sessions),
        timestamp: stamp - 60_000 + r * 10 + i,
        action_type: next(ACTION_TYPES),
        page: next(PAGES),
        element_tag: "button",
        x: r,
        y: i,
        platform: "web",
      })),
    };
  });
}

describe("analytics pipeline: no event lost", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "soko-no-loss-"));
  const prefix = `t_noloss_${randomBytes(4).toString("hex")}`;
  const database = "soko_no_loss";
  let redisServer: PrivateService | undefined;
  let clickhouseServer: PrivateService | undefined;
  let postgres: TestDatabase | undefined;
  let web: TestServer | undefined;
  let worker: ChildProcess | undefined;
  let workerLog = "";
  let monitor: Redis | undefined;
  let clickhouse: ClickHouseClient | undefined;

  afterAll(async () => {
    if (worker?.pid && worker.exitCode === null && worker.signalCode === null) worker.kill("SIGKILL");
    await web?.stop();
    monitor?.disconnect();
    await clickhouse?.close();
    await Promise.all([redisServer?.stop("SIGKILL"), clickhouseServer?.stop("SIGKILL")]);
    await postgres?.drop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }, 60_000);

  /** The worker as `npm run worker` runs it, but node itself (not the tsx CLI) so SIGKILL reaches it. */
  async function startWorker(): Promise<ChildProcess> {
    const child = spawn(process.execPath, ["--import", "tsx", "worker/index.ts"], {
      cwd: root,
      env: {
        ...process.env,
        // Its own database: a worker also carries out the effects it finds there, and the machine's own
        // database (seeded by `npm start`) has the demo data's conversions waiting for a worker.
        DATABASE_URL: postgres!.url,
        REDIS_URL: redisServer!.url,
        CLICKHOUSE_URL: clickhouseServer!.url,
        CLICKHOUSE_DATABASE: database,
        QUEUE_PREFIX: prefix,
        // Several entries per batch (about 11 requests arrive a second).
        INGEST_BATCH_MS: "1000",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const collect = (d: Buffer) => {
      output += d;
      workerLog += d;
    };
    child.stdout!.on("data", collect);
    child.stderr!.on("data", collect);
    worker = child;
    const deadline = Date.now() + 30_000;
    while (!output.includes("[worker] ready")) {
      if (child.exitCode !== null) throw new Error(`the worker exited while starting:\n${output}`);
      if (Date.now() > deadline) throw new Error(`the worker did not start within 30 s:\n${output}`);
      await sleep(50);
    }
    return child;
  }

  it("keeps every accepted event through a worker SIGKILL, a ClickHouse outage and a Redis restart, and the reports count each once", async () => {
    // ------------------------------------------------------------------------------------------------
    // Our own Redis and ClickHouse, the built web server and the worker on them.
    [redisServer, clickhouseServer] = await Promise.all([startPrivateRedis(path.join(tmp, "redis")), startPrivateClickHouse(path.join(tmp, "clickhouse"))]);
    await migrateClickHouse({ url: clickhouseServer.url, database });
    clickhouse = createClickHouse({ url: clickhouseServer.url, database });
    postgres = await createTestDatabase();
    const user = await createUser(postgres.db, { name: "Grace Nakato", username: "grace_n", email: "grace@example.ug" });
    const token = await createAppToken(postgres.db, user.id);
    web = await startTestServer({
      DATABASE_URL: postgres.url,
      REDIS_URL: redisServer.url,
      CLICKHOUSE_URL: clickhouseServer.url,
      CLICKHOUSE_DATABASE: database,
      QUEUE_PREFIX: prefix,
      // All requests come from 127.0.0.1: no 429 for this test's own rate (a 429 would be retried anyway).
      ANALYTICS_RATE_LIMIT: "1000000",
    });
    await startWorker();
    monitor = createRedis(redisServer.url, { maxRetriesPerRequest: null });
    monitor.on("error", () => undefined); // down on purpose during (c)

    // ------------------------------------------------------------------------------------------------
    // The sending: like the tracker, the same events again after a 503, 429 or network error.
    const requests = buildRequests();
    const accepted = { action: new Set<string>(), pageview: new Set<string>() };
    const answers: Answer[] = [];
    const unexpected: string[] = [];
    const started = Date.now();
    const baseUrl = web.baseUrl;

    async function sendUntilAccepted(request: Request, index: number) {
      await sleep(index * REQUEST_SPACING_MS);
      const body = JSON.stringify(request.events);
      for (let attempt = 0; ; attempt++) {
        if (Date.now() - started > SENDING_DEADLINE_MS) {
          throw new Error(`request ${index} had no 202 ${SENDING_DEADLINE_MS / 1000} s after the sending started; answers: ${tally(answers.slice(-20))}`);
        }
        let status: Answer["status"];
        let text = "";
        try {
          const res = await fetch(`${baseUrl}/api/v1/analytics/${request.endpoint}`, {
            method: "POST",
            headers: {
              "Content-Type": "text/plain;charset=UTF-8",
              "User-Agent": ANDROID,
              ...(request.endpoint === "pageview" ? { Authorization: `Bearer ${token}` } : {}),
            },
            body,
            signal: AbortSignal.timeout(10_000),
          });
          status = res.status;
          text = await res.text();
        } catch {
          status = "network error";
        }
        answers.push({ at: Date.now() - started, status });
        if (status === 202) {
          const answer = JSON.parse(text) as { accepted?: number };
          if (answer.accepted !== request.events.length) unexpected.push(`request ${index}: 202 ${text}`);
          for (const event of request.events) accepted[request.endpoint].add(event.event_id);
          return;
        }
        if (typeof status === "number" && status !== 503 && status !== 429) {
          unexpected.push(`request ${index}: ${status} ${text.slice(0, 300)}`);
          if (status < 500) return; // refused for its content: re-sending would not help
        }
        await sleep(Math.min(1_000, 100 * 2 ** attempt) * (0.5 + Math.random()));
      }
    }

    // ------------------------------------------------------------------------------------------------
    // The faults, while the requests go out.
    const faults = {
      killedJobs: 0,
      killedEvents: 0,
      killedEventsNotStored: 0,
      clickhouseDown: [0, 0] as [number, number],
      redisDown: [0, 0] as [number, number],
      /** When the Redis process had exited (it serves commands for a while after SIGTERM). */
      redisGone: 0,
    };

    async function injectFaults() {
      // (a) SIGKILL the worker while it holds entries whose batch is not inserted yet.
      await sleep(KILL_WORKER_AT_MS);
      const holding = Date.now() + 10_000;
      while ((await streamDepth(monitor!, prefix)).active === 0) {
        if (Date.now() > holding) throw new Error(`the worker held no entry to kill it with:\n${workerLog}`);
        await sleep(20);
      }
      const dying = worker!;
      const gone = new Promise((resolve) => dying.once("exit", resolve));
      dying.kill("SIGKILL");
      await gone;
      // What the dead worker held: its entries stay pending until the next worker claims them (idle 15 s).
      const pending = new Set(
        ((await monitor!.xpending(ingestStreamKey(prefix), INGEST_GROUP, "-", "+", 100_000)) as [string, ...unknown[]][]).map(([id]) => id),
      );
      const held = (await streamEntries(monitor!, prefix)).filter((entry) => pending.has(entry.id));
      faults.killedJobs = held.length;
      const heldIds = held.flatMap((entry) => entry.events.map((e) => e.event_id));
      faults.killedEvents = heldIds.length;
      faults.killedEventsNotStored = heldIds.length - (await storedIds(clickhouse!, heldIds)).size;
      await startWorker();

      // (b) ClickHouse killed and kept down for 15 s, then started again on the same files.
      await sleep(Math.max(0, started + CLICKHOUSE_DOWN_AT_MS - Date.now()));
      faults.clickhouseDown[0] = Date.now() - started;
      // SIGKILL: 18.16 takes ~15 s to finish a SIGTERM shutdown, and a crash is the harder case anyway.
      await clickhouseServer!.stop("SIGKILL");
      await sleep(CLICKHOUSE_DOWN_FOR_MS);
      await clickhouseServer!.start();
      faults.clickhouseDown[1] = Date.now() - started;

      // (c) Redis stopped (SIGTERM: a clean shutdown) and started again on its append-only file.
      await sleep(Math.max(0, started + REDIS_DOWN_AT_MS - Date.now()));
      faults.redisDown[0] = Date.now() - started;
      await redisServer!.stop("SIGTERM");
      faults.redisGone = Date.now() - started;
      await sleep(REDIS_DOWN_FOR_MS);
      await redisServer!.start();
      faults.redisDown[1] = Date.now() - started;
    }

    const [sending, faulting] = await Promise.allSettled([Promise.all(requests.map((request, index) => sendUntilAccepted(request, index))), injectFaults()]);
    const sentFor = Date.now() - started;
    if (faulting.status === "rejected") throw faulting.reason;
    if (sending.status === "rejected") throw sending.reason;
    expect(unexpected, "answers other than 202, 429 and 503").toEqual([]);

    const expected = {
      action: requests.filter((r) => r.endpoint === "action").flatMap((r) => r.events),
      pageview: requests.filter((r) => r.endpoint === "pageview").flatMap((r) => r.events),
    };
    expect(accepted.action.size).toBe(8_000);
    expect(accepted.pageview.size).toBe(2_000);

    // The faults happened during the sending and were felt where they should be.
    expect(faults.killedJobs, "stream entries the killed worker held").toBeGreaterThan(0);
    expect(faults.redisDown[1]).toBeLessThan(answers.at(-1)!.at);
    const during = ([from, to]: [number, number]) => answers.filter((a) => a.at >= from && a.at <= to);
    // With ClickHouse down the endpoints do not care: they only need Redis.
    expect(tally(during(faults.clickhouseDown)), "answers while ClickHouse was down").toMatch(/202×/);
    // From the moment the Redis process had exited: after a SIGTERM it keeps serving until its next cron tick
    // and its append-only file is flushed, which took over 200 ms on a loaded machine (a request answered 202
    // then is a job Redis took, and is checked below like every other).
    const whileRedisDown = during([faults.redisGone + 200, faults.redisDown[1] - 200]);
    expect(whileRedisDown.length, "requests while Redis was down").toBeGreaterThan(0);
    expect(
      whileRedisDown.every((a) => a.status === 503),
      tally(whileRedisDown),
    ).toBe(true);
    const firstAfterRedis = answers.find((a) => a.at > faults.redisDown[1] && a.status === 202);
    expect(firstAfterRedis, "a 202 once Redis was back").toBeDefined();

    // ------------------------------------------------------------------------------------------------
    // Every accepted event reaches ClickHouse.
    const all = [...accepted.action, ...accepted.pageview];
    const waitStart = Date.now();
    let stored = 0;
    while ((stored = await storedCount(clickhouse)) < all.length) {
      if (Date.now() - waitStart > STORED_DEADLINE_MS) {
        const dead = await deadLetterCount(monitor!, prefix);
        throw new Error(
          `${all.length - stored} of ${all.length} accepted events are not in ClickHouse ${STORED_DEADLINE_MS / 1000} s after the sending ended; ` +
            `stream ${JSON.stringify(await streamDepth(monitor!, prefix))}, dead letters ${dead}; worker output:\n${workerLog.slice(-3000)}`,
        );
      }
      await sleep(500);
    }
    const storedFor = Date.now() - waitStart;

    // Exactly the accepted ids, in the right tables, nothing else anywhere.
    for (const [kind, table] of [
      ["action", TABLES.action],
      ["pageview", TABLES.pageview],
    ] as const) {
      const [{ ids, rows }] = await select<{ ids: number; rows: number }>(clickhouse, `SELECT uniqExact(event_id) AS ids, count() AS rows FROM ${table} FINAL`);
      expect(ids, `distinct event ids in ${table}`).toBe(accepted[kind].size);
      expect(rows, `rows of ${table} under FINAL`).toBe(accepted[kind].size);
      const inTable = new Set((await select<{ id: string }>(clickhouse, `SELECT DISTINCT toString(event_id) AS id FROM ${table}`)).map((r) => r.id));
      expect(
        [...accepted[kind]].filter((id) => !inTable.has(id)),
        `accepted ids missing from ${table}`,
      ).toEqual([]);
      expect(
        [...inTable].filter((id) => !accepted[kind].has(id)),
        `ids in ${table} never accepted`,
      ).toEqual([]);
    }
    for (const table of [TABLES.session, TABLES.error, TABLES.conversion, TABLES.user_action]) {
      const [{ rows }] = await select<{ rows: number }>(clickhouse, `SELECT count() AS rows FROM ${table}`);
      expect(rows, `rows in ${table}`).toBe(0);
    }

    // The reports count each event once.
    const now = new Date(Date.now() + 60_000);
    const views = await pageViews(clickhouse, "1d", { now });
    const byPage = new Map<string, { views: number; sessions: Set<string> }>();
    for (const e of expected.pageview) {
      const page = byPage.get(e.page) ?? { views: 0, sessions: new Set() };
      page.views++;
      page.sessions.add(e.session_id);
      byPage.set(e.page, page);
    }
    expect(views.total).toBe(2_000);
    expect(views.unique).toBe(new Set(expected.pageview.map((e) => e.session_id)).size);
    expect(views.pages).toEqual(
      [...byPage]
        .map(([page, p]) => ({ page, views: p.views, unique_views: p.sessions.size }))
        .sort((a, b) => b.views - a.views || (a.page < b.page ? -1 : 1))
        .slice(0, TOP_ROWS),
    );
    const sessions = new Map<string, { pageviews: number; interactions: number }>();
    for (const e of [...expected.pageview, ...expected.action]) {
      const s = sessions.get(e.session_id) ?? { pageviews: 0, interactions: 0 };
      if (e.action_type === undefined) s.pageviews++;
      else if (INTERACTIONS.has(e.action_type as string)) s.interactions++;
      sessions.set(e.session_id, s);
    }
    const bounces = [...sessions.values()].filter((s) => s.pageviews === 1 && s.interactions === 0).length;
    expect(bounces).toBe(20);
    const activity = await userActivity(clickhouse, "1d", { now });
    expect(activity.sessions).toBe(sessions.size);
    expect(activity.bounceRate).toBe(Math.round((bounces * 10_000) / sessions.size) / 10_000);

    // Nothing left behind in the stream, nothing failed.
    expect(await monitor!.xlen(ingestStreamKey(prefix))).toBe(0);
    expect(await deadLetterCount(monitor!, prefix)).toBe(0);

    // What happened, for whoever reads the test output.
    const [raw] = await select<{ actions: number; pageviews: number }>(
      clickhouse,
      `SELECT (SELECT count() FROM actions) AS actions, (SELECT count() FROM pageviews) AS pageviews`,
    );
    console.log(
      `[no-loss] ${all.length} events accepted in ${(sentFor / 1000).toFixed(1)} s (${tally(answers)}); ` +
        `all in ClickHouse ${(storedFor / 1000).toFixed(1)} s later. Worker killed holding ${faults.killedJobs} stream entries ` +
        `(${faults.killedEvents} events, ${faults.killedEventsNotStored} not yet stored); ClickHouse down ` +
        `${faults.clickhouseDown.map((t) => (t / 1000).toFixed(1)).join("–")} s; Redis down ` +
        `${faults.redisDown.map((t) => (t / 1000).toFixed(1)).join("–")} s (its process gone ${((faults.redisGone - faults.redisDown[0]) / 1000).toFixed(2)} s ` +
        `after the SIGTERM; ${tally(whileRedisDown)}), first 202 after it at ` +
        `${((firstAfterRedis?.at ?? 0) / 1000).toFixed(1)} s. Rows before de-duplication: ${raw?.actions} actions, ${raw?.pageviews} page views.`,
    );
  }, 240_000);
});

function tally(answers: Answer[]): string {
  const counts = new Map<string, number>();
  for (const a of answers) counts.set(String(a.status), (counts.get(String(a.status)) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${status}×${n}`).join(", ") || "none";
}

async function select<T>(client: ClickHouseClient, query: string): Promise<[T, ...T[]]> {
  const rows = await (await client.query({ query, format: "JSONEachRow" })).json<T>();
  if (rows.length === 0) throw new Error(`no rows from ${query}`);
  return rows as [T, ...T[]];
}

/** Distinct events stored over the two tables this test writes. */
async function storedCount(client: ClickHouseClient): Promise<number> {
  const [row] = await select<{ n: number }>(client, `SELECT (SELECT uniqExact(event_id) FROM actions) + (SELECT uniqExact(event_id) FROM pageviews) AS n`);
  return Number(row.n);
}

/** Which of these ids are stored already (none when ClickHouse cannot be asked). */
async function storedIds(client: ClickHouseClient, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const list = ids.map((id) => `'${id.replace(/[^0-9a-f-]/gi, "")}'`).join(", ");
  try {
    const result = await client.query({
      query: `SELECT toString(event_id) AS id FROM actions WHERE toString(event_id) IN (${list})
              UNION ALL SELECT toString(event_id) AS id FROM pageviews WHERE toString(event_id) IN (${list})`,
      format: "JSONEachRow",
    });
    return new Set((await result.json<{ id: string }>()).map((r) => r.id));
  } catch {
    return new Set();
  }
}
