/**
 * The reports' derived tables over time (app/analytics/rollups.server.ts, worker/rollups-job.server.ts): the
 * ingest names the days of late events, the builder job builds on its first round, a late event reaches
 * the reports after the rebuild, and a day keeps at most two built versions. The reports' figures on built
 * tables are tested in analytics-reports.test.ts and analytics-insights.test.ts.
 */
import { randomBytes } from "node:crypto";
import type { ClickHouseClient } from "@clickhouse/client";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickHouseOptions, createClickHouse } from "~/analytics/clickhouse.server";
import { appendEntry, ingestStreamKey } from "~/analytics/ingest-stream.server";
import { pageViews, userActivity } from "~/analytics/reports.server";
import { eventsOnly } from "~/analytics/rollup-sources.server";
import { buildRollups, lateDaysKey, markLate, takeLateDays } from "~/analytics/rollups.server";
import { getEnv, parseEnv } from "~/server/env.server";
import { createRedis } from "~/server/redis.server";
import { startIngest } from "../../worker/ingest-consumer.server";
import { ROLLUPS_QUEUE, startRollups } from "../../worker/rollups-job.server";
import { createTestClickHouseDatabase } from "../support/databases";
import { queuedEvent } from "../support/analytics-events";

const baseEnv = getEnv();
let database: string;
let clickhouse: ClickHouseClient;
let redis: Redis;

