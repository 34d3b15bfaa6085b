/**
 * The JSON API's admin figures (ADR 017, ADR 018, ADR 041), against the built server and a ClickHouse database
 * of this file's own: the dashboard, stats, the analytics reports, real time, the heatmap, the funnel, a member's
 * journey and analytics, each checked against the hand-made fixture below and the OpenAPI document; bad ranges
 * and parameters refused beside their field; the CSV export, byte for byte the admin screen's, audited; and
 * with ClickHouse away, 503 with Retry-After (the dashboard keeps its business figures).
 *
 * Fixture, times before now (so inside every range):
 *   s1     mobile, Uganda, Chrome: pv /gig/1 (2 h, from Google), pv /gig/1/order (1 h 59 m); clicks on /gig/1 at
 *          (10,10) → row 0 col 0, (100,100) → row 1 col 1, (0,0) → no position; the server's order_placed 150,000
 *   s2     desktop, Kenya, Firefox: pv /search (3 h): a bounce
 *   j1     member M, desktop, Uganda, Firefox: pv /dashboard (3 m), a click on it (2 m)
 *   live1  tablet, Rwanda, Chrome: pv /browse (1 m): a bounce
 *   → 5 page views, 4 sessions (2 bounced), 1 order of 150,000 (1 converting session of 4); active now: j1, live1;
 *     funnel: visits 4, gig views 1 (s1), continued 1, placed 1, paid 0.
 */
import type { ClickHouseClient } from "@clickhouse/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickHouseOptions, createClickHouse } from "~/analytics/clickhouse.server";
import { getEnv } from "~/server/env.server";
import { apiClient, createAppToken } from "../support/api";
import { createTestClickHouseDatabase } from "../support/databases";
import { createSession, createUser, type TestUser } from "../support/factories";
import { rowCount } from "../support/order-checks";
import { orderTestContext } from "../support/orders";
import { freePort, startTestServer, type TestServer } from "../support/test-server";

const t = orderTestContext("api_admin_an", { admin: { name: "Figures Admin" } });

let database: string;
let chAdmin: ClickHouseClient;
let server: TestServer;
let api: ReturnType<typeof apiClient>;
let adminToken: string;
let adminCookie: string;
let member: TestUser;

let address = 0;
const from = () => ({ "X-Forwarded-For": `203.0.113.${++address}` });
const asAdmin = (template: string, path: string) => api.call("get", template, path, { headers: from(), token: adminToken });

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
/** Seconds ago, as ClickHouse's DateTime text (UTC). */
const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString().slice(0, 19).replace("T", " ");

type Where = { device: string; country: string; browser: string; user_id?: number };
const S1: Where = { device: "mobile", country: "Uganda", browser: "Chrome" };
const S2: Where = { device: "desktop", country: "Kenya", browser: "Firefox" };
const LIVE: Where = { device: "tablet", country: "Rwanda", browser: "Chrome" };

function common(id: number, session: string, secondsAgo: number, where: Where) {
  return {
    event_id: uuid(id),
    session_id: session,
    user_id: 0,
    event_time: ago(secondsAgo),
    received_at: ago(secondsAgo),
    platform: "web",
    ip: "41.210.145.0",
    city: "",
    os: "Android",
    ...where,
  };
}
const pv = (id: number, session: string, secondsAgo: number, page: string, where: Where, referrer = "") => ({
  ...common(id, session, secondsAgo, where),
  page,
  title: `Title of ${page}`,
  url: `https://soko.example${page}`,
  referrer,
});
const click = (id: number, session: string, secondsAgo: number, page: string, x: number, y: number, where: Where) => ({
  ...common(id, session, secondsAgo, where),
  action_type: "click",
  page,
  element_id: "",
  element_class: "",
  element_tag: "button",
  element_text: "",
  x,
  y,
  value: 0,
});

