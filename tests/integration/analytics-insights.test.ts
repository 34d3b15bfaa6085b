/**
 * The insight queries (heatmap, conversion funnel, user journey, a member's analytics) against a hand-made
 * fixture in a fresh ClickHouse database; every expected figure is worked out by hand below. Re-sent
 * copies (same event id, later received_at) are inserted with merges stopped, so "once" is the queries' doing.
 *
 * Heatmap, NOW = 2026-03-15 12:00 UTC, 7d = (03-08 12:00, NOW]; grid cells of 80 px, 16 columns, ≤ 60 rows.
 *   /gig/1 clicks: #1 (10,10) sent twice, #2 (70,79) → row 0 col 0 (2); #3 (85,10) → row 0 col 1;
 *   #4 (5000,170) → col 62 clamped to 15, row 2; #5 (100,4900) → col 1, row 61 clamped to 59 (60 rows);
 *   #6 (0,0) → no position; #7 a scroll at (10,10) (not a click); #8 (10,10) on 03-01 (outside 7d).
 *   #11 (20,20) from a desktop → row 0 col 0 (so 3 there; 2 on phones, 1 on desktops).
 *   /gig/2: #9 (20,20).
 * Funnel, NOW, 30d = (02-13 12:00, NOW]:
 *   f1 pv / → /gig/1 → /gig/1/order   visit, gig view, continue
 *   f2 pv /gig/2 + contact_seller       visit, gig view, continue
 *   f3 pv /gig/3                         visit, gig view
 *   f4 pv / → /messages                  visit (continues, but viewed no gig)
 *   f5 pv /search; f8 pv /gig/12/edit    visit
 *   f6 package_selected only             nothing (no page view)
 *   f7 pv /gig/4 on 02-01                outside
 *   server order_placed: f1 orders #1 (re-sent) and #4, f2 order #2, s9 order #3 (a session with no page view);
 *   a browser's order_placed in f2 (never counted); server order_paid (on the platform's own session) for
 *   #1 and #3, and one on 02-01 (outside)
 *   → sessions throughout: visits 6, gig views 3 (−50.0 %), contact 2 (−33.3 %), placed 2 (f1, f2: 0 %),
 *     paid 1 (f1: −50.0 %). Counted as orders, "placed" would be 4 of 2 sessions (a drop-off of −100 %).
 * Journey and member analytics of user 42, NOW_J = 2026-01-31 00:00, 30d = (01-01 00:00, NOW_J]:
 *   j1 mobile Chrome 01-10 10:00 pv /, 10:01 pv /gig/1, 10:05 order_placed 150,000 (server), 10:06 pv /orders
 *   j2 desktop Firefox 01-14 09:00 pv /dashboard, 09:00:30 click
 *   user 43's pv /gig/2 in j1 (not 42's); 42's pv /help on 2025-12-20 (outside)
 */
import http from "node:http";
import type { ClickHouseClient } from "@clickhouse/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickHouseOptions, createClickHouse } from "~/analytics/clickhouse.server";
import { clickedPages, conversionFunnel, heatmap, memberAnalytics, userJourney } from "~/analytics/insights.server";
import { buildRollups } from "~/analytics/rollups.server";
import { getEnv } from "~/server/env.server";
import { ENGINES } from "../support/clickhouse-engines";
import { createTestClickHouseDatabase, createTestDatabase, type TestDatabase } from "../support/databases";
import { createSession, createUser } from "../support/factories";
import { freePort, startTestServer, type TestServer } from "../support/test-server";

const NOW = new Date("2026-03-15T12:00:00Z");
const NOW_J = new Date("2026-01-31T00:00:00Z");