beforeAll(async () => {
  database = await createTestClickHouseDatabase("soko_rol");
  clickhouse = createClickHouse(clickHouseOptions(baseEnv, database));
  redis = createRedis(baseEnv.REDIS_URL, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  await clickhouse?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await clickhouse?.close();
  await redis?.quit();
});

const HOUR = 60 * 60 * 1000;
const iso = (ms: number) => new Date(ms).toISOString();
const day = (ms: number) => iso(ms).slice(0, 10);
const row = (id: number, at: number, page = "/") => ({
  event_id: `00000000-0000-4000-8000-${String(id).padStart(12, "0")}`,
  session_id: `rollup-${id}`,
  user_id: 0,
  event_time: iso(at).slice(0, 19).replace("T", " "),
  received_at: iso(at).slice(0, 19).replace("T", " "),
  platform: "web",
  ip: "",
  country: "Uganda",
  city: "",
  device: "mobile",
  browser: "Chrome",
  os: "Android",
  page,
  title: "",
  url: "",
  referrer: "",
});

const prefix = () => `soko_rol_${randomBytes(4).toString("hex")}`;

describe("the reports' derived tables over time", () => {
  it("the ingest names the day of an event whose hour may be built, and not the hour in progress", async () => {
    const p = prefix();
    // A database of its own: the next test counts every page view of its database.
    const own = await createTestClickHouseDatabase("soko_rol");
    const ownClient = createClickHouse(clickHouseOptions(baseEnv, own));
    const env = parseEnv({ ...process.env, QUEUE_PREFIX: p, CLICKHOUSE_DATABASE: own, INGEST_BATCH_MS: "50" });
    const ingest = await startIngest(env, { redis, clickhouse: ownClient });
    try {
      const now = Date.now();
      const late = now - 3 * 24 * HOUR; // three days ago: built long since
      await appendEntry(redis, p, [
        queuedEvent("pageview", { event_time: iso(late), received_at: iso(now) }),
        queuedEvent("pageview", { event_time: iso(now), received_at: iso(now) }),
      ]);
      await expect.poll(async () => redis.xlen(ingestStreamKey(p)), { timeout: 15_000 }).toBe(0);
      expect(await redis.smembers(lateDaysKey(p))).toEqual([day(late)]);
      expect(await takeLateDays(redis, p)).toEqual([day(late)]);
      expect(await redis.exists(lateDaysKey(p))).toBe(0);
    } finally {
      await ingest.close();
      await redis.del(ingestStreamKey(p));
      await ownClient.command({ query: `DROP DATABASE IF EXISTS ${own}` });
      await ownClient.close();
    }
  });

  it("markLate names only days of hours that ended two minutes ago", async () => {
    const p = prefix();
    const now = Date.parse("2026-03-15T12:01:00Z");
    await markLate(redis, p, ["2026-03-15 10:59:59", "2026-03-15 11:00:00", "2026-03-14 23:00:00"], now);
    // 12:01 − 2 min = 11:59: the last whole hour that ended is 10:00–11:00.
    expect((await takeLateDays(redis, p)).sort()).toEqual(["2026-03-14", "2026-03-15"]);
    await markLate(redis, p, ["2026-03-15 11:00:00", "2026-03-15 11:59:59"], now);
    expect(await takeLateDays(redis, p)).toEqual([]);
  });

  it("the builder job builds on its first round; a late event reaches the reports when its day is rebuilt; a day keeps two versions", async () => {
    const p = prefix();
    const env = parseEnv({ ...process.env, QUEUE_PREFIX: p, CLICKHOUSE_DATABASE: database });
    const yesterday = Date.parse(`${day(Date.now() - 24 * HOUR)}T10:00:00Z`);
    await clickhouse.insert({ table: "pageviews", values: [row(1, yesterday), row(2, yesterday + 60_000, "/search")], format: "JSONEachRow" });

    const job = await startRollups(env, redis, clickhouse);
    try {
      const built = async () =>
        (
          await (
            await clickhouse.query({ query: `SELECT count() AS n FROM rollup_builds WHERE day = toDate('${day(yesterday)}')`, format: "JSONEachRow" })
          ).json<{ n: string | number }>()
        )[0]!.n;
      await expect.poll(async () => Number(await built()), { timeout: 20_000 }).toBe(1);
    } finally {
      await job.close();
      const queue = new Queue(ROLLUPS_QUEUE, { connection: redis, prefix: p });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    // Yesterday is whole in the 7 days before now; its page views come from page_days and session_hours.
    expect((await pageViews(clickhouse, "7d")).total).toBe(2);

    // A late page view for a built hour: not in the built tables until its day is rebuilt.
    await clickhouse.insert({ table: "pageviews", values: [row(3, yesterday + 120_000, "/help")], format: "JSONEachRow" });
    expect((await pageViews(clickhouse, "7d")).total).toBe(2);
    await markLate(redis, p, [row(3, yesterday + 120_000).event_time]);
    const late = await takeLateDays(redis, p);
    expect(late).toEqual([day(yesterday)]);
    expect((await buildRollups(clickhouse, { dirty: late })).built.map((b) => b.day)).toEqual([day(yesterday)]);
    const report = await pageViews(clickhouse, "7d");
    expect(report.total).toBe(3);
    expect(report.pages.map((x) => x.page).sort()).toEqual(["/", "/help", "/search"]);

    // Nothing late, nothing behind: a round builds nothing. A third build leaves two versions of the day.
    expect((await buildRollups(clickhouse)).built.filter((b) => b.day === day(yesterday))).toEqual([]);
    await buildRollups(clickhouse, { dirty: [day(yesterday)] });
    for (const table of ["session_hours", "session_days", "page_days", "page_sessions", "page_hours", "click_days"]) {
      const versions = await (
        await clickhouse.query({ query: `SELECT DISTINCT version FROM ${table} WHERE day = toDate('${day(yesterday)}')`, format: "JSONEachRow" })
      ).json<{ version: string }>();
      expect(versions.length, table).toBeLessThanOrEqual(2);
    }
    const named = await (
      await clickhouse.query({ query: `SELECT count() AS n FROM rollup_builds WHERE day = toDate('${day(yesterday)}')`, format: "JSONEachRow" })
    ).json<{ n: string | number }>();
    expect(Number(named[0]!.n)).toBe(3);
    expect((await pageViews(clickhouse, "7d")).total).toBe(3);
  });
});

describe("a window that cuts a built day", () => {
  let cutDatabase: string;
  let cut: ClickHouseClient;
  beforeAll(async () => {
    cutDatabase = await createTestClickHouseDatabase("soko_rph");
    cut = createClickHouse(clickHouseOptions(baseEnv, cutDatabase));
  });
  afterAll(async () => {
    await cut?.command({ query: `DROP DATABASE IF EXISTS ${cutDatabase}` });
    await cut?.close();
  });

  it("counts the day's whole hours in the window from page_hours and its ragged hour from the events, as the events alone count them", async () => {
    const at = (time: string) => Date.parse(`2026-11-10T${time}Z`);
    const next = (time: string) => Date.parse(`2026-11-11T${time}Z`);
    const view = (id: number, ms: number, page: string, session: string) => ({ ...row(id, ms, page), session_id: session });
    await cut.insert({
      table: "pageviews",
      values: [
        view(1, at("00:20:00"), "/a", "s3"), // before the window
        view(2, at("02:50:00"), "/b", "s5"), // the window's ragged first hour: from the events
        view(3, at("03:30:00"), "/a", "s1"), // whole hours of the cut day: from page_hours
        view(4, at("10:15:00"), "/a", "s2"),
        view(5, at("10:40:00"), "/b", "s2"),
        view(6, next("09:00:00"), "/a", "s4"), // a whole day: from page_days
        view(7, next("12:00:00"), "/b", "s1"),
      ],
      format: "JSONEachRow",
    });
    const built = await buildRollups(cut, { now: new Date(Date.parse("2026-11-12T12:00:00Z")) });
    expect(built.built.map((b) => b.day)).toEqual(["2026-11-10", "2026-11-11"]);
    const hours = await (
      await cut.query({ query: "SELECT toString(hour) AS hour, page, toUInt32(views) AS views FROM page_hours ORDER BY hour, page", format: "JSONEachRow" })
    ).json();
    expect(hours).toEqual([
      { hour: "2026-11-10 00:00:00", page: "/a", views: 1 },
      { hour: "2026-11-10 02:00:00", page: "/b", views: 1 },
      { hour: "2026-11-10 03:00:00", page: "/a", views: 1 },
      { hour: "2026-11-10 10:00:00", page: "/a", views: 1 },
      { hour: "2026-11-10 10:00:00", page: "/b", views: 1 },
      { hour: "2026-11-11 09:00:00", page: "/a", views: 1 },
      { hour: "2026-11-11 12:00:00", page: "/b", views: 1 },
    ]);

    // (02:45 on the 10th, the end of the 11th]: the 10th is cut, the 11th whole.
    const window = { from: at("02:45:00") / 1000, to: Date.parse("2026-11-12T00:00:00Z") / 1000 - 1 };
    const expected = {
      total: 6,
      unique: 4, // s5, s1, s2, s4
      pages: [
        { page: "/a", views: 3, unique_views: 3 },
        { page: "/b", views: 3, unique_views: 3 },
      ],
    };
    expect(await pageViews(cut, window)).toEqual(expected);
    expect(await pageViews(eventsOnly(cut), window)).toEqual(expected);
  });
});

describe("sessions read whole from session_days", () => {
  let wholeDatabase: string;
  let whole: ClickHouseClient;
  beforeAll(async () => {
    wholeDatabase = await createTestClickHouseDatabase("soko_rsd");
    whole = createClickHouse(clickHouseOptions(baseEnv, wholeDatabase));
  });
  afterAll(async () => {
    await whole?.command({ query: `DROP DATABASE IF EXISTS ${wholeDatabase}` });
    await whole?.close();
  });

  it("reads a session whole only when all its events are in one build and the window, and puts every other one together from its pieces", async () => {
    const at = (time: string) => Date.parse(`2026-11-10T${time}Z`);
    const next = (time: string) => Date.parse(`2026-11-11T${time}Z`);
    let id = 0;
    const view = (ms: number, session: string) => ({ ...row(++id, ms, "/"), session_id: session });
    await whole.insert({
      table: "pageviews",
      values: [
        view(at("01:00:00"), "b1"), // before the window only
        view(at("02:30:00"), "b2"), // before the window …
        view(at("03:20:00"), "b2"), // … and in it: one page view in the window, a bounce
        view(at("02:50:00"), "e1"), // the window's ragged first hour, from the events …
        view(at("03:10:00"), "e1"), // … and a built hour: 1,200 s
        view(at("05:10:00"), "c1"), // confined to the 10th when it is built …
        view(at("05:12:00"), "c1"),
        view(at("07:50:00"), "c2"), // two hours of one day: whole, 1,800 s
        view(at("08:20:00"), "c2"),
        view(at("10:00:00"), "t1"), // a tab that comes back the next day: 82,800 s
        view(next("09:00:00"), "t1"),
        view(at("23:50:00"), "m1"), // across midnight: 1,200 s
        view(next("00:10:00"), "m1"),
        view(next("11:00:00"), "c3"), // confined to the 11th's build until its next page view, after the build
        view(next("12:40:00"), "p1"), // built time and the minutes after the build: 2,940 s
        view(next("13:29:00"), "p1"),
      ],
      format: "JSONEachRow",
    });
    const now = new Date(next("13:30:00"));
    expect((await buildRollups(whole, { now })).built.map((b) => [b.day, iso(b.builtTo * 1000)])).toEqual([
      ["2026-11-10", "2026-11-11T00:00:00.000Z"],
      ["2026-11-11", "2026-11-11T13:28:00.000Z"],
    ]);
    // After the builds: a late page view of c1 on the 11th, whose day is built again, then c3's next page view
    // after the build's end (its build holds c3 as confined).
    await whole.insert({ table: "pageviews", values: [view(next("06:00:00"), "c1")], format: "JSONEachRow" });
    // The 11th's build finds c1 on the 10th too, whose build still holds c1 as confined: the 10th is built again,
    // and named for the reports before the 11th's build is.
    expect((await buildRollups(whole, { now, dirty: ["2026-11-11"] })).built.map((b) => b.day)).toEqual(["2026-11-10", "2026-11-11"]);
    await whole.insert({ table: "pageviews", values: [view(next("13:29:30"), "c3")], format: "JSONEachRow" });

    const confined = await (
      await whole.query({
        query: `SELECT toString(day) AS d, session_id, confined FROM session_days
                WHERE (day, version) IN (SELECT day, max(version) FROM rollup_builds GROUP BY day) ORDER BY d, session_id`,
        format: "JSONEachRow",
      })
    ).json();
    expect(confined).toEqual([
      { d: "2026-11-10", session_id: "b1", confined: 1 },
      { d: "2026-11-10", session_id: "b2", confined: 1 },
      { d: "2026-11-10", session_id: "c1", confined: 0 },
      { d: "2026-11-10", session_id: "c2", confined: 1 },
      { d: "2026-11-10", session_id: "e1", confined: 1 },
      { d: "2026-11-10", session_id: "m1", confined: 0 },
      { d: "2026-11-10", session_id: "t1", confined: 0 },
      { d: "2026-11-11", session_id: "c1", confined: 0 },
      { d: "2026-11-11", session_id: "c3", confined: 1 },
      { d: "2026-11-11", session_id: "m1", confined: 0 },
      { d: "2026-11-11", session_id: "p1", confined: 0 },
      { d: "2026-11-11", session_id: "t1", confined: 0 },
    ]);

    // (02:45 on the 10th, now]: b2 (a bounce, 0 s), e1 1,200, c1 05:10 → 06:00 the next day 89,400, c2 1,800,
    // t1 82,800, m1 1,200, c3 11:00 → 13:29:30 8,970, p1 2,940: 8 sessions, 188,310 s, mean 23,538.75 → 23,539.
    const window = { from: at("02:45:00") / 1000, to: now.getTime() / 1000 };
    const expected = { sessions: 8, avgSessionDuration: 23_539, bounceRate: 0.125, devices: [{ device: "mobile", count: 8, percentage: 100 }] };
    expect(await userActivity(whole, window)).toEqual(expected);
    expect(await userActivity(eventsOnly(whole), window)).toEqual(expected);
    // 3 + 2 + 2 + 2 + 2 + 1 (b2) + 2 + 2 page views in the window. The 11th is whole in it: its confined c3 is
    // counted there, and also viewed the page after the build (events the report reads itself): one session.
    const pages = { total: 16, unique: 8, pages: [{ page: "/", views: 16, unique_views: 8 }] };
    expect(await pageViews(whole, window)).toEqual(pages);
    expect(await pageViews(eventsOnly(whole), window)).toEqual(pages);

    // From the start of the 10th both days are whole in the window: b1, b2, e1, c1, c2, t1, m1, c3, p1, with
    // 16 + 2 (b1, b2) page views; c2 (confined to the 10th) comes back on the 11th, late, and the 11th is built
    // again: the 10th, which held c2 as confined, first.
    await whole.insert({ table: "pageviews", values: [view(next("12:00:00"), "c2")], format: "JSONEachRow" });
    expect((await buildRollups(whole, { now, dirty: ["2026-11-11"] })).built.map((b) => b.day)).toEqual(["2026-11-10", "2026-11-11"]);
    const days = { from: at("00:00:00") / 1000 - 1, to: now.getTime() / 1000 };
    const both = { total: 19, unique: 9, pages: [{ page: "/", views: 19, unique_views: 9 }] };
    expect(await pageViews(whole, days)).toEqual(both);
    expect(await pageViews(eventsOnly(whole), days)).toEqual(both);
    expect(await userActivity(whole, days)).toEqual(await userActivity(eventsOnly(whole), days));
  });

  it("puts together a session confined to a day inside the window that came back in the minutes after the builds", async () => {
    // A fresh database: the 21st and the 23rd are the built hours' edges, the 22nd lies between them.
    const database = await createTestClickHouseDatabase("soko_rsm");
    const middle = createClickHouse(clickHouseOptions(baseEnv, database));
    try {
      const at = (day: number, time: string) => Date.parse(`2026-11-${day}T${time}Z`);
      const view = (n: number, ms: number, session: string) => ({ ...row(n, ms, "/"), session_id: session });
      await middle.insert({
        table: "pageviews",
        values: [view(1, at(21, "10:00:00"), "a"), view(2, at(22, "10:00:00"), "mid"), view(3, at(22, "10:05:00"), "mid"), view(4, at(23, "09:00:00"), "c")],
        format: "JSONEachRow",
      });
      const now = new Date(at(23, "12:00:00"));
      expect((await buildRollups(middle, { now })).built.map((b) => b.day)).toEqual(["2026-11-21", "2026-11-22", "2026-11-23"]);
      await middle.insert({ table: "pageviews", values: [view(5, at(23, "11:59:00"), "mid")], format: "JSONEachRow" });
      // a and c bounce; mid: 3 page views from 10:00 on the 22nd to 11:59 on the 23rd, 93,540 s; mean 31,180 s.
      const activity = { sessions: 3, avgSessionDuration: 31_180, bounceRate: 0.6667, devices: [{ device: "mobile", count: 3, percentage: 100 }] };
      expect(await userActivity(middle, "7d", { now })).toEqual(activity);
      expect(await userActivity(eventsOnly(middle), "7d", { now })).toEqual(activity);
      const pages = { total: 5, unique: 3, pages: [{ page: "/", views: 5, unique_views: 3 }] };
      expect(await pageViews(middle, "7d", { now })).toEqual(pages);
      expect(await pageViews(eventsOnly(middle), "7d", { now })).toEqual(pages);
    } finally {
      await middle.command({ query: `DROP DATABASE IF EXISTS ${database}` });
      await middle.close();
    }
  });

  it("counts once a confined session that went on after its build, however many there are", async () => {
    // 1,001 sessions view /many before the build and again after it: more than a report lists by id.
    const sessions = Array.from({ length: 1001 }, (_, i) => `many-${i}`);
    const at = (time: string) => Date.parse(`2026-11-20T${time}Z`);
    const view = (n: number, ms: number, session: string) => ({ ...row(n, ms, "/many"), session_id: session });
    await whole.insert({ table: "pageviews", values: sessions.map((s, i) => view(10_000 + i, at("11:00:00"), s)), format: "JSONEachRow" });
    const now = new Date(at("12:00:00"));
    expect((await buildRollups(whole, { now })).built.map((b) => b.day)).toContain("2026-11-20");
    await whole.insert({ table: "pageviews", values: sessions.map((s, i) => view(20_000 + i, at("11:59:00"), s)), format: "JSONEachRow" });
    const report = { total: 2002, unique: 1001, pages: [{ page: "/many", views: 2002, unique_views: 1001 }] };
    expect(await pageViews(whole, "1d", { now })).toEqual(report);
    expect(await pageViews(eventsOnly(whole), "1d", { now })).toEqual(report);
  });
});
