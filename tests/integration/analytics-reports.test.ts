/**
 * The report queries against a hand-made fixture in a fresh ClickHouse database. Every expected figure
 * below is worked out by hand from the fixture table (the comments show the sums), never computed by code.
 *
 * NOW = 2026-03-15 12:00:00 UTC, a whole hour. The windows are [NOW − N days, NOW] (from the start of the
 * hour N days before):
 *   1d  [2026-03-14 12:00:00, NOW]     7d  [2026-03-08 12:00:00, NOW]
 *   30d [2026-02-13 12:00:00, NOW]     90d [2025-12-15 12:00:00, NOW]
 *
 * Sessions (device, country) and what they did; "pv" = page view. A bounce is one pv and no interaction
 * (a click, form_submit or input_focus action); the tracker's passive actions (time_on_page, scroll, ...)
 * and conversions are not interactions. Conversions are those the server recorded (platform "server"):
 *   s1  desktop Uganda   03-15 10:00:00 pv /  (re-sent), 10:01:00 pv /search, 10:02:00 signup,
 *                        10:02:30 pv / again, 10:03:20 click /search (re-sent)           → 200 s, 3 pv
 *   s2  mobile  Kenya    03-15 11:00:00 pv /                                             → bounce
 *                        and, from a browser (platform web, never counted): order 9,999,999, signup,
 *                        package_selected; s1 has a browser package_selected too
 *   s3  mobile  Uganda   03-15 11:30:00 pv /gig/1, 11:30:20 scroll, 11:30:30 order 150,000 (re-sent),
 *                        11:30:40 time_on_page (unload)         → 40 s, a bounce: only passive actions
 *   s4  tablet  Unknown  03-15 12:00:00 pv / (= NOW, inside), 12:00:01 pv /search (future, outside)
 *   s5  desktop Kenya    03-14 11:59:59 pv /search + signup (just before the 1d edge, outside 1d), 12:00:01 pv /
 *   s12 desktop Uganda   03-15 11:44..11:54 one pv a minute: /about /categories /gig/1 /gig/2 /gig/3
 *                        /gig/4 /gig/5 /gig/6 /help /login /orders; 11:54:30 gig_published;
 *                        11:55:00 scroll (NOW − 5 min, outside "active")                → 660 s
 *   s13 desktop Uganda   03-15 11:40:00 pv /gig/2 — first recorded by the server without JavaScript under
 *                        the anonymous session "nj" (platform web-nojs), then re-sent by the tracker with
 *                        the same event id under s13; 11:40:30 click → 30 s, not a bounce (one pv + a click)
 *   s14 desktop Uganda   03-15 09:00:00 signup, and no page view or action at all
 *   s15 mobile  Uganda   03-15 11:55:01 click / (an action and no page view)
 *   s6  desktop Kenya    03-08 11:59:59 pv /gig/3 (just before the 7d edge, outside 7d)
 *   s7  mobile  Uganda   03-08 12:00:01 pv /search, 12:05:01 pv /gig/4, 12:06:01 form_submit + order 80,000 → 360 s
 *   s8  tablet  Unknown  02-13 11:59:59 pv / (just before the 30d edge, outside 30d)
 *   s9  mobile  Kenya    02-13 12:00:01 pv /login, 12:10:01 form_submit + signup → 600 s, not a bounce
 *   s10 desktop Uganda   2025-12-15 11:59:59 pv / + order 999,999 (just before the 90d edge, outside every range)
 *   s11 mobile  Unknown  2025-12-15 12:00:01 pv /help, 12:01:01 input_focus + order 20,000 → 60 s, not a bounce
 * Apart from that, 16 one-page sessions on 2025-05-31 in 13 countries test the top-10 cut of countries.
 */
import type { ClickHouseClient } from "@clickhouse/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Range } from "~/analytics/events";
import { parsePeriod } from "~/analytics/period";
import {
  activeUsers,
  browsers,
  conversions,
  countries,
  pageViews,
  periodWindow,
  realTime,
  referrers,
  sessionReport,
  traffic,
  userActivity,
} from "~/analytics/reports.server";
import { sources } from "~/analytics/rollup-sources.server";
import { buildRollups } from "~/analytics/rollups.server";
import { ENGINES } from "../support/clickhouse-engines";

const NOW = new Date("2026-03-15T12:00:00Z");
const RANGE_LIST: Range[] = ["1d", "7d", "30d", "90d"];

type Device = "desktop" | "mobile" | "tablet";
/** Browsers other than Chrome (every other session's browser). */
const BROWSERS: Record<string, string> = { s2: "Firefox", s3: "Opera Mini", s7: "Safari", s9: "Firefox" };
/** Referrers of page views, by event id (all others have none): the first page views of s1, s12, s7, s9, and s1's second. */
const REFERRERS: Record<number, string> = {
  1: "https://www.google.com/search?q=logo",
  2: "https://soko.example/",
  10: "https://facebook.com/groups/kampala-shops",
  23: "https://www.google.com/",
  26: "https://twitter.com/soko",
};
const SESSIONS: Record<string, { device: Device; country: string }> = {
  s1: { device: "desktop", country: "Uganda" },
  s2: { device: "mobile", country: "Kenya" },
  s3: { device: "mobile", country: "Uganda" },
  s4: { device: "tablet", country: "Unknown" },
  s5: { device: "desktop", country: "Kenya" },
  s6: { device: "desktop", country: "Kenya" },
  s7: { device: "mobile", country: "Uganda" },
  s8: { device: "tablet", country: "Unknown" },
  s9: { device: "mobile", country: "Kenya" },
  s10: { device: "desktop", country: "Uganda" },
  s11: { device: "mobile", country: "Unknown" },
  s12: { device: "desktop", country: "Uganda" },
  s13: { device: "desktop", country: "Uganda" },
  s14: { device: "desktop", country: "Uganda" },
  s15: { device: "mobile", country: "Uganda" },
};
/** The server's anonymous no-JavaScript session (day start ms + hash), replaced by s13 on re-send. */
const NOJS_SESSION = "1773532800000-0a1b2c3d4e5f";

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

