/**
 * The analytics reports (docs/product.md, Analytics), read from ClickHouse.
 *
 * Shared definitions, which the admin screens show beside the figures:
 * - **Range**: 1d, 7d, 30d or 90d; the window is [the start of the hour N days before now, now], to the second,
 *   in UTC: whole hours and the hour in progress, as the derived tables hold them (ADR 018: a window cut
 *   within an hour read that hour from the events on every report).
 * - **Event**: counted once per event id. Every query reads the tables `FINAL`, so a re-sent event (the
 *   worker delivers at least once; the tracker re-sends the server's no-JavaScript page view under its own
 *   session) is one row, the last one received; counts are also `uniqExact(event_id)`.
 * - **Session**: a session id with at least one page view or action in the window. Its device and
 *   country are those of its first event in the window.
 *
 * SQL that ClickHouse 18.16 and current ClickHouse both accept (docs/architecture.md): no query parameters; the
 * only values put into the SQL are the window's whole numbers of seconds, checked here, and the top pages
 * read back from ClickHouse, quoted by clickhouse-sql.server.ts (the rest is constant text of this module).
 * The inner `FINAL` selects
 * filter only on columns of the sorting key (event_time, action/conversion type), which every copy of an
 * event shares, so no filter can pick an older copy of a row; other filters run after de-duplication.
 */
import type { ClickHouseClient } from "@clickhouse/client";
import { z } from "zod";
import { RANGES, type Range } from "~/analytics/events";
import { quoteList } from "~/analytics/clickhouse-sql.server";
import { overSessions, PAGE_FIGURES, sources, windowSpan, type Sources } from "~/analytics/rollup-sources.server";
import { FACT, INTERACTION_SQL, SESSION_KEY, spansCondition } from "~/analytics/rollup-sql.server";

export type ReportOptions = { now?: Date };

export type PageViewsReport = {
  total: number;
  unique: number;
  pages: { page: string; views: number; unique_views: number }[];
};

export type UserActivityReport = {
  sessions: number;
  avgSessionDuration: number;
  bounceRate: number;
  devices: { device: string; count: number; percentage: number }[];
};

export type CountryRow = { country: string; users: number; percentage: number };

export type ConversionsReport = { signups: number; orders: number; revenue: number; conversionRate: number };

/** "Top pages" and "top countries" show this many rows. */
export const TOP_ROWS = 10;
/** Active users are sessions seen within this many seconds before now. */
export const ACTIVE_WINDOW_SECONDS = 5 * 60;
const DAY_SECONDS = 24 * 60 * 60;

/** A report window as whole Unix seconds: events with from < event_time <= to. */
export type ReportWindow = { from: number; to: number };

function toSeconds(now: Date | undefined): number {
  const ms = now === undefined ? Date.now() : now instanceof Date ? now.getTime() : Number.NaN;
  if (!Number.isFinite(ms)) throw new Error("report time must be a valid date");
  return Math.floor(ms / 1000);
}

/**
 * What a report covers: a named range ending at `now`, or a window of whole seconds (a custom from–to,
 * checked by `customWindow`).
 */
export type Period = Range | ReportWindow;

/** The window of a period: a range ending at `now`, or the window itself once checked. */
export function periodWindow(period: Period, now?: Date): ReportWindow {
  if (typeof period === "object" && period !== null) {
    if (!Number.isSafeInteger(period.from) || !Number.isSafeInteger(period.to) || period.from >= period.to) {
      throw new Error("report window must be whole seconds with from before to");
    }
    return { from: period.from, to: period.to };
  }
  return reportWindow(period, now);
}

/** The longest custom window the screens and the export accept (spec: at most one year). */
export const MAX_WINDOW_SECONDS = 366 * DAY_SECONDS;

/**
 * The window of a range ending at `now` (default: the current time): from the start of the hour N days
 * before, that second included, to `now`. Throws on an unknown range.
 */
export function reportWindow(range: Range, now?: Date): ReportWindow {
  if (typeof range !== "string" || !Object.hasOwn(RANGES, range)) {
    throw new Error(`unknown report range ${JSON.stringify(range)}: use one of ${Object.keys(RANGES).join(", ")}`);
  }
  const to = toSeconds(now);
  return { from: Math.floor(to / 3600) * 3600 - RANGES[range] * DAY_SECONDS - 1, to };
}

