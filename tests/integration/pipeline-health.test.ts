/**
 * Pipeline health: known events sent through the real pipeline (built web server, the ingest
 * stream, the worker, ClickHouse) come out as per-minute counters in ClickHouse's pipeline_minutes (accepted,
 * inserted, dropped by reason, failed), a move of the counters cut short is counted once, and the admin
 * screen shows the figures, the stream and the dead letters, whose Replay puts them back in the stream and is audited.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEntry, deadLetterCount, deadLetterKey, INGEST_GROUP, ingestStreamKey, moveToDeadLetters } from "~/analytics/ingest-stream.server";
import { countMinute, pipelineCounts, queueHealth } from "~/analytics/pipeline-stats.server";
import { getEnv } from "~/server/env.server";
import { createRedis } from "~/server/redis.server";
import { queuedEvent, startAnalyticsPipeline } from "../support/analytics-events";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createSession, createUser } from "../support/factories";

const ANDROID = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
const BOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

describe("pipeline health", () => {
  let t: TestDatabase;
  let pipeline: Awaited<ReturnType<typeof startAnalyticsPipeline>>;
  let redis: Redis;
  let adminToken: string;
  let clientToken: string;
  const started = Date.now();

  beforeAll(async () => {
    t = await createTestDatabase();
    adminToken = await createSession(t.db, (await createUser(t.db, { role: "admin", name: "Health Admin", email: "health-admin@example.ug" })).id);
    clientToken = await createSession(t.db, (await createUser(t.db, { role: "client", name: "Health Client", email: "health-client@example.ug" })).id);
    pipeline = await startAnalyticsPipeline({ DATABASE_URL: t.url }, { name: "pipehealth" });
    redis = createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    await pipeline?.stop();
    await redis?.quit();
    await t?.drop();
  });

  const track = (events: unknown, userAgent = ANDROID) =>
    fetch(`${pipeline.server.baseUrl}/api/v1/analytics/action`, {
      method: "POST",
      headers: { "Content-Type": "text/plain", "User-Agent": userAgent, Origin: pipeline.server.baseUrl },
      body: JSON.stringify(events),
    });
  const click = (x: number) => ({
    event_id: randomUUID(),
    session_id: "1764000000000-h3a1th",
    timestamp: Date.now(),
    action_type: "click",
    page: "/health",
    x,
    y: 10,
  });
  const counts = () => pipelineCounts(pipeline.clickhouse, redis, pipeline.prefix);
  const page = (path: string, token = adminToken, init: RequestInit = {}) =>
    fetch(`${pipeline.server.baseUrl}${path}`, {
      redirect: "manual",
      ...init,
      headers: { Cookie: `soko_session=${token}`, Origin: pipeline.server.baseUrl, "User-Agent": ANDROID, ...(init.headers ?? {}) },
    });

  it("counts accepted, inserted and dropped events per minute, moved from Redis into ClickHouse", async () => {
    expect((await track([click(1), click(2), click(3)])).status).toBe(202);
    expect((await track([click(4), click(5), click(6)])).status).toBe(202);
    expect((await track([{ ...click(7), x: -5 }])).status).toBe(400); // one invalid event
    expect((await track([click(8)], BOT)).status).toBeLessThan(300); // a bot: answered, dropped
    await expect.poll(async () => (await counts()).totals.inserted, { timeout: 15_000 }).toBe(6);
    await expect.poll(async () => (await counts()).totals.dropped, { timeout: 5_000 }).toBe(2);

    await pipeline.worker.rollup();
    // Moved: no minute hash is left in Redis, and ClickHouse alone has the figures.
    expect(await redis.keys(`${pipeline.prefix}:analytics:minute:*`)).toEqual([]);
    expect(await redis.keys(`${pipeline.prefix}:analytics:rolling:*`)).toEqual([]);
    expect(await redis.smembers(`${pipeline.prefix}:analytics:minutes`)).toEqual([]);
    expect(await redis.smembers(`${pipeline.prefix}:analytics:rollings`)).toEqual([]);
    const stored = await (
      await pipeline.clickhouse.query({
        query:
          "SELECT counter, sum(n) AS n, min(toUnixTimestamp(minute)) AS first, max(toUnixTimestamp(minute)) AS last FROM pipeline_minutes FINAL GROUP BY counter ORDER BY counter",
        format: "JSONEachRow",
      })
    ).json<{ counter: string; n: number; first: number; last: number }>();
    expect(stored.map(({ counter, n }) => [counter, Number(n)])).toEqual([
      ["accepted", 6],
      ["dropped:bot", 1],
      ["dropped:invalid", 1],
      ["inserted", 6],
    ]);
    // Each in the minute it happened (the test's minutes).
    for (const row of stored) {
      expect(Number(row.first) * 1000).toBeGreaterThanOrEqual(Math.floor(started / 60_000) * 60_000);
      expect(Number(row.last) * 1000).toBeLessThanOrEqual(Date.now());
    }
    const { totals, minutes } = await counts();
    expect(totals).toEqual({ accepted: 6, inserted: 6, failed: 0, dropped: 2, droppedBy: { bot: 1, invalid: 1 } });
    expect(minutes.reduce((n, m) => n + m.accepted, 0)).toBe(6);
  });

  it("counts a move that was cut short after its insert once", async () => {
    const minute = Math.floor(Date.now() / 60_000) - 5;
    const batch = randomUUID();
    // A worker renamed the hash and inserted it, then died before deleting it: the next move inserts it again.
    const rolling = `${pipeline.prefix}:analytics:rolling:${minute}:${batch}`;
    await redis.hset(rolling, { accepted: 5 });
    await redis.sadd(`${pipeline.prefix}:analytics:rollings`, rolling);
    await pipeline.clickhouse.insert({ table: "pipeline_minutes", values: [{ minute: minute * 60, counter: "accepted", batch, n: 5 }], format: "JSONEachRow" });
    // Counts that came in for that minute after it was moved: a hash of their own, another batch.
    await countMinute(redis, pipeline.prefix, [["accepted", 2]], minute * 60_000);
    // A minute named in the index whose hash has gone (expired after two days unmoved): skipped.
    await redis.sadd(`${pipeline.prefix}:analytics:minutes`, String(minute - 1));
    await pipeline.worker.rollup();
    const { minutes, totals } = await counts();
    expect(minutes.find((m) => m.minute === new Date(minute * 60_000).toISOString())?.accepted).toBe(7);
    expect(totals.accepted).toBe(6 + 7);
    expect(await redis.smembers(`${pipeline.prefix}:analytics:minutes`)).toEqual([]);
    expect(await redis.smembers(`${pipeline.prefix}:analytics:rollings`)).toEqual([]);
    expect(await redis.keys(`${pipeline.prefix}:analytics:rolling:*`)).toEqual([]);
  });

  it("shows the figures, the stream and the dead letters; Replay puts them back in the stream and is audited", async () => {
    // An entry the worker cannot read goes to the dead letters at once (never retried).
    await redis.xadd(ingestStreamKey(pipeline.prefix), "*", "events", JSON.stringify([{ kind: "nonsense" }]));
    await expect.poll(async () => deadLetterCount(redis, pipeline.prefix), { timeout: 10_000 }).toBe(1);

    // The cells' data-label attributes (the column names on a phone's stacked cards) are left out.
    const html = (await (await page("/admin/pipeline")).text()).replace(/ data-label="[^"]*"/g, "");
    expect(html).toContain("<dt>Accepted</dt><dd>13</dd>");
    expect(html).toContain("<dt>Inserted</dt><dd>6</dd>");
    expect(html).toContain("<dt>Dropped</dt><dd>2</dd>");
    expect(html).toContain("<dt>Failed</dt><dd>1</dd>");
    expect(html).toContain("<td>bot</td><td>1</td>");
    expect(html).toContain("<td>invalid</td><td>1</td>");
    expect(html).toMatch(/<dt>Waiting<\/dt><dd>0<\/dd>/);
    expect(html).toContain("unknown event kind");
    expect(html).toContain("Replay failed events");

    const replay = await page("/admin/pipeline", adminToken, { method: "POST", body: new URLSearchParams({ intent: "replay" }) });
    expect(replay.status).toBe(303);
    expect(replay.headers.get("location")).toBe("/admin/pipeline?replayed=1");
    const audit = await t.db("admin_audit_log").where({ action: "pipeline.replay" });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ target_type: "pipeline", admin_name: "Health Admin" });
    // Back in the stream, read again by the worker, failed again: counted a second time.
    await expect.poll(async () => (await counts()).totals.failed, { timeout: 10_000 }).toBe(2);
    await expect.poll(async () => deadLetterCount(redis, pipeline.prefix), { timeout: 5_000 }).toBe(1);
    expect(await (await page("/admin/pipeline?replayed=1")).text()).toContain("1 failed job sent back to the queue.");

    // Nothing else to replay once it is back and failed again? It is failed again: a second replay works; an empty set is refused.
    await redis.del(deadLetterKey(pipeline.prefix));
    const nothing = await page("/admin/pipeline", adminToken, { method: "POST", body: new URLSearchParams({ intent: "replay" }) });
    expect(nothing.status).toBe(409);
    expect(await nothing.text()).toContain("No failed events to replay.");
    const bad = await page("/admin/pipeline", adminToken, { method: "POST", body: new URLSearchParams({ intent: "drop-everything" }) });
    expect(bad.status).toBe(400);
    expect(await t.db("admin_audit_log").where({ action: "pipeline.replay" })).toHaveLength(1);
    // A member cannot replay (sent home, nothing audited).
    const member = await page("/admin/pipeline", clientToken, { method: "POST", body: new URLSearchParams({ intent: "replay" }) });
    expect(member.status).toBe(302);
  });
});

describe("the stream's depth", () => {
  it("counts the stream's entries no worker has read as waiting, those a worker holds as being inserted, and the dead letters as failed", async () => {
    const prefix = `t_depth_${randomBytes(4).toString("hex")}`;
    const redis = createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: null });
    try {
      expect(await queueHealth(redis, prefix, Date.now())).toMatchObject({ waiting: 0, active: 0, failed: 0, lagMs: 0, oldestWaitingAt: null });
      // Entries appended before any worker made the group: all waiting, the first one the oldest.
      const first = await appendEntry(redis, prefix, [queuedEvent("pageview")]);
      await new Promise((r) => setTimeout(r, 5));
      const second = await appendEntry(redis, prefix, [queuedEvent("pageview"), queuedEvent("pageview")]);
      await appendEntry(redis, prefix, [queuedEvent("pageview")]);
      const firstAt = Number(first.split("-")[0]);
      const now = firstAt + 4_000;
      expect(await queueHealth(redis, prefix, now)).toMatchObject({ waiting: 3, active: 0, lagMs: 4_000, oldestWaitingAt: new Date(firstAt).toISOString() });
      // A worker reads one (held, not yet acknowledged): the oldest waiting is now the second.
      await redis.xgroup("CREATE", ingestStreamKey(prefix), INGEST_GROUP, "0");
      await redis.xreadgroup("GROUP", INGEST_GROUP, "someone", "COUNT", 1, "STREAMS", ingestStreamKey(prefix), ">");
      const secondAt = Number(second.split("-")[0]);
      expect(await queueHealth(redis, prefix, now)).toMatchObject({
        waiting: 2,
        active: 1,
        lagMs: now - secondAt,
        oldestWaitingAt: new Date(secondAt).toISOString(),
      });
      // The held one fails for good: a dead letter, no longer in the stream.
      await moveToDeadLetters(redis.multi(), prefix, [{ id: first, payload: "[]", reason: "refused" }]).exec();
      expect(await queueHealth(redis, prefix, now)).toMatchObject({ waiting: 2, active: 0, failed: 1 });
    } finally {
      await redis.del(ingestStreamKey(prefix), deadLetterKey(prefix));
      await redis.quit();
    }
  });
});