const uuid = (id: number) => `00000000-0000-4000-8000-${String(id).padStart(12, "0")}`;
function common(id: number, session: string, time: string, extra: Record<string, unknown> = {}) {
  return {
    event_id: uuid(id),
    session_id: session,
    user_id: 0,
    event_time: time,
    received_at: time,
    platform: "web",
    ip: "41.210.145.0",
    country: "Uganda",
    city: "Kampala",
    device: "mobile",
    browser: "Chrome",
    os: "Android",
    ...extra,
  };
}
const pv = (id: number, session: string, time: string, page: string, extra: Record<string, unknown> = {}) => ({
  ...common(id, session, time, extra),
  page,
  title: `Title of ${page}`,
  url: `https://soko.test${page}`,
  referrer: "",
});
const action = (id: number, session: string, time: string, page: string, type: string, x: number, y: number, extra: Record<string, unknown> = {}) => ({
  ...common(id, session, time, extra),
  action_type: type,
  page,
  element_id: "",
  element_class: "",
  element_tag: "button",
  element_text: "",
  x,
  y,
  value: 0,
});
const conv = (id: number, session: string, time: string, type: string, value: number, extra: Record<string, unknown> = {}, metadata: object = {}) => ({
  ...common(id, session, time, { platform: "server", ...extra }),
  conversion_type: type,
  value,
  metadata: JSON.stringify(metadata),
});
/** An order fact as the server writes its metadata. */
const order = (orderId: number) => ({ order_id: orderId, gig_id: 1, tier: "basic" });

const ACTIONS = [
  action(1, "h1", "2026-03-15 10:00:00", "/gig/1", "click", 10, 10),
  action(2, "h1", "2026-03-15 10:00:01", "/gig/1", "click", 70, 79),
  action(3, "h1", "2026-03-15 10:00:02", "/gig/1", "click", 85, 10),
  action(4, "h2", "2026-03-14 10:00:00", "/gig/1", "click", 5000, 170),
  action(5, "h2", "2026-03-14 10:00:01", "/gig/1", "click", 100, 4900),
  action(6, "h2", "2026-03-14 10:00:02", "/gig/1", "click", 0, 0),
  action(7, "h2", "2026-03-14 10:00:03", "/gig/1", "scroll", 10, 10),
  action(8, "h3", "2026-03-01 10:00:00", "/gig/1", "click", 10, 10),
  action(9, "h3", "2026-03-14 11:00:00", "/gig/2", "click", 20, 20),
  action(11, "h4", "2026-03-15 09:00:00", "/gig/1", "click", 20, 20, { device: "desktop" }),
  action(10, "j2", "2026-01-14 09:00:30", "/dashboard", "click", 40, 40, { user_id: 42, device: "desktop", browser: "Firefox" }),
];
const ACTION_RESENDS = [{ ...ACTIONS[0]!, received_at: "2026-03-15 10:05:00" }];

const PAGEVIEWS = [
  pv(101, "f1", "2026-03-10 09:00:00", "/"),
  pv(102, "f1", "2026-03-10 09:01:00", "/gig/1"),
  pv(103, "f1", "2026-03-10 09:02:00", "/gig/1/order"),
  pv(104, "f2", "2026-03-11 09:00:00", "/gig/2"),
  pv(105, "f3", "2026-03-12 09:00:00", "/gig/3"),
  pv(106, "f4", "2026-03-12 10:00:00", "/"),
  pv(107, "f4", "2026-03-12 10:01:00", "/messages"),
  pv(108, "f5", "2026-03-13 10:00:00", "/search"),
  pv(109, "f8", "2026-03-13 11:00:00", "/gig/12/edit"),
  pv(110, "f7", "2026-02-01 11:00:00", "/gig/4"),
  // The journey's.
  pv(201, "j1", "2026-01-10 10:00:00", "/", { user_id: 42 }),
  pv(202, "j1", "2026-01-10 10:01:00", "/gig/1", { user_id: 42 }),
  pv(204, "j1", "2026-01-10 10:06:00", "/orders", { user_id: 42 }),
  pv(205, "j2", "2026-01-14 09:00:00", "/dashboard", { user_id: 42, device: "desktop", browser: "Firefox" }),
  pv(206, "j1", "2026-01-10 10:02:00", "/gig/2", { user_id: 43 }),
  pv(207, "j0", "2025-12-20 10:00:00", "/help", { user_id: 42 }),
];
const CONVERSIONS = [
  conv(301, "f2", "2026-03-11 09:01:00", "contact_seller", 0, { platform: "web" }),
  conv(302, "f6", "2026-03-11 09:02:00", "package_selected", 75_000, { platform: "web" }),
  conv(303, "f1", "2026-03-10 09:03:00", "order_placed", 75_000, {}, order(1)),
  conv(304, "s9", "2026-03-11 09:03:00", "order_placed", 90_000, {}, order(3)),
  conv(305, "f2", "2026-03-11 09:04:00", "order_placed", 9_999_999, { platform: "web" }, order(2)),
  conv(306, "pay", "2026-03-11 09:05:00", "order_paid", 90_000, {}, order(3)),
  conv(307, "pay", "2026-02-01 09:05:00", "order_paid", 90_000, {}, order(9)),
  conv(308, "f1", "2026-03-10 09:04:00", "order_placed", 80_000, {}, order(4)),
  conv(309, "f2", "2026-03-11 09:04:30", "order_placed", 85_000, {}, order(2)),
  conv(310, "pay", "2026-03-10 09:06:00", "order_paid", 78_750, {}, order(1)),
  conv(203, "j1", "2026-01-10 10:05:00", "order_placed", 150_000, { user_id: 42 }),
];
const CONVERSION_RESENDS = [{ ...CONVERSIONS[2]!, received_at: "2026-03-10 09:10:00" }];