/**
 * The SQL condition of a window, for every module that reads events (reports, insights, the export): the
 * events after `from` up to and including `to`, which is the span [from + 1, to + 1) of whole seconds.
 */
export function inWindow(window: ReportWindow): string {
  if (!Number.isSafeInteger(window.from) || !Number.isSafeInteger(window.to)) throw new Error("report window must be whole seconds");
  return spansCondition([windowSpan(window)]);
}

/**
 * `query` over the sessions seen in the window (rollup-sql.server.ts SESSION_ROW_COLUMNS), its rows that share
 * `keys` added up (`overSessions`).
 */
async function perSessions<T extends z.ZodObject<z.ZodRawShape>>(
  client: ClickHouseClient,
  window: ReportWindow | Sources,
  query: (sessions: string) => string,
  row: T,
  keys: (keyof z.output<T> & string)[] = [],
): Promise<z.output<T>[]> {
  const from = "sessions" in window ? window : await sources(client, window);
  return overSessions(client, from, query, row, keys);
}

const uint = z.coerce.number().int().nonnegative();

async function select<T extends z.ZodTypeAny>(client: ClickHouseClient, query: string, row: T): Promise<z.output<T>[]> {
  const result = await client.query({ query, format: "JSONEachRow" });
  return z.array(row).parse(await result.json());
}

async function selectOne<T extends z.ZodTypeAny>(client: ClickHouseClient, query: string, row: T): Promise<z.output<T>> {
  const [first] = await select(client, query, row);
  if (first === undefined) throw new Error("ClickHouse returned no row for an aggregate query");
  return first;
}

/** Part of a whole in percent, one decimal place (halves up); 0 when the whole is 0. */
function percentage(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part * 1000) / whole) / 10;
}

/** Part of a whole as a share 0..1, four decimal places (halves up); 0 when the whole is 0. */
function share(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part * 10_000) / whole) / 10_000;
}

/**
 * Page views in the range.
 * - `total`: page views, each event counted once.
 * - `unique`: distinct sessions that viewed at least one page.
 * - `pages`: the 10 pages with the most views (ties by page name, A to Z), each with its views and the
 *   distinct sessions that viewed it (`unique_views`).
 */
/**
 * The top pages by views first (sums: the events need no de-duplication for them), then the unique views of
 * those 10 only, their events read for those pages only: merging every page's states of every day cost
 * seconds at 10M events, and reading every page's sessions from the events ~100 ms.
 */
async function topPages(client: ClickHouseClient, from: Sources): Promise<PageViewsReport["pages"]> {
  const top = await select(
    client,
    `SELECT page FROM (${from.views}) GROUP BY page ORDER BY sum(views) DESC, page ASC LIMIT ${TOP_ROWS}`,
    z.object({ page: z.string() }),
  );
  if (!top.length) return [];
  return select(
    client,
    `SELECT page, ${PAGE_FIGURES}
     FROM (${await from.pagesWhere(`page IN ${quoteList(top.map((r) => r.page))}`)})
     GROUP BY page
     ORDER BY views DESC, page ASC`,
    z.object({ page: z.string(), views: uint, unique_views: uint }),
  );
}

export async function pageViews(client: ClickHouseClient, range: Period, { now }: ReportOptions = {}): Promise<PageViewsReport> {
  const from = await sources(client, periodWindow(range, now));
  const [totals, pages] = await Promise.all([
    perSessions(
      client,
      from,
      (sessions) => `SELECT sum(pageview_count) AS total, countIf(pageview_count > 0) AS sessions FROM (${sessions})`,
      z.object({ total: uint, sessions: uint }),
    ).then(([row]) => row!),
    topPages(client, from),
  ]);
  return { total: totals.total, unique: totals.sessions, pages };
}

/**
 * Sessions in the range.
 * - `sessions`: sessions with a page view or an action in the range.
 * - `avgSessionDuration`: mean seconds from a session's first to its last page view or action within the
 *   range (a one-event session lasts 0 s), rounded to whole seconds.
 * - `bounceRate`: share (0..1, 4 decimals) of sessions that bounced: exactly one page view and no
 *   interaction, that is no `click`, `form_submit` or `input_focus` action. The actions the tracker sends
 *   on every page by itself (`time_on_page`, `page_focus`, `page_blur`, `scroll`) and `error` are not
 *   interactions, and neither is a conversion (a conversion is not an action). A session with an
 *   interaction but no page view is not a bounce. 0 with no sessions.
 * - `devices`: sessions by the device of their first event, most first (ties by name), with their
 *   percentage of all sessions (one decimal).
 */