beforeAll(async () => {
  member = await createUser(t.db, { name: "Journey Member" });
  const J1: Where = { device: "desktop", country: "Uganda", browser: "Firefox", user_id: member.id };
  database = await createTestClickHouseDatabase("soko_apiadm");
  chAdmin = createClickHouse(clickHouseOptions(getEnv(), "default"));
  const client = createClickHouse(clickHouseOptions(getEnv(), database));
  await client.insert({
    table: "pageviews",
    format: "JSONEachRow",
    values: [
      pv(1, "s1", 7200, "/gig/1", S1, "https://www.google.com/"),
      pv(2, "s1", 7140, "/gig/1/order", S1),
      pv(3, "s2", 10800, "/search", S2),
      pv(4, "j1", 180, "/dashboard", J1),
      pv(5, "live1", 60, "/browse", LIVE),
    ],
  });
  await client.insert({
    table: "actions",
    format: "JSONEachRow",
    values: [
      click(11, "s1", 7190, "/gig/1", 10, 10, S1),
      click(12, "s1", 7180, "/gig/1", 100, 100, S1),
      click(13, "s1", 7170, "/gig/1", 0, 0, S1),
      click(14, "j1", 120, "/dashboard", 50, 50, J1),
    ],
  });
  await client.insert({
    table: "conversions",
    format: "JSONEachRow",
    values: [
      {
        ...common(21, "s1", 7100, S1),
        platform: "server",
        conversion_type: "order_placed",
        value: 150_000,
        metadata: JSON.stringify({ order_id: 1, gig_id: 1, tier: "basic" }),
      },
    ],
  });
  await client.close();
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, CLICKHOUSE_DATABASE: database, TRUST_PROXY: "loopback" });
  api = apiClient(server.baseUrl);
  adminToken = await createAppToken(t.db, t.admin.id, { admin: true });
  adminCookie = `soko_session=${await createSession(t.db, t.admin.id)}`;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (database) await chAdmin?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await chAdmin?.close();
});

const exports = () => t.db("admin_audit_log").where({ action: "analytics.export" }).orderBy("id");

describe("GET /admin/dashboard", () => {
  it("answers the business figures from Postgres and the live behaviour from ClickHouse", async () => {
    const answer = await asAdmin("/admin/dashboard", "/admin/dashboard");
    expect(answer.status).toBe(200);
    const { business, behaviour } = answer.body.data;
    expect(business).toMatchObject({ totalUsers: await rowCount(t.db("users")), totalOrders: 0, totalRevenue: { ugx: 0 }, totalGigs: 0 });
    expect(behaviour.activeUsers).toBe(2);
    expect(behaviour.topCountries.map((c: { country: string }) => c.country)).toEqual(["Uganda", "Kenya", "Rwanda"]);
    expect(behaviour.conversionRate).toBe(0.25);
  });

  it("says recent activity by kind and in words", async () => {
    await t.db("activity").insert({ user_id: member.id, kind: "order_placed", details: "{}", created_at: new Date(Date.now() + 60_000) });
    const answer = await asAdmin("/admin/dashboard", "/admin/dashboard");
    expect(answer.body.data.recentActivity[0]).toMatchObject({ member: "Journey Member", kind: "order_placed", action: "placed an order" });
  });
});

describe("GET /admin/stats and /admin/analytics", () => {
  it("stats: the headline figures of the range (7d by default)", async () => {
    const answer = await asAdmin("/admin/stats", "/admin/stats");
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      range: "7d",
      pageViews: 5,
      uniqueVisitors: 4,
      sessions: 4,
      bounceRate: 0.5,
      conversions: { signups: 0, orders: 1, revenue: { ugx: 150_000 }, conversionRate: 0.25 },
    });
    const { from: start, to: end } = answer.body.data;
    expect(Date.parse(end) - Date.parse(start)).toBeGreaterThan(7 * 86_400_000);
    expect(Date.parse(end) - Date.parse(start)).toBeLessThanOrEqual(7 * 86_400_000 + 3_601_000);
  });

  it("analytics: the screen's reports of the range", async () => {
    const answer = await asAdmin("/admin/analytics", "/admin/analytics?range=1d");
    expect(answer.status).toBe(200);
    const r = answer.body.data;
    expect(r.range).toBe("1d");
    expect(r.pageViews).toMatchObject({ total: 5, unique: 4 });
    expect(r.pageViews.topPages.map((p: { page: string }) => p.page)).toEqual(["/browse", "/dashboard", "/gig/1", "/gig/1/order", "/search"]);
    expect(r.sessions).toMatchObject({ total: 4, bounceRate: 0.5 });
    expect(r.countries).toEqual([
      { country: "Uganda", sessions: 2, percentage: 50 },
      { country: "Kenya", sessions: 1, percentage: 25 },
      { country: "Rwanda", sessions: 1, percentage: 25 },
    ]);
    expect(r.conversions.orders).toBe(1);
    expect(r.traffic.interval).toBe("hour");
    expect(r.traffic.points.reduce((n: number, p: { views: number }) => n + p.views, 0)).toBe(5);
  });

  it("refuses a range that is not 1d, 7d, 30d or 90d beside query.range", async () => {
    for (const [template, path] of [
      ["/admin/stats", "/admin/stats?range=2d"],
      ["/admin/analytics", "/admin/analytics?range=custom"],
      ["/admin/analytics/conversion-funnel", "/admin/analytics/conversion-funnel?range=365d"],
    ]) {
      const answer = await asAdmin(template!, path!);
      expect(answer.status, path).toBe(400);
      expect(answer.body.issues["query.range"][0].message).toBe("range is one of 1d, 7d, 30d, 90d");
    }
  });
});