function common(id: number, session: string, at: string, received = at) {
  const s = SESSIONS[session] ?? { device: "desktop", country: "Unknown" };
  return {
    event_id: uuid(id),
    session_id: session,
    user_id: 0,
    event_time: at,
    received_at: received,
    platform: "web",
    ip: "41.210.145.0",
    country: s.country,
    city: s.country === "Uganda" ? "Kampala" : "",
    device: s.device,
    browser: BROWSERS[session] ?? "Chrome",
    os: "Android",
  };
}
const pv = (id: number, session: string, at: string, page: string, received?: string) => ({
  ...common(id, session, at, received),
  page,
  title: `Soko ${page}`,
  url: `https://soko.example${page}`,
  referrer: REFERRERS[id] ?? "",
});
const act = (id: number, session: string, at: string, page: string, action_type: string, value = 0, received?: string) => ({
  ...common(id, session, at, received),
  action_type,
  page,
  element_id: "",
  element_class: "",
  element_tag: action_type === "click" ? "a" : "",
  element_text: "",
  x: 10,
  y: 20,
  value,
});
/** A conversion the server recorded (platform "server"): the only kind the reports count. */
const conv = (id: number, session: string, at: string, conversion_type: string, value: number, received?: string) => ({
  ...common(id, session, at, received),
  platform: "server",
  conversion_type,
  value,
  metadata: "{}",
});

const PAGEVIEWS = [
  pv(1, "s1", "2026-03-15 10:00:00", "/"),
  pv(2, "s1", "2026-03-15 10:01:00", "/search"),
  pv(3, "s1", "2026-03-15 10:02:30", "/"),
  pv(4, "s2", "2026-03-15 11:00:00", "/"),
  pv(5, "s3", "2026-03-15 11:30:00", "/gig/1"),
  pv(6, "s4", "2026-03-15 12:00:00", "/"),
  pv(7, "s4", "2026-03-15 12:00:01", "/search"),
  pv(8, "s5", "2026-03-14 11:59:59", "/search"),
  pv(9, "s5", "2026-03-14 12:00:01", "/"),
  pv(10, "s12", "2026-03-15 11:44:00", "/about"),
  pv(11, "s12", "2026-03-15 11:45:00", "/categories"),
  pv(12, "s12", "2026-03-15 11:46:00", "/gig/1"),
  pv(13, "s12", "2026-03-15 11:47:00", "/gig/2"),
  pv(14, "s12", "2026-03-15 11:48:00", "/gig/3"),
  pv(15, "s12", "2026-03-15 11:49:00", "/gig/4"),
  pv(16, "s12", "2026-03-15 11:50:00", "/gig/5"),
  pv(17, "s12", "2026-03-15 11:51:00", "/gig/6"),
  pv(18, "s12", "2026-03-15 11:52:00", "/help"),
  pv(19, "s12", "2026-03-15 11:53:00", "/login"),
  pv(20, "s12", "2026-03-15 11:54:00", "/orders"),
  { ...pv(21, "s13", "2026-03-15 11:40:00", "/gig/2"), session_id: NOJS_SESSION, platform: "web-nojs" },
  pv(22, "s6", "2026-03-08 11:59:59", "/gig/3"),
  pv(23, "s7", "2026-03-08 12:00:01", "/search"),
  pv(24, "s7", "2026-03-08 12:05:01", "/gig/4"),
  pv(25, "s8", "2026-02-13 11:59:59", "/"),
  pv(26, "s9", "2026-02-13 12:00:01", "/login"),
  pv(27, "s10", "2025-12-15 11:59:59", "/"),
  pv(28, "s11", "2025-12-15 12:00:01", "/help"),
];
/**
 * Sent again later, in another INSERT (so another part): the worker's at-least-once delivery, and the
 * tracker re-sending the server's no-JavaScript page view under its own session.
 */
const PAGEVIEW_RESENDS = [
  pv(1, "s1", "2026-03-15 10:00:00", "/", "2026-03-15 10:00:07"),
  pv(21, "s13", "2026-03-15 11:40:00", "/gig/2", "2026-03-15 11:40:05"),
];

const ACTIONS = [
  act(101, "s1", "2026-03-15 10:03:20", "/search", "click"),
  act(102, "s3", "2026-03-15 11:30:20", "/gig/1", "scroll", 50),
  // Sent at unload with the milliseconds spent on the page (11:30:00 → 11:30:40).
  act(109, "s3", "2026-03-15 11:30:40", "/gig/1", "time_on_page", 40_000),
  act(103, "s12", "2026-03-15 11:55:00", "/orders", "scroll", 100),
  act(104, "s13", "2026-03-15 11:40:30", "/gig/2", "click"),
  act(105, "s15", "2026-03-15 11:55:01", "/", "click"),
  act(106, "s7", "2026-03-08 12:06:01", "/gig/4", "form_submit"),
  act(107, "s9", "2026-02-13 12:10:01", "/login", "form_submit"),
  act(108, "s11", "2025-12-15 12:01:01", "/help", "input_focus"),
];
const ACTION_RESENDS = [act(101, "s1", "2026-03-15 10:03:20", "/search", "click", 0, "2026-03-15 10:03:29")];

