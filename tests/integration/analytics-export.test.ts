/**
 * The analytics CSV export and the analytics screen, through the built server (JavaScript off) against a
 * fresh Postgres and ClickHouse database: admins only; the file's name and headers; every cell that could
 * start a formula escaped inside the CSV quoting; every export audited; bad parameters and periods over a
 * year refused with 400 and nothing audited; a cancelled download stops the ClickHouse query and the
 * server carries on. The screen shows a period's figures and refuses a bad period with the message by its
 * field.
 */
import http from "node:http";
import type { ClickHouseClient } from "@clickhouse/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickHouseOptions, createClickHouse } from "~/analytics/clickhouse.server";
import { getEnv } from "~/server/env.server";
import { createTestClickHouseDatabase, createTestDatabase, type TestDatabase } from "../support/databases";
import { createSession, createUser } from "../support/factories";
import { freePort, startTestServer, type TestServer } from "../support/test-server";

const env = getEnv();
let t: TestDatabase;
let database: string;
let admin: ClickHouseClient;
let client: ClickHouseClient;
let server: TestServer;
let adminCookie: string;
let memberCookie: string;
let adminId: number;

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
/** Seconds ago, as ClickHouse's DateTime text (UTC). */
const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString().slice(0, 19).replace("T", " ");
const today = () => new Date().toISOString().slice(0, 10);

/** Pages a visitor could make up (the tracker sends the path it sees): each starts with a formula character. */
const HOSTILE = ['=HYPERLINK("http://evil.example","x")', "+256700000000", "-1+1", "@SUM(A1:A9)", "\tcmd", "\rcmd"];

function pv(id: number, session: string, secondsAgo: number, page: string, extra: Record<string, unknown> = {}) {
  return {
    event_id: uuid(id),
    session_id: session,
    user_id: 0,
    event_time: ago(secondsAgo),
    received_at: ago(secondsAgo),
    platform: "web",
    ip: "41.210.145.0",
    country: "Uganda",
    city: "Kampala",
    device: "mobile",
    browser: "Chrome",
    os: "Android",
    page,
    title: "Soko",
    url: `https://soko.example${page}`,
    referrer: "",
    ...extra,
  };
}

/** The start (Unix seconds, UTC) of the day 40 days ago: the bulk page views' day. */
const BULK_DAY_START = Math.floor(Date.now() / 86_400_000) * 86_400 - 40 * 86_400;

beforeAll(async () => {
  t = await createTestDatabase();
  database = await createTestClickHouseDatabase("soko_exp");
  admin = createClickHouse(clickHouseOptions(env, "default"));
  client = createClickHouse(clickHouseOptions(env, database));
  const a = await createUser(t.db, { role: "admin", name: "Export Admin" });
  adminId = a.id;
  const m = await createUser(t.db, { name: "Plain Member" });
  adminCookie = `soko_session=${await createSession(t.db, a.id)}`;
  memberCookie = `soko_session=${await createSession(t.db, m.id)}`;
  // Two hours ago: s1 views /gig/1 then /search (from Google), s2 views /gig/1 and each hostile page.
  await client.insert({
    table: "pageviews",
    format: "JSONEachRow",
    values: [
      pv(1, "s1", 7200, "/gig/1", { referrer: "https://www.google.com/" }),
      pv(2, "s1", 7100, "/search", { title: "=cmd|' /C calc'!A0" }),
      pv(3, "s2", 7000, "/gig/1", { device: "desktop", browser: "Firefox", country: "Kenya" }),
      ...HOSTILE.map((page, i) => pv(10 + i, "s2", 6900 - i, page)),
    ],
  });
  await client.insert({
    table: "conversions",
    format: "JSONEachRow",
    values: [{ ...pv(50, "s1", 7050, ""), platform: "server", conversion_type: "order_placed", value: 150_000, metadata: "{}" }].map(
      ({ page: _p, title: _t, url: _u, referrer: _r, ...rest }) => rest,
    ),
  });
  // For the cancellation: 400,000 page views in the first hour of the day 40 days ago (within that day
  // whatever the time of the run), far more than one read of the socket.
  await admin.command({
    query: `INSERT INTO ${database}.pageviews (event_id, session_id, event_time, received_at, platform, page, title, url)
      SELECT generateUUIDv4(), concat('bulk-', toString(number % 5000)), toDateTime(${BULK_DAY_START}) + number % 3600,
        now(), 'web', concat('/bulk/', toString(number)), 'A bulk page title that makes each row longer', concat('https://soko.example/bulk/', toString(number))
      FROM numbers(400000)`,
  });
  server = await startTestServer({ DATABASE_URL: t.url, CLICKHOUSE_DATABASE: database });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await client?.close();
  if (database) await admin?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await admin?.close();
  await t?.drop();
});

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string };