describe("real time", () => {
  it("GET /admin/analytics/realtime and /admin/realtime-metrics: the last 5 minutes, members by name", async () => {
    for (const [template, path] of [
      ["/admin/analytics/realtime", "/admin/analytics/realtime"],
      ["/admin/realtime-metrics", "/admin/realtime-metrics"],
    ]) {
      const answer = await asAdmin(template!, path!);
      expect(answer.status).toBe(200);
      expect(answer.body.data).toMatchObject({
        activeUsers: 2,
        currentPages: [
          { page: "/browse", sessions: 1 },
          { page: "/dashboard", sessions: 1 },
        ],
        recentActions: [{ member: { id: member.id, name: "Journey Member" }, sessionId: "j1", action: "click", page: "/dashboard" }],
      });
    }
  });
});

describe("GET /admin/heatmap", () => {
  it("bins a page's clicks and lists the most clicked pages", async () => {
    const answer = await asAdmin("/admin/heatmap", "/admin/heatmap?page=%2Fgig%2F1&range=7d");
    expect(answer.status).toBe(200);
    expect(answer.body.data.pages[0].page).toBe("/gig/1");
    expect(answer.body.data.heatmap).toEqual({
      page: "/gig/1",
      clicks: 2,
      unplaced: 1,
      rows: 10,
      columns: 16,
      cellPx: 80,
      cells: [
        { row: 0, col: 0, clicks: 1 },
        { row: 1, col: 1, clicks: 1 },
      ],
    });
    const none = await asAdmin("/admin/heatmap", "/admin/heatmap?device=mobile");
    expect(none.body.data.heatmap).toBeNull();
  });

  it("refuses a page that is not a path and an unknown device beside each", async () => {
    const answer = await asAdmin("/admin/heatmap", "/admin/heatmap?page=gig&device=watch");
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body.issues).sort()).toEqual(["query.device", "query.page"]);
    // The page's check carries a catalogue key; the answer says it in words.
    expect(answer.body.issues["query.page"][0].message).toBe("A page is a path such as /gig/12");
  });
});

describe("GET /admin/analytics/conversion-funnel", () => {
  it("counts sessions through each step (30d by default)", async () => {
    const answer = await asAdmin("/admin/analytics/conversion-funnel", "/admin/analytics/conversion-funnel");
    expect(answer.status).toBe(200);
    expect(answer.body.data.range).toBe("30d");
    expect(answer.body.data.steps.map((s: { sessions: number }) => s.sessions)).toEqual([4, 1, 1, 1, 0]);
    expect(answer.body.data.steps.map((s: { key: string; label: string }) => [s.key, s.label])).toEqual([
      ["visit", "Visit"],
      ["gig_view", "Gig view"],
      ["contact", "Contact or continue"],
      ["order_placed", "Order placed"],
      ["paid", "Paid"],
    ]);
    expect(answer.body.data.steps[0].dropOff).toBeNull();
    expect(answer.body.data.steps[1].dropOff).toBe(75);
  });
});

describe("a member's figures", () => {
  it("GET /admin/analytics/user-journey/{id}: their sessions and steps", async () => {
    const answer = await asAdmin("/admin/analytics/user-journey/{id}", `/admin/analytics/user-journey/${member.id}`);
    expect(answer.status).toBe(200);
    expect(answer.body.data.member).toEqual({ id: member.id, name: "Journey Member", email: member.email });
    expect(answer.body.data.sessions).toHaveLength(1);
    expect(answer.body.data.sessions[0]).toMatchObject({ sessionId: "j1", device: "desktop", browser: "Firefox", country: "Uganda" });
    expect(answer.body.data.sessions[0].steps).toEqual([expect.objectContaining({ kind: "page", what: "/dashboard", detail: "Title of /dashboard" })]);
  });

  it("GET /admin/users/{id}/analytics: their sessions, views, clicks, devices and pages", async () => {
    const answer = await asAdmin("/admin/users/{id}/analytics", `/admin/users/${member.id}/analytics?range=7d`);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      range: "7d",
      member: { id: member.id, role: "client" },
      sessions: 1,
      pageViews: 1,
      clicks: 1,
      devices: [{ device: "desktop", sessions: 1, percentage: 100 }],
      topPages: [{ page: "/dashboard", views: 1 }],
      conversions: [],
    });
  });

  it("an unknown member is 404; a bad id or range 400 beside it", async () => {
    for (const [template, path] of [
      ["/admin/analytics/user-journey/{id}", "/admin/analytics/user-journey/987654321"],
      ["/admin/users/{id}/analytics", "/admin/users/987654321/analytics"],
    ]) {
      const answer = await asAdmin(template!, path!);
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe("member.not_found");
    }
    const bad = await asAdmin("/admin/users/{id}/analytics", "/admin/users/abc/analytics?range=1y");
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.issues).sort()).toEqual(["path.id", "query.range"]);
  });
});

