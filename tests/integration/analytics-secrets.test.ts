/**
 * No secret reaches ClickHouse through an address (ADR 007, "Addresses"). A password-reset link is
 * `/reset-password?token=…`: the server's own page view of it, and whatever a tracker sends about it (its
 * url, its referrer, the page of every kind of event), must be stored without the token. The built web
 * server, the worker (in this process) and ClickHouse (a database of this file) are all real; every stored
 * row is then read back whole and searched for the token. Runs the built app: `npm run build` first.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { ClickHouseClient } from "@clickhouse/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quoteList } from "~/analytics/clickhouse-sql.server";
import { TABLES } from "~/analytics/events";
import { hashToken } from "~/models/session.server";
import { startAnalyticsPipeline } from "../support/analytics-events";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createUser } from "../support/factories";
import { createAppToken } from "../support/api";
import type { TestServer } from "../support/test-server";

const ANDROID = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
/** The reset link's token: what must appear nowhere in ClickHouse. */
const SECRET = `SECRET${randomBytes(16).toString("hex")}`;
const SESSION_ID = "1764000000000-s3cr3t";

describe("recorded addresses keep no secret", () => {
  let t: TestDatabase;
  let pipeline: Awaited<ReturnType<typeof startAnalyticsPipeline>>;
  let server: TestServer;
  let clickhouse: ClickHouseClient;
  let appToken: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    const { id: userId } = await createUser(t.db, { name: "Sarah Nakku", username: "sarah_n", email: "sarah@example.ug" });
    appToken = await createAppToken(t.db, userId);
    // A real, unused reset link, so its page answers 200 (and the server records its page view).
    await t.db("password_resets").insert({ id: hashToken(SECRET), user_id: userId, expires_at: new Date(Date.now() + 3_600_000) });
    pipeline = await startAnalyticsPipeline({ DATABASE_URL: t.url }, { name: "anasec" });
    ({ server, clickhouse } = pipeline);
  });
  afterAll(async () => {
    await pipeline?.stop();
    await t?.drop();
  });

  /** A page as a browser asks for it; the id of the page view the server recorded (from its meta tag). */
  async function openPage(path: string, headers: Record<string, string> = {}): Promise<string> {
    const res = await fetch(`${server.baseUrl}${path}`, { headers: { Accept: "text/html", "User-Agent": ANDROID, ...headers } });
    expect(res.status, path).toBe(200);
    const meta = /<meta name="soko-pageview" content="([0-9a-f-]{36}) /.exec(await res.text());
    expect(meta, `the page view of ${path}`).not.toBeNull();
    return meta![1]!;
  }

  async function track(endpoint: string, events: Record<string, unknown>[], headers: Record<string, string> = {}) {
    const res = await fetch(`${server.baseUrl}/api/v1/analytics/${endpoint}`, {
      method: "POST",
      headers: { "Content-Type": "text/plain", "User-Agent": ANDROID, Origin: server.baseUrl, ...headers },
      body: JSON.stringify(events),
    });
    expect(res.status, `${endpoint}: ${await res.clone().text()}`).toBe(202);
  }

  const common = () => ({ event_id: randomUUID(), session_id: SESSION_ID, timestamp: Date.now(), platform: "web" });

  /** Every row of every table holding one of these ids, every column. */
  async function rowsOf(ids: string[]): Promise<Record<string, unknown>[]> {
    const rows: Record<string, unknown>[] = [];
    for (const table of new Set(Object.values(TABLES))) {
      const result = await clickhouse.query({
        query: `SELECT '${table}' AS table, * FROM ${table} WHERE toString(event_id) IN ${quoteList(ids)}`,
        format: "JSONEachRow",
      });
      rows.push(...(await result.json<Record<string, unknown>>()));
    }
    return rows;
  }

  it("stores the reset page, the reset link's referrers and every tracker field without the token; allowed keys survive", async () => {
    const reset = `/reset-password?token=${SECRET}`;
    const link = `${server.baseUrl}${reset}`;
    // The server's own page views: the reset link opened from a webmail (whose address holds the token
    // too), and a search whose query has a key /search does not take.
    const resetView = await openPage(reset, { "X-Forwarded-For": "41.210.145.12", Referer: `https://mail.example.ug/inbox/${SECRET}?t=${SECRET}` });
    const searchView = await openPage(`/search?q=logo&token=${SECRET}`, { Referer: link });

    // What a tracker sends, honest or not: a route change from the reset page, a signed-in page view, and
    // the page of an action, an error and a user action.
    const anonymous = { ...common(), action_type: "pageview", page: reset, title: "Choose a new password | Soko", url: `${link}#pw`, referrer: link };
    const search = {
      ...common(),
      action_type: "pageview",
      page: "/search",
      title: "logo | Search | Soko",
      url: `${server.baseUrl}/search?q=logo&sort=newest&token=${SECRET}`,
      referrer: link,
    };
    const click = { ...common(), action_type: "click", page: `${reset}#x`, element_tag: "button", x: 1, y: 2 };
    const error = { ...common(), action_type: "error", page: reset, error_message: "TypeError", error_stack: "at app.js:1:2" };
    await track("action", [anonymous, search, click, error]);
    const signedIn = { ...common(), page: reset, title: "Reset", url: link, referrer: `https://evil.example/${SECRET}?token=${SECRET}` };
    await track("pageview", [signedIn], { Authorization: `Bearer ${appToken}` });
    const userAction = { ...common(), action: "opened_reset_link", page: reset, details: { from: "mail" } };
    await track("user-action", [userAction], { Authorization: `Bearer ${appToken}` });

    const ids = [resetView, searchView, anonymous.event_id, search.event_id, click.event_id, error.event_id, signedIn.event_id, userAction.event_id];
    await expect.poll(async () => new Set((await rowsOf(ids)).map((r) => r.event_id)).size, { timeout: 15_000 }).toBe(ids.length);
    const rows = await rowsOf(ids);
    const byId = (id: string) => rows.find((r) => r.event_id === id);

    // Nowhere, in no column of any row.
    expect(JSON.stringify(rows)).not.toContain(SECRET);
    expect(JSON.stringify(rows)).not.toContain("token");

    expect(byId(resetView)).toMatchObject({
      table: "pageviews",
      page: "/reset-password",
      url: "/reset-password",
      referrer: "https://mail.example.ug",
      platform: "web-nojs",
    });
    expect(byId(searchView)).toMatchObject({ table: "pageviews", page: "/search", url: "/search?q=logo", referrer: `${server.baseUrl}/reset-password` });
    expect(byId(anonymous.event_id)).toMatchObject({
      table: "pageviews",
      page: "/reset-password",
      url: `${server.baseUrl}/reset-password`,
      referrer: `${server.baseUrl}/reset-password`,
    });
    expect(byId(search.event_id)).toMatchObject({ url: `${server.baseUrl}/search?q=logo&sort=newest` });
    expect(byId(signedIn.event_id)).toMatchObject({ table: "pageviews", url: `${server.baseUrl}/reset-password`, referrer: "https://evil.example" });
    expect(byId(click.event_id)).toMatchObject({ table: "actions", page: "/reset-password" });
    expect(byId(error.event_id)).toMatchObject({ table: "errors", page: "/reset-password" });
    expect(byId(userAction.event_id)).toMatchObject({ table: "user_actions", page: "/reset-password" });
  });
});