describe.each(ENGINES)("analytics insights ($name)", ({ engine, build }) => {
  let database: string;
  let admin: ClickHouseClient;
  let client: ClickHouseClient;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ client, admin, database, close } = await engine());
    for (const table of ["pageviews", "actions", "conversions"]) await admin.command({ query: `SYSTEM STOP MERGES ${database}.${table}` });
    const insert = (table: string, values: object[]) => client.insert({ table, values, format: "JSONEachRow" });
    await insert("pageviews", PAGEVIEWS);
    await insert("actions", ACTIONS);
    await insert("conversions", CONVERSIONS);
    await insert("actions", ACTION_RESENDS);
    await insert("conversions", CONVERSION_RESENDS);
    if (build) {
      const { built } = await buildRollups(client, { now: NOW });
      expect(built.length).toBeGreaterThan(0);
    }
  });
  afterAll(async () => {
    await close?.();
  });

  it("bins a page's clicks on the grid: each click once, far ones in the last column and row, no position apart", async () => {
    expect(await heatmap(client, "/gig/1", "7d", { now: NOW, device: "mobile" })).toEqual({
      page: "/gig/1",
      clicks: 5,
      unplaced: 1,
      rows: 60,
      columns: 16,
      cellPx: 80,
      cells: [
        { row: 0, col: 0, clicks: 2 },
        { row: 0, col: 1, clicks: 1 },
        { row: 2, col: 15, clicks: 1 },
        { row: 59, col: 1, clicks: 1 },
      ],
    });
    // All devices: the desktop's click too; 30 days take in #8 as well.
    expect(await heatmap(client, "/gig/1", "7d", { now: NOW })).toMatchObject({
      clicks: 6,
      unplaced: 1,
      cells: expect.arrayContaining([{ row: 0, col: 0, clicks: 3 }]),
    });
    expect((await heatmap(client, "/gig/1", "30d", { now: NOW })).cells[0]).toEqual({ row: 0, col: 0, clicks: 4 });
    expect(await heatmap(client, "/gig/1", "7d", { now: NOW, device: "desktop" })).toMatchObject({
      clicks: 1,
      unplaced: 0,
      rows: 10,
      cells: [{ row: 0, col: 0, clicks: 1 }],
    });
    await expect(heatmap(client, "/gig/1", "7d", { now: NOW, device: "fridge" as "mobile" })).rejects.toThrow(/unknown device/);
    // A page nobody clicked: an empty outline of 10 rows.
    expect(await heatmap(client, "/nowhere", "7d", { now: NOW })).toMatchObject({ clicks: 0, unplaced: 0, rows: 10, cells: [] });
    // Quotes in a page are data, not SQL.
    expect((await heatmap(client, "/gig/1'--", "7d", { now: NOW })).clicks).toBe(0);
    await expect(heatmap(client, "not a path", "7d", { now: NOW })).rejects.toThrow(/admin\.heatmap\.pageNotPath/);
    expect(await clickedPages(client, "7d", { now: NOW })).toEqual([
      { page: "/gig/1", clicks: 7 },
      { page: "/gig/2", clicks: 1 },
    ]);
  });

  it("counts every step of the conversion funnel in sessions, each a share of the one before, so no drop-off is negative", async () => {
    expect(await conversionFunnel(client, "30d", { now: NOW })).toEqual([
      { key: "visit", count: 6, dropOff: null },
      { key: "gig_view", count: 3, dropOff: 50 },
      { key: "contact", count: 2, dropOff: 33.3 },
      { key: "order_placed", count: 2, dropOff: 0 },
      { key: "paid", count: 1, dropOff: 50 },
    ]);
    // Nothing in the day before NOW: zeros, and no drop-off from nothing.
    expect((await conversionFunnel(client, "1d", { now: new Date("2026-03-01T00:00:00Z") })).map((s) => [s.count, s.dropOff])).toEqual([
      [0, null],
      [0, 0],
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
  });

  it("lists one member's sessions, latest first, each with its pages and conversions in order", async () => {
    expect(await userJourney(client, 42, "30d", { now: NOW_J })).toEqual([
      {
        sessionId: "j2",
        start: "2026-01-14T09:00:00.000Z",
        end: "2026-01-14T09:00:00.000Z",
        device: "desktop",
        browser: "Firefox",
        country: "Uganda",
        steps: [{ at: "2026-01-14T09:00:00.000Z", kind: "page", what: "/dashboard", detail: "Title of /dashboard" }],
      },
      {
        sessionId: "j1",
        start: "2026-01-10T10:00:00.000Z",
        end: "2026-01-10T10:06:00.000Z",
        device: "mobile",
        browser: "Chrome",
        country: "Uganda",
        steps: [
          { at: "2026-01-10T10:00:00.000Z", kind: "page", what: "/", detail: "Title of /" },
          { at: "2026-01-10T10:01:00.000Z", kind: "page", what: "/gig/1", detail: "Title of /gig/1" },
          { at: "2026-01-10T10:05:00.000Z", kind: "conversion", what: "order_placed", detail: "150000" },
          { at: "2026-01-10T10:06:00.000Z", kind: "page", what: "/orders", detail: "Title of /orders" },
        ],
      },
    ]);
    expect(await userJourney(client, 99, "30d", { now: NOW_J })).toEqual([]);
    await expect(userJourney(client, -1, "30d", { now: NOW_J })).rejects.toThrow(/positive whole number/);
  });

  it("sums up a member's own analytics: sessions, devices, browsers, pages and conversions", async () => {
    expect(await memberAnalytics(client, 42, "30d", { now: NOW_J })).toEqual({
      sessions: 2,
      pageViews: 4,
      clicks: 1,
      firstSeen: "2026-01-10T10:00:00.000Z",
      lastSeen: "2026-01-14T09:00:30.000Z",
      devices: [
        { device: "desktop", sessions: 1, percentage: 50 },
        { device: "mobile", sessions: 1, percentage: 50 },
      ],
      browsers: [
        { browser: "Chrome", sessions: 1, percentage: 50 },
        { browser: "Firefox", sessions: 1, percentage: 50 },
      ],
      pages: [
        { page: "/", views: 1 },
        { page: "/dashboard", views: 1 },
        { page: "/gig/1", views: 1 },
        { page: "/orders", views: 1 },
      ],
      conversions: [{ type: "order_placed", count: 1, value: 150_000 }],
    });
    expect(await memberAnalytics(client, 99, "30d", { now: NOW_J })).toMatchObject({
      sessions: 0,
      pageViews: 0,
      firstSeen: null,
      lastSeen: null,
      devices: [],
      pages: [],
    });
  });
});

