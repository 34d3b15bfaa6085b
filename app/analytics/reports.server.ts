/**
 * The analytics reports (spec §3 "Analytics data", DESIGN.md §5 "Reports"), read from ClickHouse.
 *
 * Shared definitions, which the admin screens show beside the figures:
 * - **Range**: 1d, 7d, 30d or 90d; the window is (now − N days, now], to the second, in UTC.
 * - **Event**: counted once per event id. Every query reads the tables `FINAL`, so a re-sent event (the
 *   worker delivers at least once; the tracker re-sends the server's no-JavaScript page view under its own
 *   session) is one row, the last one received; counts are also `uniqExact(event_id)`.
 * - **Session**: a session id with at least one page view or action in the window. Its device and
 *   country are those of its first event in the window.
 *
 * SQL that ClickHouse 18.16 and current ClickHouse both accept (DESIGN.md §2): no query parameters; the
 * only values put into the SQL are the window's whole numbers of seconds, checked here (the rest is
 * constant text of this module, so no string needs escaping). The inner `FINAL` selects
 * filter only on columns of the sorting key (event_time, action/conversion type), which every copy of an
 * event shares, so no filter can pick an older copy of a row; other filters run after de-duplication.
 */
import type { ClickHouseClient } from "@clickhouse/client";
import { z } from "zod";
import { RANGES, SERVER_PLATFORM, type ActionType, type BusinessConversionType, type Range } from "~/analytics/events";

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

/** "Top pages" and "top countries" show this many rows (spec §9). */
export const TOP_ROWS = 10;
/** Active users are sessions seen within this many seconds before now. */
export const ACTIVE_WINDOW_SECONDS = 5 * 60;
const DAY_SECONDS = 24 * 60 * 60;

/**
 * The action types that are a visitor's interaction with a page. The tracker also sends actions nobody
 * chose to make (`time_on_page` at unload, `page_focus`, `page_blur`, `scroll`) and `error`s; those are
 * not interactions, so they do not stop a one-page session from being a bounce.
 */
const INTERACTION_TYPES = ["click", "form_submit", "input_focus"] as const satisfies readonly ActionType[];
/** `INTERACTION_TYPES` as an SQL list: constant text of this module (the names are plain a-z and _). */
const INTERACTION_SQL = INTERACTION_TYPES.map((type) => `'${type}'`).join(", ");

/** A report window as whole Unix seconds: events with from < event_time <= to. */
export type ReportWindow = { from: number; to: number };

function toSeconds(now: Date | undefined): number {
  const ms = now === undefined ? Date.now() : now instanceof Date ? now.getTime() : Number.NaN;
  if (!Number.isFinite(ms)) throw new Error("report time must be a valid date");
  return Math.floor(ms / 1000);
}

/** The window of a range ending at `now` (default: the current time). Throws on an unknown range. */
export function reportWindow(range: Range, now?: Date): ReportWindow {
  if (typeof range !== "string" || !Object.hasOwn(RANGES, range)) {
    throw new Error(`unknown report range ${JSON.stringify(range)}: use one of ${Object.keys(RANGES).join(", ")}`);
  }
  const to = toSeconds(now);
  return { from: to - RANGES[range] * DAY_SECONDS, to };
}

/** The WHERE condition of a window; both bounds are integers, so nothing else can reach the SQL. */
function inWindow({ from, to }: ReportWindow): string {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) throw new Error("report window must be whole seconds");
  return `event_time > toDateTime(${from}) AND event_time <= toDateTime(${to})`;
}

/**
 * One row per session seen in the window: its page views and its interactions (actions of an
 * `INTERACTION_TYPES` type; each event counted once), the seconds from its first to its last event in the
 * window (passive actions included), and the device and country of its first event.
 */
function sessionsSql(window: ReportWindow): string {
  const where = inWindow(window);
  return `
    SELECT
      session_id,
      uniqExactIf(event_id, kind = 1) AS pageview_count,
      uniqExactIf(event_id, kind = 2 AND interaction = 1) AS interaction_count,
      dateDiff('second', min(event_time), max(event_time)) AS duration,
      argMin(device, event_time) AS session_device,
      argMin(country, event_time) AS session_country
    FROM (
      SELECT session_id, event_id, event_time, device, country, 1 AS kind, toUInt8(0) AS interaction
      FROM pageviews FINAL WHERE ${where}
      UNION ALL
      SELECT session_id, event_id, event_time, device, country, 2 AS kind,
        -- CAST, not toUInt8: on 18.16, IN over a LowCardinality column is LowCardinality(UInt8) inside
        -- UNION ALL, which has no common type with the UInt8 above; CAST gives a plain UInt8 on both versions.
        CAST(action_type IN (${INTERACTION_SQL}) AS UInt8) AS interaction
      FROM actions FINAL WHERE ${where}
    )
    GROUP BY session_id`;
}

const uint = z.coerce.number().int().nonnegative();

async function select<T extends z.ZodTypeAny>(client: ClickHouseClient, query: string, row: T): Promise<z.output<T>[]> {
  const result = await client.query({ query, format: "JSONEachRow" });
  return z.array(row).parse(await result.json());
}

