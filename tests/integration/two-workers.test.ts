/**
 * Two workers share the ingest stream (WORKER_PROCESSES=2, ADR 059): both read from the consumer group, and when
 * one is killed with SIGKILL in the middle of the sending, the entries it held are claimed by the other (and the
 * primary starts a new one). Every event that got a 202 is in ClickHouse, counted once; nothing else is.
 */
import { randomUUID } from "node:crypto";
import type { ClickHouseClient } from "@clickhouse/client";
import { processTree } from "../../scripts/lib/bench";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickHouseOptions, createClickHouse } from "~/analytics/clickhouse.server";
import { TABLES } from "~/analytics/events";
import { getEnv } from "~/server/env.server";
import { closeLimitRedis } from "~/server/rate-limit.server";
import { closeRedis, getRedis } from "~/server/redis.server";
import { startProcess, type Child } from "../../scripts/lib/servers";
import { createTestClickHouseDatabase, createTestDatabase, type TestDatabase } from "../support/databases";
import { ownQueuePrefix } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const QUEUE_PREFIX = ownQueuePrefix("twoworkers");
const REQUESTS = 150;
const EVENTS_PER_REQUEST = 10;
const KILL_AT_REQUEST = 40;
const ANDROID = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";

/** The processes under a cluster primary (its children: they start none of their own). */
const childrenOf = (pid: number) => processTree(pid).slice(1);

describe("two workers share the ingest stream, and one is killed", () => {
  let t: TestDatabase;
  let database: string;
  let web: TestServer;
  let workers: Child;
  let clickhouse: ClickHouseClient;

  beforeAll(async () => {
    t = await createTestDatabase();
    database = await createTestClickHouseDatabase();
    clickhouse = createClickHouse(clickHouseOptions(getEnv(), database));
    const env = { DATABASE_URL: t.url, QUEUE_PREFIX, CLICKHOUSE_DATABASE: database };
    web = await startTestServer({ ...env, ANALYTICS_RATE_LIMIT: "1000000" });
    workers = await startProcess("worker", { ...env, WORKER_PROCESSES: "2", INGEST_BATCH_MS: "400" }, { label: "workers" });
    const deadline = Date.now() + 60_000;
    while (!workers.output().includes("2 worker processes ready")) {
      if (workers.exited() || Date.now() > deadline) throw new Error(`the workers did not start:\n${workers.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 120_000);

  afterAll(async () => {
    await workers?.stop();
    await web?.stop();
    await clickhouse?.exec({ query: `DROP DATABASE IF EXISTS ${database}` }).catch(() => {});
    await clickhouse?.close();
    const keys = await getRedis().keys(`${QUEUE_PREFIX}*`);
    if (keys.length) await getRedis().del(...keys);
    await Promise.all([closeRedis(), closeLimitRedis()]);
    await t?.drop();
  });

  it("stores every accepted event once", { timeout: 150_000 }, async () => {
    const accepted = new Set<string>();
    let killed = 0;
    for (let r = 0; r < REQUESTS; r++) {
      if (r === KILL_AT_REQUEST) {
        killed = childrenOf(workers.child.pid!)[0]!;
        process.kill(killed, "SIGKILL");
      }
      const events = Array.from({ length: EVENTS_PER_REQUEST }, (_, i) => ({
        event_id: randomUUID(),
        session_id: "1764000000000-k3j9x2",
        timestamp: Date.now(),
        action_type: "click",
        page: `/two-workers/${i}`,
      }));
      const res = await fetch(`${web.baseUrl}/api/v1/analytics/action`, {
        method: "POST",
        // A phone's browser: a bot's events are answered 202 and dropped.
        headers: { "content-type": "text/plain", "user-agent": ANDROID },
        body: JSON.stringify(events),
      });
      expect(res.status).toBe(202);
      expect(await res.json()).toEqual({ success: true, accepted: EVENTS_PER_REQUEST });
      for (const e of events) accepted.add(e.event_id);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(killed).toBeGreaterThan(0);

    // The killed worker's entries are claimed once their lock lapses (15 s) and stored by the other.
    const deadline = Date.now() + 90_000;
    let stored = 0;
    while (stored < accepted.size && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1_000));
      const rows = await (
        await clickhouse.query({ query: `SELECT uniqExact(event_id) AS ids FROM ${TABLES.action}`, format: "JSONEachRow" })
      ).json<{ ids: string }>();
      stored = Number(rows[0]?.ids ?? 0);
    }
    const [counted] = await (
      await clickhouse.query({ query: `SELECT uniqExact(event_id) AS ids, count() AS rows FROM ${TABLES.action} FINAL`, format: "JSONEachRow" })
    ).json<{ ids: string; rows: string }>();
    expect(Number(counted!.ids)).toBe(accepted.size);
    expect(Number(counted!.rows), "each event counted once").toBe(accepted.size);
    const ids = new Set(
      (
        await (
          await clickhouse.query({ query: `SELECT DISTINCT toString(event_id) AS id FROM ${TABLES.action}`, format: "JSONEachRow" })
        ).json<{ id: string }>()
      ).map((r) => r.id),
    );
    expect([...accepted].filter((id) => !ids.has(id))).toEqual([]);
    expect(workers.output()).toMatch(/worker \d \(pid \d+\) was killed by SIGKILL; starting it again/);
  });
});