const CONVERSIONS = [
  conv(201, "s1", "2026-03-15 10:02:00", "signup", 0),
  conv(202, "s3", "2026-03-15 11:30:30", "order_placed", 150_000),
  conv(203, "s12", "2026-03-15 11:54:30", "gig_published", 0),
  conv(204, "s5", "2026-03-14 11:59:59", "signup", 0),
  conv(205, "s7", "2026-03-08 12:06:01", "order_placed", 80_000),
  conv(206, "s9", "2026-02-13 12:10:01", "signup", 0),
  conv(207, "s10", "2025-12-15 11:59:59", "order_placed", 999_999),
  conv(208, "s11", "2025-12-15 12:01:01", "order_placed", 20_000),
  conv(209, "s14", "2026-03-15 09:00:00", "signup", 0),
];
const CONVERSION_RESENDS = [conv(202, "s3", "2026-03-15 11:30:30", "order_placed", 150_000, "2026-03-15 11:31:00")];
/**
 * What browsers sent (platform "web"), none of which any report counts: business conversions a browser
 * could post before the endpoint refused them (an order of 9,999,999 and a signup, in s2), and a step a
 * browser may still report (package_selected, in s2 and s1). s2 stays a session that did not convert.
 */
const BROWSER_CONVERSIONS = [
  { ...conv(210, "s2", "2026-03-15 11:00:10", "order_placed", 9_999_999), platform: "web" },
  { ...conv(211, "s2", "2026-03-15 11:00:20", "signup", 0), platform: "web" },
  { ...conv(212, "s2", "2026-03-15 11:00:30", "package_selected", 75_000), platform: "web" },
  { ...conv(213, "s1", "2026-03-15 10:01:30", "package_selected", 75_000), platform: "web" },
];

/** What the server recorded for members (user_actions): a sign-in inside the last 5 minutes, one before. */
const USER_ACTIONS = [
  { ...common(401, "s1", "2026-03-15 11:58:00"), user_id: 7, platform: "server", action: "signed_in", details: "{}", page: "/login" },
  { ...common(402, "s4", "2026-03-15 11:50:00"), user_id: 8, platform: "server", action: "signed_in", details: "{}", page: "/login" },
];

/** For the countries' top-10 cut: one page view per session on 2025-05-31, read with now = 2025-06-01. */
const COUNTRIES_NOW = new Date("2025-06-01T00:00:00Z");
const COUNTRY_SESSIONS = [
  "Uganda",
  "Uganda",
  "Uganda",
  "Kenya",
  "Kenya",
  "Zambia",
  "Unknown",
  "Tanzania",
  "South Sudan",
  "South Africa",
  "Rwanda",
  "Nigeria",
  "Ghana",
  "Ethiopia",
  "DR Congo",
  "Burundi",
];
const COUNTRY_PAGEVIEWS = COUNTRY_SESSIONS.map((country, i) => ({
  ...pv(300 + i, `c${i}`, `2025-05-31 ${String(8 + (i % 10)).padStart(2, "0")}:00:00`, "/"),
  country,
  device: "mobile",
}));

/**
 * Every report, three ways over the same fixture and the same hand-worked figures: straight from the events
 * (nothing built), and after the worker's builder has built the derived tables up to NOW (every day before
 * NOW's, and NOW's day up to 11:00; the rest is read from the events), on 18.16 and on a current ClickHouse.
 */