export async function userActivity(client: ClickHouseClient, range: Period, { now }: ReportOptions = {}): Promise<UserActivityReport> {
  // One pass over the sessions, counted per device; the totals are the devices' sums.
  const rows = await perSessions(
    client,
    periodWindow(range, now),
    (sessions) => `SELECT session_device, count() AS sessions, sum(duration) AS seconds, countIf(pageview_count = 1 AND interaction_count = 0) AS bounces
     FROM (${sessions})
     GROUP BY session_device`,
    z.object({ session_device: z.string(), sessions: uint, seconds: uint, bounces: uint }),
    ["session_device"],
  );
  const sessions = rows.reduce((sum, r) => sum + r.sessions, 0);
  const seconds = rows.reduce((sum, r) => sum + r.seconds, 0);
  const bounces = rows.reduce((sum, r) => sum + r.bounces, 0);
  return {
    sessions,
    avgSessionDuration: sessions === 0 ? 0 : Math.round(seconds / sessions),
    bounceRate: share(bounces, sessions),
    devices: rows
      .map((r) => ({ key: r.session_device, count: r.sessions }))
      .sort(byCountThenName)
      .map((d) => ({ device: d.key, count: d.count, percentage: percentage(d.count, sessions) })),
  };
}

export async function countries(client: ClickHouseClient, range: Period, { now }: ReportOptions = {}): Promise<CountryRow[]> {
  // Every country comes back (a few hundred at most) so the percentages are of all sessions.
  const rows = await perSessions(
    client,
    periodWindow(range, now),
    (sessions) => `SELECT session_country, count() AS users FROM (${sessions}) GROUP BY session_country`,
    z.object({ session_country: z.string(), users: uint }),
    ["session_country"],
  );
  const all = rows.reduce((sum, r) => sum + r.users, 0);
  return rows
    .map((r) => ({ key: r.session_country, count: r.users }))
    .sort(byCountThenName)
    .slice(0, TOP_ROWS)
    .map((r) => ({ country: r.key, users: r.count, percentage: percentage(r.count, all) }));
}

/** Active users: distinct sessions with a page view or an action in the last 5 minutes, (now − 300 s, now]. */
export async function activeUsers(client: ClickHouseClient, { now }: ReportOptions = {}): Promise<number> {
  const to = toSeconds(now);
  const where = inWindow({ from: to - ACTIVE_WINDOW_SECONDS, to });
  const row = await selectOne(
    client,
    `SELECT uniqExact(session_id) AS sessions FROM (
       SELECT session_id FROM pageviews FINAL WHERE ${where}
       UNION ALL
       SELECT session_id FROM actions FINAL WHERE ${where}
     )`,
    z.object({ sessions: uint }),
  );
  return row.sessions;
}

/**
 * Conversions in the range, business facts only (see FACT).
 * - `signups`, `orders`: signup and order_placed conversions, each event counted once.
 * - `revenue`: the sum of the order_placed values, whole UGX.
 * - `conversionRate`: share (0..1, 4 decimals) of the range's sessions (as in userActivity) that recorded
 *   a signup, an order placed or a gig published in the range; 0 with no sessions. The steps a browser
 *   may report (`package_selected`, ...) are not conversions here.
 */
export async function conversions(client: ClickHouseClient, range: Period, { now }: ReportOptions = {}): Promise<ConversionsReport> {
  const window = periodWindow(range, now);
  const where = inWindow(window);
  const [totals, rate] = await Promise.all([
    selectOne(
      client,
      `SELECT
         uniqExactIf(event_id, conversion_type = 'signup' AND ${FACT}) AS signups,
         uniqExactIf(event_id, conversion_type = 'order_placed' AND ${FACT}) AS orders,
         sumIf(value, conversion_type = 'order_placed' AND ${FACT}) AS revenue
       FROM conversions FINAL WHERE ${where}`,
      z.object({ signups: uint, orders: uint, revenue: uint }),
    ),
    perSessions(
      client,
      window,
      (sessions) => `SELECT count() AS sessions, countIf(converted = 1) AS converting FROM (${sessions})`,
      z.object({ sessions: uint, converting: uint }),
    ).then(([row]) => row!),
  ]);
  return { ...totals, conversionRate: share(rate.converting, rate.sessions) };
}

export type ShareRow = { name: string; count: number; percentage: number };