/** A request as a visitor of one host (a Host header: Node's fetch cannot set one). */
function request(host: "main" | "admin", method: "GET" | "POST" | "HEAD", target: string, cookie?: string): Promise<Answer> {
  const origin = host === "admin" ? server.adminUrl : server.baseUrl;
  const headers: Record<string, string> = { Host: new URL(origin).host, Origin: origin };
  if (cookie) headers.Cookie = cookie;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, method, path: target, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text.replace(/<!-- -->/g, "") }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** RFC 4180 rows: quoted fields may hold commas, doubled quotes, CR and LF. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else cell += c;
  }
  if (cell !== "" || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

const auditRows = () => t.db("admin_audit_log").where({ action: "analytics.export" }).orderBy("id").select("admin_id", "target_type", "target_id", "details");

describe("the CSV export", () => {
  it("is for admins only, on both hosts", async () => {
    expect(await request("main", "GET", "/admin/analytics/export?range=7d&report=pages", memberCookie)).toMatchObject({
      status: 302,
      headers: { location: "/" },
    });
    expect((await request("admin", "GET", "/analytics/export?range=7d&report=pages", memberCookie)).status).toBe(403);
    expect((await request("main", "GET", "/admin/analytics/export?range=7d&report=pages")).headers.location).toMatch(/^\/login\?redirectTo=/);
    expect((await request("main", "POST", "/admin/analytics/export?range=7d", adminCookie)).status).toBe(405);
    expect(await auditRows()).toEqual([]);
  });

  it("downloads the page views as analytics-{range}-{date}.csv, with every formula cell escaped", async () => {
    const res = await request("main", "GET", "/admin/analytics/export?range=7d&report=pageviews", adminCookie);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(res.headers["content-disposition"]).toBe(`attachment; filename="analytics-7d-${today()}.csv"`);
    expect(res.headers["cache-control"]).toBe("no-store, no-transform");
    const rows = parseCsv(res.body);
    expect(rows[0]).toEqual(["time_utc", "session_id", "user_id", "page", "title", "url", "referrer", "country", "city", "device", "browser", "os"]);
    expect(rows).toHaveLength(1 + 3 + HOSTILE.length);
    const pages = rows.slice(1).map((r) => r[3]);
    expect(pages).toEqual(["/gig/1", "/search", "/gig/1", ...HOSTILE.map((p) => `'${p}`)]);
    // The title of /search started with "=", so it is escaped too; a plain title is not.
    expect(rows[2]![4]).toBe("'=cmd|' /C calc'!A0");
    expect(rows[1]![4]).toBe("Soko");
    // In the raw file the quote sits inside the CSV quoting, and the HYPERLINK's quotes are doubled.
    expect(res.body).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    // No unescaped cell starts with a formula character.
    for (const row of rows.slice(1)) for (const c of row) expect(c).not.toMatch(/^[=+\-@\t\r]/);
  });

  it("exports pages, sessions and conversions from the admin host too, and audits every export", async () => {
    const before = (await auditRows()).length;
    const pages = await request("admin", "GET", "/analytics/export?range=1d&report=pages&format=csv", adminCookie);
    expect(pages.status).toBe(200);
    expect(pages.headers["content-disposition"]).toBe(`attachment; filename="analytics-1d-${today()}.csv"`);
    const pageRows = parseCsv(pages.body);
    expect(pageRows[0]).toEqual(["page", "views", "unique_views"]);
    // /gig/1: s1 and s2; then 1-view pages A to Z by their text (escaped after sorting).
    expect(pageRows[1]).toEqual(["/gig/1", "2", "2"]);
    expect(pageRows).toHaveLength(1 + 2 + HOSTILE.length);

    const sessions = parseCsv((await request("main", "GET", "/admin/analytics/export?range=1d&report=sessions", adminCookie)).body);
    expect(sessions[0]).toEqual(["session_id", "started_utc", "pageviews", "interactions", "duration_seconds", "device", "country", "browser"]);
    expect(sessions.slice(1).map((r) => [r[0], r[2], r[4], r[5], r[6], r[7]])).toEqual([
      ["s1", "2", "100", "mobile", "Uganda", "Chrome"],
      ["s2", String(1 + HOSTILE.length), String(7000 - (6900 - HOSTILE.length + 1)), "desktop", "Kenya", "Firefox"],
    ]);

    const conversions = parseCsv((await request("main", "GET", "/admin/analytics/export?range=30d&report=conversions", adminCookie)).body);
    expect(conversions.map((r) => [r[1], r[3], r[4]])).toEqual([
      ["session_id", "conversion_type", "value"],
      ["s1", "order_placed", "150000"],
    ]);

    const custom = await request("main", "GET", `/admin/analytics/export?range=custom&from=2026-01-01&to=2026-01-31&report=actions`, adminCookie);
    expect(custom.status).toBe(200);
    expect(custom.headers["content-disposition"]).toBe(`attachment; filename="analytics-2026-01-01_2026-01-31-${today()}.csv"`);

    const audited = (await auditRows()).slice(before);
    expect(audited).toEqual([
      { admin_id: adminId, target_type: "analytics", target_id: "pages", details: { report: "pages", range: "1d" } },
      { admin_id: adminId, target_type: "analytics", target_id: "sessions", details: { report: "sessions", range: "1d" } },
      { admin_id: adminId, target_type: "analytics", target_id: "conversions", details: { report: "conversions", range: "30d" } },
      {
        admin_id: adminId,
        target_type: "analytics",
        target_id: "actions",
        details: { report: "actions", range: "custom", from: "2026-01-01", to: "2026-01-31" },
      },
    ]);
  });

  it("answers a HEAD with the headers alone: no export runs and nothing is audited", async () => {
    const before = (await auditRows()).length;
    const res = await request("main", "HEAD", "/admin/analytics/export?range=90d&report=pages", adminCookie);
    expect(res.status).toBe(200);
    expect(res.headers["content-disposition"]).toBe(`attachment; filename="analytics-90d-${today()}.csv"`);
    expect(res.body).toBe("");
    expect((await auditRows()).length).toBe(before);
  });

  it.each([
    ["range=2d&report=pages", /range: Choose a range/],
    ["range=7d&report=users", /report: choose one of pageviews, pages, sessions, actions, conversions/],
    ["range=custom&from=2025-01-01&to=2026-01-02&report=pages", /to: Choose at most one year/],
    ["range=custom&from=2026-02-01&to=2026-01-01&report=pages", /to: The last day must be on or after the first day/],
    ["range=custom&from=2026-02-31&to=2026-03-01&report=pages", /from: Enter the first day as a date/],
    ["range=custom&report=pages", /from: Enter the first day/],
    ["range=7d&report=pages&format=xlsx", /format: the export is CSV only/],
  ])("refuses %s with 400 and audits nothing", async (query, message) => {
    const before = (await auditRows()).length;
    const res = await request("main", "GET", `/admin/analytics/export?${query}`, adminCookie);
    expect(res.status).toBe(400);
    expect(res.body).toMatch(message);
    expect((await auditRows()).length).toBe(before);
  });

  it("stops the ClickHouse query when the admin cancels the download, and the server carries on", async () => {
    const day = new Date(BULK_DAY_START * 1000).toISOString().slice(0, 10);
    const target = `/admin/analytics/export?range=custom&from=${day}&to=${day}&report=pageviews`;
    const running = () =>
      admin
        .query({
          query: `SELECT count() AS n FROM system.processes WHERE query LIKE '%FORMAT CSVWithNames%' AND query NOT LIKE '%system.processes%'`,
          format: "JSONEachRow",
        })
        .then((r) => r.json<{ n: number }>())
        .then((rows) => Number(rows[0]?.n ?? 0));
    let received = 0;
    let cancel = () => {};
    await new Promise<void>((resolve, reject) => {
      const req = http.request(
        { host: "127.0.0.1", port: server.port, path: target, headers: { Host: new URL(server.baseUrl).host, Cookie: adminCookie } },
        (res) => {
          expect(res.statusCode).toBe(200);
          res.once("data", (chunk: Buffer) => {
            received += chunk.length;
            // The first bytes are here, and the admin stops reading: the pipe fills up back to ClickHouse.
            res.pause();
            cancel = () => req.destroy();
            resolve();
          });
        },
      );
      req.on("error", (error) => ((error as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(error)));
      req.end();
    });
    // While the download waits, its query is still running in ClickHouse (held back by the full pipe) …
    await expect.poll(running, { timeout: 10_000, interval: 100 }).toBe(1);
    await new Promise((r) => setTimeout(r, 500));
    expect(await running()).toBe(1);
    // … until the admin cancels it.
    cancel();
    expect(received).toBeGreaterThan(0);
    await expect.poll(running, { timeout: 10_000, interval: 100 }).toBe(0);
    // The server still answers, and a whole export of the same day still works (400,000 rows, no cap).
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    const whole = await request("main", "GET", target, adminCookie);
    expect(whole.status).toBe(200);
    expect(whole.body.split("\n").filter((line) => line !== "").length).toBe(1 + 400_000);
  }, 60_000);
});

describe("a slow download compressed for a browser", () => {
  it("arrives whole: gzip, read in bursts with pauses, 400,000 rows", async () => {
    const day = new Date(BULK_DAY_START * 1000).toISOString().slice(0, 10);
    const target = `/admin/analytics/export?range=custom&from=${day}&to=${day}&report=pageviews`;
    const { gunzipSync } = await import("node:zlib");
    const body = await new Promise<Buffer>((resolve, reject) => {
      const req = http.request(
        { host: "127.0.0.1", port: server.port, path: target, headers: { Host: new URL(server.baseUrl).host, Cookie: adminCookie, "Accept-Encoding": "gzip" } },
        (res) => {
          expect(res.headers["content-encoding"]).toBe("gzip");
          const chunks: Buffer[] = [];
          let n = 0;
          res.on("data", (chunk: Buffer) => {
            chunks.push(chunk);
            // Every 20th chunk the reader stops for a moment, so the server's response fills up and must wait.
            if (++n % 20 === 0) {
              res.pause();
              setTimeout(() => res.resume(), 50);
            }
          });
          res.on("end", () => resolve(Buffer.concat(chunks)));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end();
    });
    const lines = gunzipSync(body)
      .toString("utf8")
      .split("\n")
      .filter((line) => line !== "");
    expect(lines.length).toBe(1 + 400_000);
  }, 60_000);
});

describe("the analytics screen", () => {
  it("shows a period's figures, and with a bad period a 400 with the message by its field", async () => {
    const page = await request("admin", "GET", "/analytics?range=1d", adminCookie);
    expect(page.status).toBe(200);
    // 3 + 6 page views by 2 sessions; s1 (2 pv, 100 s) and s2 (7 pv, 105 s): average 103 s = 1m 43s.
    expect(page.body).toMatch(/<span class="stat-value">9<\/span> <span class="stat-label">Page views<\/span>/);
    expect(page.body).toMatch(/<span class="stat-value">2<\/span> <span class="stat-label">Sessions<\/span>/);
    expect(page.body).toContain("1m 43s");
    expect(page.body).toContain("google.com");
    expect(page.body).toContain("Firefox");
    expect(page.body).toContain("Download CSV");

    const bad = await request("main", "GET", "/admin/analytics?range=custom&from=2025-01-01&to=2026-06-01", adminCookie);
    expect(bad.status).toBe(400);
    expect(bad.body).toContain("Choose at most one year (366 days).");
    expect(bad.body).toContain('id="period-to-error"');

    expect((await request("main", "GET", "/admin/analytics", memberCookie)).status).toBe(302);
    expect((await request("admin", "GET", "/analytics", memberCookie)).status).toBe(403);
  });
});

describe("with ClickHouse down", () => {
  let down: TestServer;
  beforeAll(async () => {
    // Nothing listens on this port: every analytics query fails at once.
    down = await startTestServer({ DATABASE_URL: t.url, CLICKHOUSE_URL: `http://127.0.0.1:${await freePort()}` });
  }, 60_000);
  afterAll(async () => {
    await down?.stop();
  });

  it("says so: the analytics screen and the export answer 503, the dashboard keeps its business figures", async () => {
    const get = (path: string) => fetch(`${down.baseUrl}${path}`, { headers: { Cookie: adminCookie }, redirect: "manual" });
    const before = (await auditRows()).length;
    const analytics = await get("/admin/analytics?range=7d");
    expect(analytics.status).toBe(503);
    expect(await analytics.text()).toContain("Failed to fetch stats: analytics are unavailable right now. Try again in a minute.");
    const csv = await get("/admin/analytics/export?range=7d&report=pages");
    expect(csv.status).toBe(503);
    expect(await csv.text()).toContain("Failed to export analytics data: the analytics store is unavailable right now.");
    expect((await auditRows()).length).toBe(before);
    const dashboard = await get("/admin");
    expect(dashboard.status).toBe(200);
    const html = await dashboard.text();
    expect(html).toContain("Failed to fetch dashboard data from analytics");
    expect(html).toContain("the business figures above are up to date.");
    const realtime = await get("/admin/analytics?section=realtime");
    expect(realtime.status).toBe(503);
    expect(await realtime.text()).toContain("Failed to fetch realtime metrics");
    expect(html).toMatch(/<span class="stat-value">—<\/span> <span class="stat-label">Active users now<\/span>/);
  }, 30_000);
});