describe.each(ENGINES)("analytics reports ($name)", ({ engine, build }) => {
  let database: string;
  let admin: ClickHouseClient;
  let client: ClickHouseClient;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ client, admin, database, close } = await engine());
    // No background merge may remove the re-sent copies before the reports read them: the reports
    // themselves must count each event once.
    for (const table of ["pageviews", "actions", "conversions"]) {
      await admin.command({ query: `SYSTEM STOP MERGES ${database}.${table}` });
    }
    const insert = (table: string, values: object[]) => client.insert({ table, values, format: "JSONEachRow" });
    await insert("pageviews", [...PAGEVIEWS, ...COUNTRY_PAGEVIEWS]);
    await insert("actions", ACTIONS);
    await insert("conversions", [...CONVERSIONS, ...BROWSER_CONVERSIONS]);
    await insert("user_actions", USER_ACTIONS);
    await insert("pageviews", PAGEVIEW_RESENDS);
    await insert("actions", ACTION_RESENDS);
    await insert("conversions", CONVERSION_RESENDS);
    if (build) await buildRollups(client, { now: NOW });
  });

  afterAll(async () => {
    await close?.();
  });

  if (build) {
    it("built every day with events, NOW's day up to the whole minute two minutes before NOW", async () => {
      const built = await (
        await client.query({ query: "SELECT toString(day) AS day, toUInt32(built_to) AS until FROM rollup_builds ORDER BY day", format: "JSONEachRow" })
      ).json<{ day: string; until: number | string }>();
      expect(built.map((b) => [b.day, new Date(Number(b.until) * 1000).toISOString()])).toEqual([
        ["2025-05-31", "2025-06-01T00:00:00.000Z"],
        ["2025-12-15", "2025-12-16T00:00:00.000Z"],
        ["2026-02-13", "2026-02-14T00:00:00.000Z"],
        ["2026-03-08", "2026-03-09T00:00:00.000Z"],
        ["2026-03-14", "2026-03-15T00:00:00.000Z"],
        ["2026-03-15", "2026-03-15T11:58:00.000Z"],
      ]);
      // The 7-day window starts on a whole hour and reads it from session_hours: the events are read for the
      // two minutes before NOW (and the days without a build, which have no events).
      const window = periodWindow("7d", NOW);
      expect(window.from + 1).toBe(Date.parse("2026-03-08T12:00:00Z") / 1000);
      const from = await sources(client, window);
      expect(from.builtPieces).not.toBeNull();
      expect(from.raw).not.toContain(`toDateTime(${window.from + 1})`);
      expect(from.raw).toContain(
        `event_time >= toDateTime(${Date.parse("2026-03-09T00:00:00Z") / 1000}) AND event_time < toDateTime(${Date.parse("2026-03-14T00:00:00Z") / 1000})`,
      );
      expect(from.raw).toContain(`event_time >= toDateTime(${Date.parse("2026-03-15T11:58:00Z") / 1000}) AND event_time < toDateTime(${window.to + 1})`);
    });
  }

  it("keeps the re-sent copies as separate rows, so the reports have duplicates to remove", async () => {
    const counts = await (
      await client.query({
        query: `SELECT
          (SELECT count() FROM pageviews) AS pageviews, (SELECT uniqExact(event_id) FROM pageviews) AS pageview_ids,
          (SELECT count() FROM actions) AS actions, (SELECT count() FROM conversions) AS conversions`,
        format: "JSONEachRow",
      })
    ).json<Record<string, number>>();
    // 28 + 16 page views + 2 re-sent; 9 actions (101..109) + 1; 9 conversions + 1 + 4 from browsers.
    expect(counts).toEqual([{ pageviews: 46, pageview_ids: 44, actions: 10, conversions: 14 }]);
  });

  describe("pageViews", () => {
    const expected: Record<Range, object> = {
      // 1d: s1 3 (/, /search, /), s2 1, s3 1, s4 1 (12:00:01 is after NOW), s5 1 (only 12:00:01), s12 11,
      // s13 1 (the no-JS copy replaced) = 19; sessions s1 s2 s3 s4 s5 s12 s13 = 7.
      // "/" = s1 twice + s2 + s4 + s5 = 5 views by 4 sessions; /gig/1 = s3 + s12; /gig/2 = s12 + s13;
      // then the 1-view pages A to Z: /about /categories /gig/3 /gig/4 /gig/5 /gig/6 /help (/login /orders
      // /search are cut at 10).
      "1d": {
        total: 19,
        unique: 7,
        pages: [
          { page: "/", views: 5, unique_views: 4 },
          { page: "/gig/1", views: 2, unique_views: 2 },
          { page: "/gig/2", views: 2, unique_views: 2 },
          { page: "/about", views: 1, unique_views: 1 },
          { page: "/categories", views: 1, unique_views: 1 },
          { page: "/gig/3", views: 1, unique_views: 1 },
          { page: "/gig/4", views: 1, unique_views: 1 },
          { page: "/gig/5", views: 1, unique_views: 1 },
          { page: "/gig/6", views: 1, unique_views: 1 },
          { page: "/help", views: 1, unique_views: 1 },
        ],
      },
      // 7d: 19 + s5 /search (03-14 11:59:59) + s7 /search, /gig/4 = 22 (s6 just before the 03-08 edge is out);
      // sessions 7 + s7 = 8. /search = s1 + s5 + s7 = 3; /gig/4 = s12 + s7 = 2.
      "7d": {
        total: 22,
        unique: 8,
        pages: [
          { page: "/", views: 5, unique_views: 4 },
          { page: "/search", views: 3, unique_views: 3 },
          { page: "/gig/1", views: 2, unique_views: 2 },
          { page: "/gig/2", views: 2, unique_views: 2 },
          { page: "/gig/4", views: 2, unique_views: 2 },
          { page: "/about", views: 1, unique_views: 1 },
          { page: "/categories", views: 1, unique_views: 1 },
          { page: "/gig/3", views: 1, unique_views: 1 },
          { page: "/gig/5", views: 1, unique_views: 1 },
          { page: "/gig/6", views: 1, unique_views: 1 },
        ],
      },
      // 30d: 22 + s6 /gig/3 + s9 /login = 24 (s8 at the 02-13 edge is out); sessions 8 + s6 + s9 = 10.
      // /gig/3 = s12 + s6; /login = s12 + s9.
      "30d": {
        total: 24,
        unique: 10,
        pages: [
          { page: "/", views: 5, unique_views: 4 },
          { page: "/search", views: 3, unique_views: 3 },
          { page: "/gig/1", views: 2, unique_views: 2 },
          { page: "/gig/2", views: 2, unique_views: 2 },
          { page: "/gig/3", views: 2, unique_views: 2 },
          { page: "/gig/4", views: 2, unique_views: 2 },
          { page: "/login", views: 2, unique_views: 2 },
          { page: "/about", views: 1, unique_views: 1 },
          { page: "/categories", views: 1, unique_views: 1 },
          { page: "/gig/5", views: 1, unique_views: 1 },
        ],
      },
      // 90d: 24 + s8 / + s11 /help = 26 (s10 at the 12-15 edge is out); sessions 10 + s8 + s11 = 12.
      // "/" = 5 + s8 = 6 views by 5 sessions; /help = s12 + s11.
      "90d": {
        total: 26,
        unique: 12,
        pages: [
          { page: "/", views: 6, unique_views: 5 },
          { page: "/search", views: 3, unique_views: 3 },
          { page: "/gig/1", views: 2, unique_views: 2 },
          { page: "/gig/2", views: 2, unique_views: 2 },
          { page: "/gig/3", views: 2, unique_views: 2 },
          { page: "/gig/4", views: 2, unique_views: 2 },
          { page: "/help", views: 2, unique_views: 2 },
          { page: "/login", views: 2, unique_views: 2 },
          { page: "/about", views: 1, unique_views: 1 },
          { page: "/categories", views: 1, unique_views: 1 },
        ],
      },
    };
    it.each(RANGE_LIST)("%s: totals and the top 10 pages", async (range) => {
      expect(await pageViews(client, range, { now: NOW })).toEqual(expected[range]);
    });
  });

  describe("userActivity", () => {
    const expected: Record<Range, object> = {
      // 1d sessions: s1 s2 s3 s4 s5 s12 s13 s15 = 8 (the no-JS session "nj" became s13).
      // Durations 200 + 0 + 40 + 0 + 0 (s5 has only 12:00:01 in range) + 660 + 30 + 0 = 930; 930 / 8 = 116.25 → 116.
      // Bounces (1 pv, no click/form_submit/input_focus): s2 (no action at all), s3 (scroll and
      // time_on_page only; its order is a conversion, not an action), s4 (its 12:00:01 pv is after NOW),
      // s5 = 4 / 8 = 0.5. Not bounces: s1 (3 pv), s12 (11 pv), s13 (1 pv + a click), s15 (a click, no pv).
      // Devices: desktop s1 s5 s12 s13 = 4 (50%), mobile s2 s3 s15 = 3 (37.5%), tablet s4 = 1 (12.5%).
      "1d": {
        sessions: 8,
        avgSessionDuration: 116,
        bounceRate: 0.5,
        devices: [
          { device: "desktop", count: 4, percentage: 50 },
          { device: "mobile", count: 3, percentage: 37.5 },
          { device: "tablet", count: 1, percentage: 12.5 },
        ],
      },
      // 7d: + s7 = 9 sessions. s5 now lasts 2 s (11:59:59 → 12:00:01) and has 2 pv; s7 lasts 360 s.
      // 930 + 2 + 360 = 1292; 1292 / 9 = 143.6 → 144. Bounces s2, s3, s4 (s5 now has 2 pv, s7 has 2 pv)
      // = 3 / 9 = 0.33333 → 0.3333.
      // desktop 4 and mobile 4 (s2 s3 s15 s7) tie, A to Z: 4/9 = 44.4%; tablet 1/9 = 11.1%.
      "7d": {
        sessions: 9,
        avgSessionDuration: 144,
        bounceRate: 0.3333,
        devices: [
          { device: "desktop", count: 4, percentage: 44.4 },
          { device: "mobile", count: 4, percentage: 44.4 },
          { device: "tablet", count: 1, percentage: 11.1 },
        ],
      },
      // 30d: + s6 (0 s, a bounce) + s9 (600 s) = 11 sessions; 1292 + 600 = 1892; 1892 / 11 = 172.0 → 172.
      // Bounces s2 s3 s4 s6 (s9 has 1 pv + a form_submit: not a bounce) = 4 / 11 = 0.363636 → 0.3636.
      // desktop 5 (45.5%), mobile 5 (45.5%), tablet 1 (9.1%).
      "30d": {
        sessions: 11,
        avgSessionDuration: 172,
        bounceRate: 0.3636,
        devices: [
          { device: "desktop", count: 5, percentage: 45.5 },
          { device: "mobile", count: 5, percentage: 45.5 },
          { device: "tablet", count: 1, percentage: 9.1 },
        ],
      },
      // 90d: + s8 (0 s, a bounce) + s11 (60 s) = 13; 1892 + 60 = 1952; 1952 / 13 = 150.15 → 150.
      // Bounces s2 s3 s4 s6 s8 (s11 has 1 pv + an input_focus: not a bounce) = 5 / 13 = 0.384615 → 0.3846.
      // mobile 6 (46.2%), desktop 5 (38.5%), tablet 2 (15.4%).
      "90d": {
        sessions: 13,
        avgSessionDuration: 150,
        bounceRate: 0.3846,
        devices: [
          { device: "mobile", count: 6, percentage: 46.2 },
          { device: "desktop", count: 5, percentage: 38.5 },
          { device: "tablet", count: 2, percentage: 15.4 },
        ],
      },
    };
    it.each(RANGE_LIST)("%s: sessions, average duration, bounce rate and devices", async (range) => {
      expect(await userActivity(client, range, { now: NOW })).toEqual(expected[range]);
    });
  });

  describe("countries", () => {
    const expected: Record<Range, object> = {
      // 1d (8 sessions): Uganda s1 s3 s12 s13 s15 = 5 (62.5%), Kenya s2 s5 = 2 (25%), Unknown s4 = 1 (12.5%).
      "1d": [
        { country: "Uganda", users: 5, percentage: 62.5 },
        { country: "Kenya", users: 2, percentage: 25 },
        { country: "Unknown", users: 1, percentage: 12.5 },
      ],
      // 7d (9): Uganda + s7 = 6 (66.7%), Kenya 2 (22.2%), Unknown 1 (11.1%).
      "7d": [
        { country: "Uganda", users: 6, percentage: 66.7 },
        { country: "Kenya", users: 2, percentage: 22.2 },
        { country: "Unknown", users: 1, percentage: 11.1 },
      ],
      // 30d (11): Uganda 6 (54.5%), Kenya + s6 + s9 = 4 (36.4%), Unknown 1 (9.1%).
      "30d": [
        { country: "Uganda", users: 6, percentage: 54.5 },
        { country: "Kenya", users: 4, percentage: 36.4 },
        { country: "Unknown", users: 1, percentage: 9.1 },
      ],
      // 90d (13): Uganda 6 (46.2%), Kenya 4 (30.8%), Unknown + s8 + s11 = 3 (23.1%).
      "90d": [
        { country: "Uganda", users: 6, percentage: 46.2 },
        { country: "Kenya", users: 4, percentage: 30.8 },
        { country: "Unknown", users: 3, percentage: 23.1 },
      ],
    };
    it.each(RANGE_LIST)("%s: sessions by country", async (range) => {
      expect(await countries(client, range, { now: NOW })).toEqual(expected[range]);
    });

    it("shows the top 10 countries, ties A to Z, each as a share of all sessions", async () => {
      // 16 sessions: Uganda 3 (3/16 = 18.75 → 18.8%), Kenya 2 (12.5%), then 11 countries with 1 (6.25 → 6.3%)
      // A to Z: Burundi, DR Congo, Ethiopia, Ghana, Nigeria, Rwanda, South Africa, South Sudan — Tanzania,
      // Unknown and Zambia fall past the 10th row.
      expect(await countries(client, "1d", { now: COUNTRIES_NOW })).toEqual([
        { country: "Uganda", users: 3, percentage: 18.8 },
        { country: "Kenya", users: 2, percentage: 12.5 },
        { country: "Burundi", users: 1, percentage: 6.3 },
        { country: "DR Congo", users: 1, percentage: 6.3 },
        { country: "Ethiopia", users: 1, percentage: 6.3 },
        { country: "Ghana", users: 1, percentage: 6.3 },
        { country: "Nigeria", users: 1, percentage: 6.3 },
        { country: "Rwanda", users: 1, percentage: 6.3 },
        { country: "South Africa", users: 1, percentage: 6.3 },
        { country: "South Sudan", users: 1, percentage: 6.3 },
      ]);
    });
  });

  describe("conversions", () => {
    const expected: Record<Range, object> = {
      // 1d: signups s1 and s14; order s3 150,000 (sent twice, counted once); s12 gig_published; s5's signup
      // is at the 1d edge (out). Converting sessions s1 s3 s12 = 3 of the 8 sessions = 0.375 (s14 has no
      // page view or action, so it is not one of the range's sessions and not in the rate). The browser's
      // order of 9,999,999, signup and package_selected (s2) count nowhere.
      "1d": { signups: 2, orders: 1, revenue: 150_000, conversionRate: 0.375 },
      // 7d: + s5 signup, + s7 order 80,000: 3 signups, 2 orders, 230,000; s1 s3 s12 s5 s7 = 5 / 9 = 0.5556.
      "7d": { signups: 3, orders: 2, revenue: 230_000, conversionRate: 0.5556 },
      // 30d: + s9 signup: 4 signups; s1 s3 s12 s5 s7 s9 = 6 / 11 = 0.5455.
      "30d": { signups: 4, orders: 2, revenue: 230_000, conversionRate: 0.5455 },
      // 90d: + s11 order 20,000 (s10's 999,999 at the edge is out): 3 orders, 250,000; + s11 = 7 / 13 = 0.5385.
      "90d": { signups: 4, orders: 3, revenue: 250_000, conversionRate: 0.5385 },
    };
    it.each(RANGE_LIST)("%s: signups, orders, revenue and conversion rate", async (range) => {
      expect(await conversions(client, range, { now: NOW })).toEqual(expected[range]);
    });
  });

  describe("activeUsers", () => {
    it("counts sessions with a page view or action in (now − 5 min, now]", async () => {
      // (11:55:00, 12:00:00]: s4's pv at 12:00:00 and s15's click at 11:55:01; s12's scroll at 11:55:00 is out.
      expect(await activeUsers(client, { now: NOW })).toBe(2);
      // (11:55:01, 12:00:01]: only s4 (12:00:00 and 12:00:01); s15's 11:55:01 is now on the open edge.
      expect(await activeUsers(client, { now: new Date("2026-03-15T12:00:01Z") })).toBe(1);
      // (11:54:59, 11:59:59]: s12's scroll at 11:55:00 and s15; s4's 12:00:00 is in the future.
      expect(await activeUsers(client, { now: new Date("2026-03-15T11:59:59.900Z") })).toBe(2);
      // Long after the fixture: nobody.
      expect(await activeUsers(client, { now: new Date("2026-03-15T13:00:00Z") })).toBe(0);
    });
  });

  describe("browsers", () => {
    const expected: Record<Range, object> = {
      // 1d (8 sessions): Chrome s1 s4 s5 s12 s13 s15 = 6 (75%), Firefox s2 (12.5%), Opera Mini s3 (12.5%).
      "1d": [
        { name: "Chrome", count: 6, percentage: 75 },
        { name: "Firefox", count: 1, percentage: 12.5 },
        { name: "Opera Mini", count: 1, percentage: 12.5 },
      ],
      // 7d (9): + s7 Safari: Chrome 6 (66.7%), then the three 1s A to Z (11.1%).
      "7d": [
        { name: "Chrome", count: 6, percentage: 66.7 },
        { name: "Firefox", count: 1, percentage: 11.1 },
        { name: "Opera Mini", count: 1, percentage: 11.1 },
        { name: "Safari", count: 1, percentage: 11.1 },
      ],
      // 30d (11): + s6 Chrome, s9 Firefox: Chrome 7 (63.6%), Firefox 2 (18.2%), Opera Mini 1, Safari 1 (9.1%).
      "30d": [
        { name: "Chrome", count: 7, percentage: 63.6 },
        { name: "Firefox", count: 2, percentage: 18.2 },
        { name: "Opera Mini", count: 1, percentage: 9.1 },
        { name: "Safari", count: 1, percentage: 9.1 },
      ],
      // 90d (13): + s8, s11 Chrome: 9 (69.2%), Firefox 2 (15.4%), Opera Mini 1, Safari 1 (7.7%).
      "90d": [
        { name: "Chrome", count: 9, percentage: 69.2 },
        { name: "Firefox", count: 2, percentage: 15.4 },
        { name: "Opera Mini", count: 1, percentage: 7.7 },
        { name: "Safari", count: 1, percentage: 7.7 },
      ],
    };
    it.each(RANGE_LIST)("%s: sessions by browser", async (range) => {
      expect(await browsers(client, range, { now: NOW })).toEqual(expected[range]);
    });
  });

  describe("sessionReport", () => {
    it.each(RANGE_LIST)("%s: the same figures as userActivity, countries, browsers and the conversion rate, in one pass", async (range) => {
      const [activity, byCountry, byBrowser, converted] = await Promise.all([
        userActivity(client, range, { now: NOW }),
        countries(client, range, { now: NOW }),
        browsers(client, range, { now: NOW }),
        conversions(client, range, { now: NOW }),
      ]);
      expect(await sessionReport(client, range, { now: NOW })).toEqual({
        activity,
        countries: byCountry,
        browsers: byBrowser,
        conversionRate: converted.conversionRate,
      });
    });
    it("cuts the countries at 10 and answers zeros for an empty period, as the separate reports do", async () => {
      expect((await sessionReport(client, "1d", { now: COUNTRIES_NOW })).countries).toEqual(await countries(client, "1d", { now: COUNTRIES_NOW }));
      expect(await sessionReport(client, "90d", { now: new Date("2020-01-01T00:00:00Z") })).toEqual({
        activity: { sessions: 0, avgSessionDuration: 0, bounceRate: 0, devices: [] },
        countries: [],
        browsers: [],
        conversionRate: 0,
      });
    });
  });

  describe("referrers", () => {
    const expected: Record<Range, object> = {
      // 1d: the 7 sessions with a page view. s1's first (google, www. dropped; its second, from soko.example,
      // is not its first), s12's first (facebook); s2 s3 s4 s5 s13 came direct = 5 (71.4%); 1/7 = 14.3%.
      "1d": [
        { name: "Direct", count: 5, percentage: 71.4 },
        { name: "facebook.com", count: 1, percentage: 14.3 },
        { name: "google.com", count: 1, percentage: 14.3 },
      ],
      // 7d (8): + s7 from google: Direct 5 (62.5%), google.com 2 (25%), facebook.com 1 (12.5%).
      "7d": [
        { name: "Direct", count: 5, percentage: 62.5 },
        { name: "google.com", count: 2, percentage: 25 },
        { name: "facebook.com", count: 1, percentage: 12.5 },
      ],
      // 30d (10): + s6 direct, s9 from twitter: Direct 6 (60%), google 2 (20%), facebook 1, twitter 1 (10%).
      "30d": [
        { name: "Direct", count: 6, percentage: 60 },
        { name: "google.com", count: 2, percentage: 20 },
        { name: "facebook.com", count: 1, percentage: 10 },
        { name: "twitter.com", count: 1, percentage: 10 },
      ],
      // 90d (12): + s8, s11 direct: Direct 8 (66.7%), google 2 (16.7%), facebook 1, twitter 1 (8.3%).
      "90d": [
        { name: "Direct", count: 8, percentage: 66.7 },
        { name: "google.com", count: 2, percentage: 16.7 },
        { name: "facebook.com", count: 1, percentage: 8.3 },
        { name: "twitter.com", count: 1, percentage: 8.3 },
      ],
    };
    it.each(RANGE_LIST)("%s: sessions by the referrer of their first page view", async (range) => {
      expect(await referrers(client, range, { now: NOW })).toEqual(expected[range]);
    });
  });

  describe("traffic", () => {
    const at = (iso: string) => Date.parse(iso) / 1000;
    it("1d: 25 hourly buckets, the empty ones with zeros", async () => {
      const points = await traffic(client, "1d", { now: NOW });
      expect(points).toHaveLength(25);
      expect(points[0]!.at).toBe(at("2026-03-14T12:00:00Z"));
      expect(points[24]!.at).toBe(at("2026-03-15T12:00:00Z"));
      // 03-14 12h: s5's 12:00:01; 10h: s1's three; 11h: s2, s3, s12's 11 and s13 = 14 views by 4 sessions;
      // 12h: s4's 12:00:00. 1 + 3 + 14 + 1 = 19, the 1d total.
      expect(points.filter((p) => p.views > 0)).toEqual([
        { at: at("2026-03-14T12:00:00Z"), views: 1, sessions: 1 },
        { at: at("2026-03-15T10:00:00Z"), views: 3, sessions: 1 },
        { at: at("2026-03-15T11:00:00Z"), views: 14, sessions: 4 },
        { at: at("2026-03-15T12:00:00Z"), views: 1, sessions: 1 },
      ]);
    });
    it("7d: 8 daily buckets", async () => {
      // 03-08: s7's two (s6's 11:59:59 is before the window); 03-14: s5's two; 03-15: the other 18 of 1d's 19
      // by s1 s2 s3 s4 s12 s13. 2 + 2 + 18 = 22, the 7d total.
      const points = await traffic(client, "7d", { now: NOW });
      expect(points.map((p) => p.at)).toEqual([8, 9, 10, 11, 12, 13, 14, 15].map((d) => at(`2026-03-${String(d).padStart(2, "0")}T00:00:00Z`)));
      expect(points.map((p) => [p.views, p.sessions])).toEqual([
        [2, 1],
        [0, 0],
        [0, 0],
        [0, 0],
        [0, 0],
        [0, 0],
        [2, 1],
        [18, 6],
      ]);
    });
  });

  describe("a custom period", () => {
    it("covers its first and last day whole (UTC), both included", async () => {
      const parsed = parsePeriod(new URLSearchParams({ range: "custom", from: "2026-03-14", to: "2026-03-14" }));
      if (!parsed.ok || parsed.period.kind !== "custom") throw new Error("expected a custom period");
      // 03-14 00:00:00 .. 23:59:59: s5's two page views (11:59:59 and 12:00:01), nothing else.
      expect(await pageViews(client, parsed.period.window)).toEqual({
        total: 2,
        unique: 1,
        pages: [
          { page: "/", views: 1, unique_views: 1 },
          { page: "/search", views: 1, unique_views: 1 },
        ],
      });
      expect(await conversions(client, parsed.period.window)).toEqual({ signups: 1, orders: 0, revenue: 0, conversionRate: 1 });
      // 03-08 .. 03-15 whole days: the 7d figures plus s6's 03-08 11:59:59 page view and s4's 03-15 12:00:01
      // one (after NOW, but inside the day) = 24; sessions 9 + s6 = 10.
      const week = parsePeriod(new URLSearchParams({ range: "custom", from: "2026-03-08", to: "2026-03-15" }));
      if (!week.ok || week.period.kind !== "custom") throw new Error("expected a custom period");
      expect((await pageViews(client, week.period.window)).total).toBe(24);
      expect((await userActivity(client, week.period.window)).sessions).toBe(10);
    });

    it("refuses a window that is not whole seconds or runs backwards", () => {
      // A range starts at the top of the hour N days before now, that second included.
      expect(periodWindow("1d", new Date("2026-03-15T12:34:56.789Z"))).toEqual({
        from: Date.parse("2026-03-14T12:00:00Z") / 1000 - 1,
        to: Date.parse("2026-03-15T12:34:56Z") / 1000,
      });
      expect(() => periodWindow({ from: 10, to: 5 })).toThrow(/from before to/);
      expect(() => periodWindow({ from: 1.5, to: 5 })).toThrow(/whole seconds/);
    });
  });

  describe("realTime", () => {
    it("lists the last 5 minutes: active users, current pages and recent actions, newest first", async () => {
      // (11:55:00, 12:00:00]: s4's pv of / at 12:00:00; s15's click at 11:55:01; member 7's sign-in at 11:58
      // (member 8's at 11:50 is out, as is s12's scroll, which is not an interaction anyway).
      expect(await realTime(client, { now: NOW })).toEqual({
        activeUsers: 2,
        currentPages: [{ page: "/", users: 1 }],
        recentActions: [
          { userId: 7, sessionId: "s1", action: "signed in", page: "/login", at: Date.parse("2026-03-15T11:58:00Z") / 1000 },
          { userId: 0, sessionId: "s15", action: "click", page: "/", at: Date.parse("2026-03-15T11:55:01Z") / 1000 },
        ],
      });
      expect(await realTime(client, { now: new Date("2026-03-15T13:00:00Z") })).toEqual({ activeUsers: 0, currentPages: [], recentActions: [] });
    });
  });

  it("answers zeros, not NaN, for a range without events", async () => {
    const now = { now: new Date("2020-01-01T00:00:00Z") };
    expect(await pageViews(client, "90d", now)).toEqual({ total: 0, unique: 0, pages: [] });
    expect(await userActivity(client, "90d", now)).toEqual({
      sessions: 0,
      avgSessionDuration: 0,
      bounceRate: 0,
      devices: [],
    });
    expect(await countries(client, "90d", now)).toEqual([]);
    expect(await conversions(client, "90d", now)).toEqual({ signups: 0, orders: 0, revenue: 0, conversionRate: 0 });
  });

  it("refuses an unknown range or an invalid date before querying", async () => {
    await expect(pageViews(client, "2d" as Range, { now: NOW })).rejects.toThrow(/unknown report range "2d"/);
    await expect(userActivity(client, "1; DROP TABLE pageviews" as Range)).rejects.toThrow(/unknown report range/);
    await expect(countries(client, "toString" as Range)).rejects.toThrow(/unknown report range/);
    await expect(conversions(client, "7d", { now: new Date("not a date") })).rejects.toThrow(/valid date/);
    await expect(activeUsers(client, { now: new Date(Number.NaN) })).rejects.toThrow(/valid date/);
  });

  it("uses the current time when no `now` is given", async () => {
    // The fixture is in the past, with nothing in the last 5 minutes or the last day before today.
    expect(await activeUsers(client)).toBe(0);
    expect((await pageViews(client, "1d")).total).toBe(0);
  });
});