/**
 * Browsers in the period: sessions by the browser of their first event (as devices in userActivity), most
 * first (ties by name), each with its percentage of all sessions (one decimal). Every browser is listed.
 */
export async function browsers(client: ClickHouseClient, range: Period, { now }: ReportOptions = {}): Promise<ShareRow[]> {
  const rows = await perSessions(
    client,
    periodWindow(range, now),
    (sessions) => `SELECT session_browser, count() AS sessions FROM (${sessions}) GROUP BY session_browser`,
    z.object({ session_browser: z.string(), sessions: uint }),
    ["session_browser"],
  );
  const all = rows.reduce((sum, r) => sum + r.sessions, 0);
  return rows
    .map((r) => ({ key: r.session_browser, count: r.sessions }))
    .sort(byCountThenName)
    .map((r) => ({ name: r.key || "Unknown", count: r.count, percentage: percentage(r.count, all) }));
}

/** The name a referrer shows under when the visitor came with none (typed the address, a bookmark, an app). */
export const DIRECT = "Direct";

/**
 * Referrers in the period: the sessions with a page view, by the host (`domain()`, with a leading `www.`
 * dropped) of the referrer of their first page view in the period; "Direct" when it had none. The 10
 * with the most sessions (ties by name); `percentage` is of all sessions with a page view (one decimal).
 */
export async function referrers(client: ClickHouseClient, range: Period, { now }: ReportOptions = {}): Promise<ShareRow[]> {
  const rows = await perSessions(
    client,
    periodWindow(range, now),
    (sessions) => `SELECT session_source AS source, count() AS sessions FROM (${sessions}) WHERE pageview_count > 0 GROUP BY source`,
    z.object({ source: z.string(), sessions: uint }),
    ["source"],
  );
  const all = rows.reduce((sum, r) => sum + r.sessions, 0);
  return rows
    .map((r) => ({ name: r.source || DIRECT, count: r.sessions, percentage: percentage(r.sessions, all) }))
    .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, TOP_ROWS);
}

export type TrafficPoint = { at: number; views: number; sessions: number };

/**
 * Page views and sessions (distinct sessions with a page view) per bucket over the period, for the chart:
 * hours for a window of up to two days, days (UTC) otherwise. Each bucket is named by its start (Unix
 * seconds, UTC); buckets without a page view are there with zeros, in order. A bucket counts the page
 * views of the window that fall in it (the first and last bucket may be cut by the window's edges).
 */
export async function traffic(client: ClickHouseClient, range: Period, { now }: ReportOptions = {}): Promise<TrafficPoint[]> {
  const window = periodWindow(range, now);
  const hourly = window.to - window.from <= 2 * DAY_SECONDS;
  const step = hourly ? 3600 : DAY_SECONDS;
  const bucket = hourly ? "hour" : "toStartOfDay(hour)";
  const { pieces } = await sources(client, window);
  const rows = await select(
    client,
    `SELECT toUInt32(${bucket}) AS at, sum(pageviews) AS views, uniqExactIf(${SESSION_KEY}, pageviews > 0) AS sessions
     FROM (${pieces})
     GROUP BY at HAVING views > 0 ORDER BY at`,
    z.object({ at: uint, views: uint, sessions: uint }),
  );
  const found = new Map(rows.map((r) => [r.at, r]));
  // The first bucket holds the window's first second (from + 1, as the window is open at `from`).
  const first = Math.floor((window.from + 1) / step) * step;
  const points: TrafficPoint[] = [];
  for (let at = first; at <= window.to; at += step) points.push(found.get(at) ?? { at, views: 0, sessions: 0 });
  return points;
}

export type RealTimeReport = {
  activeUsers: number;
  currentPages: { page: string; users: number }[];
  recentActions: { userId: number; sessionId: string; action: string; page: string; at: number }[];
};

/** How many current pages and recent actions the real-time report lists. */
export const REALTIME_ROWS = 10;

/**
 * Real time, over the last 5 minutes, (now − 300 s, now]:
 * - `activeUsers`: as activeUsers.
 * - `currentPages`: the pages viewed in the window, by the distinct sessions that viewed each, most first
 *   (ties by page), at most 10.
 * - `recentActions`: the 10 latest of the window's interactions (click, form_submit, input_focus, named
 *   "click", "form submit", "input focus") and the actions the server recorded for a member (user_actions:
 *   sign-ins, orders, …, by their name), newest first (ties by event id); `userId` 0 is a visitor.
 *   `at` is Unix seconds.
 */