async function selectOne<T extends z.ZodTypeAny>(
  client: ClickHouseClient,
  query: string,
  row: T,
): Promise<z.output<T>> {
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
export async function pageViews(
  client: ClickHouseClient,
  range: Range,
  { now }: ReportOptions = {},
): Promise<PageViewsReport> {
  const where = inWindow(reportWindow(range, now));
  const [totals, pages] = await Promise.all([
    selectOne(
      client,
      `SELECT uniqExact(event_id) AS total, uniqExact(session_id) AS sessions FROM pageviews FINAL WHERE ${where}`,
      z.object({ total: uint, sessions: uint }),
    ),
    select(
      client,
      `SELECT page, uniqExact(event_id) AS views, uniqExact(session_id) AS unique_views
       FROM pageviews FINAL WHERE ${where}
       GROUP BY page
       ORDER BY views DESC, page ASC
       LIMIT ${TOP_ROWS}`,
      z.object({ page: z.string(), views: uint, unique_views: uint }),
    ),
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
export async function userActivity(
  client: ClickHouseClient,
  range: Range,
  { now }: ReportOptions = {},
): Promise<UserActivityReport> {
  const sessions = sessionsSql(reportWindow(range, now));
  const [totals, devices] = await Promise.all([
    selectOne(
      client,
      `SELECT count() AS sessions, sum(duration) AS seconds, countIf(pageview_count = 1 AND interaction_count = 0) AS bounces
       FROM (${sessions})`,
      z.object({ sessions: uint, seconds: uint, bounces: uint }),
    ),
    select(
      client,
      `SELECT session_device, count() AS sessions FROM (${sessions})
       GROUP BY session_device ORDER BY sessions DESC, session_device ASC`,
      z.object({ session_device: z.string(), sessions: uint }),
    ),
  ]);
  const all = devices.reduce((sum, d) => sum + d.sessions, 0);
  return {
    sessions: totals.sessions,
    avgSessionDuration: totals.sessions === 0 ? 0 : Math.round(totals.seconds / totals.sessions),
    bounceRate: share(totals.bounces, totals.sessions),
    devices: devices.map((d) => ({
      device: d.session_device,
      count: d.sessions,
      percentage: percentage(d.sessions, all),
    })),
  };
}

/**
 * Top countries in the range: the 10 countries with the most sessions, by the country of each session's
 * first event ('Unknown' when the GeoIP database had no answer), ties by name; `percentage` is of all
 * sessions in the range, every country included (one decimal).
 */
export async function countries(
  client: ClickHouseClient,
  range: Range,
  { now }: ReportOptions = {},
): Promise<CountryRow[]> {
  const sessions = sessionsSql(reportWindow(range, now));
  // Every country comes back (a few hundred at most) so the percentages are of all sessions.
  const rows = await select(
    client,
    `SELECT session_country, count() AS users FROM (${sessions})
     GROUP BY session_country ORDER BY users DESC, session_country ASC`,
    z.object({ session_country: z.string(), users: uint }),
  );
  const all = rows.reduce((sum, r) => sum + r.users, 0);
  return rows
    .slice(0, TOP_ROWS)
    .map((r) => ({ country: r.session_country, users: r.users, percentage: percentage(r.users, all) }));
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
 * The conversions that are business facts: those of a `BUSINESS_CONVERSION_TYPES` type that the server
 * recorded (platform "server"). A browser cannot send these types; rows one sent before it was refused
 * (platform "web", any value it liked) are never counted. The platform is not in the sorting key, so it is
 * tested after de-duplication (an `-If` condition), as the header says.
 */
const FACT = `platform = '${SERVER_PLATFORM}'`;
/** The conversions the rate counts, as an SQL list: constant text of this module (plain a-z and _). */
const RATE_TYPES_SQL = (["signup", "order_placed", "gig_published"] as const satisfies readonly BusinessConversionType[])
  .map((type) => `'${type}'`)
  .join(", ");

/**
 * Conversions in the range, business facts only (see FACT).
 * - `signups`, `orders`: signup and order_placed conversions, each event counted once.
 * - `revenue`: the sum of the order_placed values, whole UGX.
 * - `conversionRate`: share (0..1, 4 decimals) of the range's sessions (as in userActivity) that recorded
 *   a signup, an order placed or a gig published in the range; 0 with no sessions. The steps a browser
 *   may report (`package_selected`, ...) are not conversions here.
 */
export async function conversions(
  client: ClickHouseClient,
  range: Range,
  { now }: ReportOptions = {},
): Promise<ConversionsReport> {
  const where = inWindow(reportWindow(range, now));
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
    selectOne(
      client,
      `SELECT countIf(active = 1) AS sessions, countIf(active = 1 AND converted = 1) AS converting FROM (
         SELECT session_id, max(kind != 3) AS active, max(kind = 3 AND fact = 1) AS converted FROM (
           SELECT session_id, 1 AS kind, toUInt8(0) AS fact FROM pageviews FINAL WHERE ${where}
           UNION ALL
           SELECT session_id, 2 AS kind, toUInt8(0) AS fact FROM actions FINAL WHERE ${where}
           UNION ALL
           -- CAST, not toUInt8: a comparison of a LowCardinality column is LowCardinality(UInt8) on 18.16.
           SELECT session_id, 3 AS kind, CAST(${FACT} AS UInt8) AS fact
           FROM conversions FINAL WHERE ${where} AND conversion_type IN (${RATE_TYPES_SQL})
         )
         GROUP BY session_id
       )`,
      z.object({ sessions: uint, converting: uint }),
    ),
  ]);
  return { ...totals, conversionRate: share(rate.converting, rate.sessions) };
}