describe("GET /admin/analytics/export", () => {
  it("streams the screen's CSV, named analytics-{range}-{date}.csv, and audits the export", async () => {
    const before = (await exports()).length;
    const answer = await asAdmin("/admin/analytics/export", "/admin/analytics/export?range=7d");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const date = new Date().toISOString().slice(0, 10);
    expect(answer.headers.get("content-disposition")).toBe(`attachment; filename="analytics-7d-${date}.csv"`);
    const screen = await fetch(`${server.baseUrl}/admin/analytics/export?range=7d`, { headers: { Cookie: adminCookie } });
    expect(screen.status).toBe(200);
    const screenCsv = await screen.text();
    const csv: string = answer.body;
    expect(csv.split("\n")[0]).toBe(screenCsv.split("\n")[0]);
    expect(csv.split("\n")[0]).toBe('"time_utc","session_id","user_id","page","title","url","referrer","country","city","device","browser","os"');
    expect(csv).toBe(screenCsv);
    expect(csv.trim().split("\n")).toHaveLength(6);
    const rows = await exports();
    expect(rows.length).toBe(before + 2);
    expect(rows[before]).toMatchObject({ admin_id: t.admin.id, target_id: "pageviews", details: { report: "pageviews", range: "7d" } });
  });

  it("exports another report with the screen's header line", async () => {
    const answer = await asAdmin("/admin/analytics/export", "/admin/analytics/export?range=1d&report=pages&format=csv");
    expect(answer.status).toBe(200);
    const screen = await (await fetch(`${server.baseUrl}/admin/analytics/export?range=1d&report=pages`, { headers: { Cookie: adminCookie } })).text();
    expect(answer.body.split("\n")[0]).toBe(screen.split("\n")[0]);
    expect(answer.body.split("\n")[0]).toBe('"page","views","unique_views"');
  });

  it("refuses another format, range or report beside each, exporting and auditing nothing", async () => {
    const before = (await exports()).length;
    const answer = await asAdmin("/admin/analytics/export", "/admin/analytics/export?range=2d&format=xlsx&report=secrets");
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body.issues).sort()).toEqual(["query.format", "query.range", "query.report"]);
    expect(answer.body.issues["query.format"][0].message).toBe("format is csv, the only one (or leave it out)");
    expect((await exports()).length).toBe(before);
  });
});

describe("with ClickHouse away", () => {
  let down: TestServer;
  beforeAll(async () => {
    // Nothing listens on this port: every analytics query fails at once.
    down = await startTestServer({
      DATABASE_URL: t.url,
      QUEUE_PREFIX: t.queuePrefix,
      TRUST_PROXY: "loopback",
      CLICKHOUSE_URL: `http://127.0.0.1:${await freePort()}`,
    });
  }, 60_000);
  afterAll(async () => {
    await down?.stop();
  });

  it("reports are 503 with Retry-After, the dashboard keeps its business figures, an export is neither made nor audited", async () => {
    const away = apiClient(down.baseUrl);
    const get = (template: string, path: string) => away.call("get", template, path, { headers: from(), token: adminToken });
    const before = (await exports()).length;
    for (const [template, path] of [
      ["/admin/stats", "/admin/stats"],
      ["/admin/analytics/realtime", "/admin/analytics/realtime"],
      ["/admin/analytics/export", "/admin/analytics/export"],
      ["/admin/users/{id}/analytics", `/admin/users/${member.id}/analytics`],
    ]) {
      const answer = await get(template!, path!);
      expect(answer.status, path).toBe(503);
      expect(answer.body.code).toBe("limit.unavailable");
      expect(answer.headers.get("retry-after")).toBe("60");
    }
    const dashboard = await get("/admin/dashboard", "/admin/dashboard");
    expect(dashboard.status).toBe(200);
    expect(dashboard.body.data.behaviour).toBeNull();
    expect(dashboard.body.data.business.totalUsers).toBe(await rowCount(t.db("users")));
    expect((await exports()).length).toBe(before);
  });
});