export async function realTime(client: ClickHouseClient, { now }: ReportOptions = {}): Promise<RealTimeReport> {
  const to = toSeconds(now);
  const where = inWindow({ from: to - ACTIVE_WINDOW_SECONDS, to });
  const [active, currentPages, recentActions] = await Promise.all([
    activeUsers(client, { now: new Date(to * 1000) }),
    select(
      client,
      `SELECT page, uniqExact(session_id) AS users FROM pageviews FINAL WHERE ${where}
       GROUP BY page ORDER BY users DESC, page ASC LIMIT ${REALTIME_ROWS}`,
      z.object({ page: z.string(), users: uint }),
    ),
    select(
      client,
      // No expression takes the name of a column it reads (a current ClickHouse may see a cycle).
      `SELECT user_id, session_id, what, page, toUInt32(event_time) AS at, id FROM (
         SELECT user_id, session_id, replaceAll(CAST(action_type AS String), '_', ' ') AS what, page, event_time,
           toString(event_id) AS id
         FROM actions FINAL WHERE ${where} AND action_type IN (${INTERACTION_SQL})
         UNION ALL
         SELECT user_id, session_id, replaceAll(action, '_', ' ') AS what, page, event_time, toString(event_id) AS id
         FROM user_actions FINAL WHERE ${where}
       )
       ORDER BY at DESC, id DESC LIMIT ${REALTIME_ROWS}`,
      z.object({ user_id: uint, session_id: z.string(), what: z.string(), page: z.string(), at: uint }),
    ),
  ]);
  return {
    activeUsers: active,
    currentPages,
    recentActions: recentActions.map((r) => ({ userId: r.user_id, sessionId: r.session_id, action: r.what, page: r.page, at: r.at })),
  };
}

export type SessionReport = { activity: UserActivityReport; countries: CountryRow[]; browsers: ShareRow[]; conversionRate: number };

const byCountThenName = <T extends { key: string; count: number }>(a: T, b: T) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * userActivity, countries, browsers and the conversion rate (as in `conversions`) at once, from one pass
 * over the period's sessions (the screens show them together; each alone reads the sessions again). Same
 * definitions and the same figures: the sessions are counted by (device, country, browser) in ClickHouse,
 * and those few rows summed here.
 */
export async function sessionReport(client: ClickHouseClient, range: Period, { now }: ReportOptions = {}): Promise<SessionReport> {
  const rows = await perSessions(
    client,
    periodWindow(range, now),
    (sessions) => `SELECT session_device, session_country, session_browser, count() AS sessions, sum(duration) AS seconds,
       countIf(pageview_count = 1 AND interaction_count = 0) AS bounces, countIf(converted = 1) AS converting
     FROM (${sessions})
     GROUP BY session_device, session_country, session_browser`,
    z.object({
      session_device: z.string(),
      session_country: z.string(),
      session_browser: z.string(),
      sessions: uint,
      seconds: uint,
      bounces: uint,
      converting: uint,
    }),
    ["session_device", "session_country", "session_browser"],
  );
  const total = rows.reduce((sum, r) => sum + r.sessions, 0);
  const seconds = rows.reduce((sum, r) => sum + r.seconds, 0);
  const bounces = rows.reduce((sum, r) => sum + r.bounces, 0);
  const converting = rows.reduce((sum, r) => sum + r.converting, 0);
  const tally = (key: (r: (typeof rows)[number]) => string) => {
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(key(r), (counts.get(key(r)) ?? 0) + r.sessions);
    return [...counts].map(([k, count]) => ({ key: k, count })).sort(byCountThenName);
  };
  return {
    activity: {
      sessions: total,
      avgSessionDuration: total === 0 ? 0 : Math.round(seconds / total),
      bounceRate: share(bounces, total),
      devices: tally((r) => r.session_device).map((d) => ({ device: d.key, count: d.count, percentage: percentage(d.count, total) })),
    },
    countries: tally((r) => r.session_country)
      .slice(0, TOP_ROWS)
      .map((c) => ({ country: c.key, users: c.count, percentage: percentage(c.count, total) })),
    browsers: tally((r) => r.session_browser).map((b) => ({ name: b.key || "Unknown", count: b.count, percentage: percentage(b.count, total) })),
    conversionRate: share(converting, total),
  };
}