/**
 * The screens, on the built server with a ClickHouse database of their own, with a few events of the last
 * hour (the screens' ranges end now): GET forms, their figures in tables, 400 beside a bad field, 404 for
 * an unknown member, and links that stay on the host (/admin/... on the main host, /... on the admin host).
 */
describe("analytics insight screens", () => {
  const env = getEnv();
  let t: TestDatabase;
  let database: string;
  let client: ClickHouseClient;
  let server: TestServer;
  let token: string;
  let memberId: number;

  const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString().slice(0, 19).replace("T", " ");

  beforeAll(async () => {
    t = await createTestDatabase();
    token = await createSession(t.db, (await createUser(t.db, { role: "admin", name: "Insight Admin", email: "insight-admin@example.ug" })).id);
    memberId = (await createUser(t.db, { role: "client", name: "Nakato Insight", email: "nakato-insight@example.ug" })).id;
    database = await createTestClickHouseDatabase("soko_inscr");
    client = createClickHouse(clickHouseOptions(env, database));
    const insert = (table: string, values: object[]) => client.insert({ table, values, format: "JSONEachRow" });
    await insert("actions", [
      action(1, "r1", ago(50), "/gig/5", "click", 10, 10, { user_id: memberId }),
      action(2, "r1", ago(49), "/gig/5", "click", 20, 30, { user_id: memberId }),
      action(3, "r1", ago(48), "/gig/5", "click", 90, 10, { user_id: memberId }),
    ]);
    await insert("pageviews", [
      pv(11, "r1", ago(51), "/", { user_id: memberId }),
      pv(12, "r1", ago(50), "/gig/5", { user_id: memberId }),
      pv(14, "r1", ago(46), "/gig/5/order"),
      pv(13, "r2", ago(40), "/search"),
    ]);
    await insert("conversions", [conv(21, "r1", ago(45), "order_placed", 75_000, { user_id: memberId })]);
    server = await startTestServer({ DATABASE_URL: t.url, CLICKHOUSE_DATABASE: database });
  });
  afterAll(async () => {
    await server?.stop();
    await client?.close();
    const admin = createClickHouse(clickHouseOptions(env, "default"));
    if (database) await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await admin.close();
    await t?.drop();
  });

  /** A GET as the admin, on either host (fetch cannot set Host; node:http can). */
  const get = (path: string, host: "main" | "admin" = "main") =>
    new Promise<Response>((resolve, reject) => {
      const headers = { Cookie: `soko_session=${token}`, Host: new URL(host === "admin" ? server.adminUrl : server.baseUrl).host };
      http
        .get({ host: "127.0.0.1", port: server.port, path, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const h = new Headers();
            for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(", ") : v);
            resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, headers: h }));
          });
        })
        .on("error", reject);
    });
  // The cells' data-label attributes (the column names shown on a phone's stacked cards) are left out.
  const text = (html: string) => html.replace(/<!-- -->/g, "").replace(/ data-label="[^"]*"/g, "");

  it("shows a page's heatmap with its hottest cells, and the most clicked pages", async () => {
    const res = await get(`/admin/heatmap?page=${encodeURIComponent("/gig/5")}&range=1d`);
    expect(res.status).toBe(200);
    const html = text(await res.text());
    expect(html).toContain("<td>0–79</td><td>0–79</td><td>2</td>");
    expect(html).toContain("<td>80–159</td><td>0–79</td><td>1</td>");
    expect(html).toContain("3 clicks with a position");
    expect(html).toContain(`href="/admin/heatmap?page=%2Fgig%2F5&amp;range=1d"`);
    // On the admin host the links have no /admin.
    const adminHost = text(await (await get(`/heatmap?range=7d`, "admin")).text());
    expect(adminHost).toContain(`href="/heatmap?page=%2Fgig%2F5&amp;range=7d"`);
    // Narrowed to desktops: none of the member's phone clicks.
    expect(text(await (await get(`/admin/heatmap?page=${encodeURIComponent("/gig/5")}&range=1d&device=desktop`)).text())).toContain("0 clicks with a position");
    const bad = await get("/admin/heatmap?page=gig&range=2y&device=fridge");
    expect(bad.status).toBe(400);
    const badHtml = text(await bad.text());
    expect(badHtml).toContain("Choose a device: all, mobile, tablet, desktop");
    expect(badHtml).toContain("A page is a path such as /gig/12");
    expect(badHtml).toContain("Choose a range: 1d, 7d, 30d, 90d");
  });

  it("shows the funnel's steps in a table", async () => {
    const html = text(await (await get("/admin/analytics/conversion-funnel")).text());
    expect(html).toContain('<th scope="row">Visit</th><td>2</td><td>—</td>');
    expect(html).toContain('<th scope="row">Gig view</th><td>1</td><td>50%</td>');
    expect(html).toContain('<th scope="row">Contact or continue</th><td>1</td><td>0%</td>');
    expect(html).toContain('<th scope="row">Order placed</th><td>1</td><td>0%</td>');
    expect((await get("/admin/analytics/conversion-funnel?range=5d")).status).toBe(400);
  });

  it("picks a member by id and shows their journey and their analytics", async () => {
    const picked = await get(`/admin/analytics/user-journey?user=${memberId}`);
    expect(picked.status).toBe(302);
    expect(picked.headers.get("location")).toBe(`/admin/analytics/user-journey/${memberId}?range=30d`);
    const html = text(await (await get(`/admin/analytics/user-journey/${memberId}`)).text());
    expect(html).toContain("Journey of Nakato Insight");
    expect(html.indexOf(">/</a>")).toBeLessThan(html.indexOf(">/gig/5</a>"));
    expect(html).toContain("Conversion: order placed");
    const wrong = await get("/admin/analytics/user-journey?user=abc");
    expect(wrong.status).toBe(400);
    expect(text(await wrong.text())).toContain("A member id is a whole number such as 12");
    expect((await get("/admin/analytics/user-journey/99999999")).status).toBe(404);

    const stats = text(await (await get(`/admin/users/${memberId}/analytics`)).text());
    expect(stats).toContain("Analytics of Nakato Insight");
    expect(stats).toContain("<dt>Sessions</dt><dd>1</dd>");
    expect(stats).toContain("<dt>Page views</dt><dd>2</dd>");
    expect(stats).toContain("<dt>Clicks</dt><dd>3</dd>");
    expect(stats).toContain("<td>order placed</td><td>1</td><td>75,000</td>");
    expect((await get("/admin/users/99999999/analytics")).status).toBe(404);
  });

  it("says which read failed, with 503, when ClickHouse does not answer", async () => {
    const down = await startTestServer({ DATABASE_URL: t.url, CLICKHOUSE_URL: `http://127.0.0.1:${await freePort()}` });
    try {
      for (const [path, message] of [
        ["/admin/heatmap?page=%2Fgig%2F5", "Failed to fetch heatmap data"],
        ["/admin/analytics/conversion-funnel", "Failed to fetch conversion funnel"],
        [`/admin/analytics/user-journey/${memberId}`, "Failed to fetch user journey"],
        [`/admin/users/${memberId}/analytics`, "Failed to fetch user analytics"],
      ] as const) {
        const res = await fetch(`${down.baseUrl}${path}`, { headers: { Cookie: `soko_session=${token}` } });
        expect(res.status, path).toBe(503);
        expect(await res.text(), path).toContain(message);
      }
      // Pipeline health shows what it can (the queue) and says what it cannot.
      const health = await fetch(`${down.baseUrl}/admin/pipeline`, { headers: { Cookie: `soko_session=${token}` } });
      expect(health.status).toBe(200);
      const html = await health.text();
      expect(html).toContain("The counters are unavailable: ClickHouse or Redis did not answer.");
      expect(html).toContain("Lag (oldest waiting events)");
    } finally {
      await down.stop();
    }
  });
});
