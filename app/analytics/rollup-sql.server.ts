/**
 * The rows of the reports' derived tables (migrations/clickhouse/003_rollups.sql, ADR 018) as SQL over the
 * events: what the builder (app/analytics/rollups.server.ts) writes into session_hours, session_days,
 * page_days, page_sessions, page_hours and click_days, and what a report computes the same way for the part
 * of its window no build holds (app/analytics/rollup-sources.server.ts); with the names, conditions and
 * spans both use.
 *
 * SQL for ClickHouse 18.16 and current ClickHouse alike: values in SQL are whole numbers and dates made
 * here from checked numbers, everything else constant text of this module.
 */
import type { ClickHouseClient } from "@clickhouse/client";
import { z } from "zod";
import { SERVER_PLATFORM, type ActionType, type BusinessConversionType } from "~/analytics/events";

const HOUR = 3600;
export const DAY = 24 * HOUR;

/**
 * The action types that are a visitor's interaction with a page. The tracker also sends actions nobody
 * chose to make (`time_on_page` at unload, `page_focus`, `page_blur`, `scroll`) and `error`s; those are
 * not interactions, so they do not stop a one-page session from being a bounce.
 */
export const INTERACTION_TYPES = ["click", "form_submit", "input_focus"] as const satisfies readonly ActionType[];
/** `INTERACTION_TYPES` as an SQL list: constant text of this module (the names are plain a-z and _). */
export const INTERACTION_SQL = INTERACTION_TYPES.map((type) => `'${type}'`).join(", ");

/** FACT over another name of the platform column (the last copy's, in `latest`). */
const factOf = (platform: string) => `${platform} = '${SERVER_PLATFORM}'`;
/**
 * The conversions that are business facts: those the server recorded (platform "server"). A browser cannot
 * send these types; rows one sent before it was refused (platform "web") are never counted. The platform
 * is not in the sorting key, so it is tested after de-duplication (in an expression, never in WHERE).
 */
export const FACT = factOf("platform");
/** The conversions the conversion rate counts. */
export const RATE_TYPES_SQL = (["signup", "order_placed", "gig_published"] as const satisfies readonly BusinessConversionType[])
  .map((type) => `'${type}'`)
  .join(", ");
/** The conversions that continue from a gig in the funnel (Contact Seller, choosing a package). */
const CONTINUE_TYPES_SQL = "'contact_seller', 'package_selected'";
/** A gig's page, and the pages that continue from it: the order form, or messages (Contact Seller). */
export const GIG_PAGE = `match(page, '^/gig/[0-9]+$')`;
export const CONTINUE_PAGE = `(match(page, '^/gig/[0-9]+/order$') OR match(page, '^/messages(/|$)'))`;

/**
 * What readers group a session's pieces by: a 64-bit hash of its id, which ClickHouse groups several times
 * faster than the string (the chance that two of a million sessions share one is about 3 in 10^8).
 */
export const SESSION_KEY = "cityHash64(session_id)";

/** A half-open span of Unix seconds, [from, to). */
export type Span = { from: number; to: number };

export const isoDay = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);
export const hourFloor = (seconds: number) => Math.floor(seconds / HOUR) * HOUR;
export const hourCeil = (seconds: number) => Math.ceil(seconds / HOUR) * HOUR;
export const minuteFloor = (seconds: number) => Math.floor(seconds / 60) * 60;

export function checkSpan({ from, to }: Span) {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) throw new Error("a span must be whole seconds");
}

/**
 * The SQL condition for events in any of the spans. The event tables' key starts with the event's hour
 * (migrations/clickhouse/004_hour_keys.sql), so the bare bounds narrow a read to the spans' hours.
 */
export function spansCondition(spans: Span[]): string {
  if (spans.length === 0) return "0";
  return spans
    .map((span) => {
      checkSpan(span);
      return `(event_time >= toDateTime(${span.from}) AND event_time < toDateTime(${span.to}))`;
    })
    .join(" OR ");
}

/** The spans (not overlapping), in order, with the ones that touch made one. */
export function joined(spans: Span[]): Span[] {
  const out: Span[] = [];
  for (const span of [...spans].sort((a, b) => a.from - b.from)) {
    const last = out.at(-1);
    if (last && last.to === span.from) last.to = span.to;
    else out.push({ ...span });
  }
  return out;
}

/** `window` less the covered spans (which must not overlap), in order. */
export function subtract(window: Span, covered: Span[]): Span[] {
  const rest: Span[] = [];
  let at = window.from;
  for (const span of [...covered].sort((a, b) => a.from - b.from)) {
    const from = Math.max(span.from, window.from);
    const to = Math.min(span.to, window.to);
    if (from >= to) continue;
    if (from > at) rest.push({ from: at, to: from });
    at = Math.max(at, to);
  }
  if (at < window.to) rest.push({ from: at, to: window.to });
  return rest;
}

/**
 * The events of `table` in `condition`, each once: its last copy received, as `FINAL` keeps it. A GROUP BY of
 * the few rows the condition leaves, rather than FINAL, which on 18.16 merges every row of the condition's
 * days in one stream: a window's ragged hour read 4–6 times faster this way (bench:reports data).
 * The event id, its time and the sorting key's `key` columns are the same in every copy: grouped by, they keep
 * their names. Every other column comes out as `last_<column>` (an alias equal to a column would be read back
 * into its own aggregate), a plain String or number (CAST: 18.16's LowCardinality has no common type with
 * String in a UNION). One level of subquery, not two: 18.16 analyses a subquery again at every level above it,
 * and a session report's raw pieces cost ~70 ms of analysis alone with one more (bench:reports data).
 */
function latest(table: string, condition: string, { key, rest }: { key: string[]; rest: string[] }): string {
  const taken = ["session_id", "user_id", ...rest].map((c) => `argMax(${c === "user_id" ? c : `CAST(${c} AS String)`}, received_at) AS last_${c}`);
  const grouped = ["event_id", "event_time", ...key].join(", ");
  return `(SELECT ${grouped}, ${taken.join(", ")} FROM ${table} WHERE ${condition} GROUP BY ${grouped})`;
}
const SESSION_COLUMNS = ["device", "country", "browser"];
/** What each branch of `piecesFromEvents` takes from `latest`, under the names its GROUP BY reads. */
const LAST_SESSION_COLUMNS =
  "last_session_id AS e_session, last_user_id AS e_user, event_id, event_time, last_device AS e_device, last_country AS e_country, last_browser AS e_browser";

/** The columns of a session_hours row, in table order after day and version. */
export const PIECE_COLUMNS =
  "hour, session_id, user_id, active, first_time, last_time, pageviews, interactions, clicks, device, country, browser, first_pageview, referrer_source, gig_view, continued, converted";

/**
 * session_hours rows computed from the events in `condition`: per hour, session and member, the page views
 * and actions (each event once: `active`, first and last time, counts, the device, country and browser of
 * the first of them, the first page view and its referrer's host), and whether the session viewed a gig,
 * continued from one, or recorded a conversion the rate counts. An hour with only a conversion is a row
 * with `active` 0 (its times and device are then meaningless and readers skip them).
 */
export function piecesFromEvents(condition: string): string {
  return `
    SELECT toStartOfHour(event_time) AS hour, e_session AS session_id, e_user AS user_id,
      max(kind != 3) AS active,
      minIf(event_time, kind != 3) AS first_time,
      maxIf(event_time, kind != 3) AS last_time,
      toUInt32(uniqExactIf(event_id, kind = 1)) AS pageviews,
      toUInt32(uniqExactIf(event_id, kind = 2 AND interaction = 1)) AS interactions,
      toUInt32(uniqExactIf(event_id, kind = 2 AND click = 1)) AS clicks,
      argMinIf(e_device, event_time, kind != 3) AS device,
      argMinIf(e_country, event_time, kind != 3) AS country,
      argMinIf(e_browser, event_time, kind != 3) AS browser,
      minIf(event_time, kind = 1) AS first_pageview,
      argMinIf(source, event_time, kind = 1) AS referrer_source,
      max(gig) AS gig_view,
      max(next) AS continued,
      max(fact) AS converted
    FROM (
      SELECT ${LAST_SESSION_COLUMNS}, materialize(toUInt8(1)) AS kind, materialize(toUInt8(0)) AS interaction, materialize(toUInt8(0)) AS click,
        CAST(${GIG_PAGE} AS UInt8) AS gig, CAST(${CONTINUE_PAGE} AS UInt8) AS next, materialize(toUInt8(0)) AS fact,
        replaceRegexpOne(domain(last_referrer), '^www\\\\.', '') AS source
      FROM ${latest("pageviews", condition, { key: ["page"], rest: [...SESSION_COLUMNS, "referrer"] })}
      UNION ALL
      -- CAST, not toUInt8: on 18.16 a comparison of a LowCardinality column is LowCardinality(UInt8) inside
      -- UNION ALL, which has no common type with a UInt8; CAST gives a plain UInt8 on both versions. And every
      -- constant is materialize()d: 18.16 takes a UNION's header from its first SELECT, constants included, and
      -- refuses a later SELECT whose column there is not constant.
      SELECT ${LAST_SESSION_COLUMNS}, materialize(toUInt8(2)) AS kind, CAST(action_type IN (${INTERACTION_SQL}) AS UInt8) AS interaction,
        CAST(action_type = 'click' AS UInt8) AS click, materialize(toUInt8(0)) AS gig, materialize(toUInt8(0)) AS next, materialize(toUInt8(0)) AS fact, materialize('') AS source
      FROM ${latest("actions", condition, { key: ["action_type"], rest: SESSION_COLUMNS })}
      UNION ALL
      SELECT ${LAST_SESSION_COLUMNS}, materialize(toUInt8(3)) AS kind, materialize(toUInt8(0)) AS interaction, materialize(toUInt8(0)) AS click, materialize(toUInt8(0)) AS gig,
        CAST(conversion_type IN (${CONTINUE_TYPES_SQL}) AS UInt8) AS next,
        CAST(${factOf("last_platform")} AND conversion_type IN (${RATE_TYPES_SQL}) AS UInt8) AS fact, materialize('') AS source
      FROM ${latest("conversions", `(${condition}) AND conversion_type IN (${RATE_TYPES_SQL}, ${CONTINUE_TYPES_SQL})`, { key: ["conversion_type"], rest: [...SESSION_COLUMNS, "platform"] })}
    )
    GROUP BY hour, e_session, e_user`;
}

/**
 * Page rows (PAGE_FIGURES) computed from the events in `condition`: per page, its views and an `uniq`
 * state of every session that viewed it (none counted as confined).
 */
export function pagesFromEvents(condition: string): string {
  return `SELECT page, toUInt64(uniqExact(event_id)) AS views, materialize(toUInt64(0)) AS confined, materialize(toUInt64(0)) AS repeated, uniqState(last_session_id) AS sessions
    FROM ${latest("pageviews", condition, { key: ["page"], rest: [] })} GROUP BY page`;
}

/**
 * The INSERTs of a build's page_days and page_sessions rows (`key`: its day and version; `confined`: a SELECT
 * of the session ids its session_days hold as confined): per page, its views, how many of its viewing sessions
 * are confined, and an `uniq` state of the others; and per confined session, the pages it viewed.
 */
export function pageDaysSql(key: string, condition: string, confined: string): string[] {
  const views = latest("pageviews", condition, { key: ["page"], rest: [] });
  return [
    `INSERT INTO page_days SELECT ${key}, page, toUInt64(uniqExact(event_id)) AS views,
       toUInt64(uniqExactIf(last_session_id, is_confined = 1)) AS confined_sessions, uniqStateIf(last_session_id, is_confined = 0) AS open_sessions
     FROM (SELECT page, event_id, last_session_id, CAST(last_session_id IN (${confined}) AS UInt8) AS is_confined FROM ${views})
     GROUP BY page`,
    `INSERT INTO page_sessions SELECT ${key}, last_session_id, page FROM ${views} WHERE last_session_id IN (${confined}) GROUP BY last_session_id, page`,
  ];
}

/** page_hours rows (hour, page, views, sessions state) computed from the events in `condition`. */
export function pageHoursFromEvents(condition: string): string {
  return `SELECT toStartOfHour(event_time) AS hour, page, toUInt64(uniqExact(event_id)) AS views, uniqState(last_session_id) AS sessions
    FROM ${latest("pageviews", condition, { key: ["page"], rest: [] })} GROUP BY hour, page`;
}

/** (page, views) rows computed from the events in `condition`: copies of a view share its id and page (the key), so no de-duplication. */
export function viewsFromEvents(condition: string): string {
  return `SELECT page, toUInt64(uniqExact(event_id)) AS views FROM pageviews WHERE ${condition} GROUP BY page`;
}

/** The heatmap's grid: cells of 80 × 80 CSS pixels over a 1,280-pixel-wide page outline, at most 60 rows (4,800 px). */
export const HEATMAP_CELL_PX = 80;
export const HEATMAP_COLUMNS = 16;
export const HEATMAP_MAX_ROWS = 60;

/**
 * click_days rows (page, device, cell_col, cell_row, unplaced, clicks) computed from the events in
 * `condition`: each click in the grid's cell of its position (one right of 1,280 px in the last column, one
 * below 4,800 px in the last row), or `unplaced` at 0,0 (a keyboard or a script pressed it).
 */
export function clicksFromEvents(condition: string, only = "1"): string {
  // Copies of a click share its id, page and type (the sorting key), and its position and device (the same
  // browser sent each): counting ids needs no de-duplication.
  return `SELECT page, CAST(device AS String) AS device,
      toUInt8(least(intDiv(x, ${HEATMAP_CELL_PX}), ${HEATMAP_COLUMNS - 1})) AS cell_col,
      toUInt8(least(intDiv(y, ${HEATMAP_CELL_PX}), ${HEATMAP_MAX_ROWS - 1})) AS cell_row,
      CAST(x = 0 AND y = 0 AS UInt8) AS unplaced, toUInt64(uniqExact(event_id)) AS clicks
    FROM actions WHERE (${condition}) AND action_type = 'click' AND (${only}) GROUP BY page, device, cell_col, cell_row, unplaced`;
}
export const CLICK_COLUMNS = "page, device, cell_col, cell_row, unplaced, clicks";

export const uint = z.coerce.number().int().nonnegative();
export const Build = z.object({ day: z.string(), version: uint, built_to: uint });
export type Build = z.output<typeof Build>;

export async function select<T extends z.ZodTypeAny>(client: ClickHouseClient, query: string, row: T): Promise<z.output<T>[]> {
  const result = await client.query({ query, format: "JSONEachRow" });
  return z.array(row).parse(await result.json());
}

/** The event tables whose events make a session's pieces: a session id found in any of them is the session's. */
export const SESSION_EVENT_TABLES = ["pageviews", "actions", "conversions"] as const;

/** The latest build of each day from `from` to `to` (ISO days). */
export async function builds(client: ClickHouseClient, from: string, to: string): Promise<Build[]> {
  return select(
    client,
    `SELECT toString(day) AS build_day, max(version) AS latest, toUInt32(argMax(built_to, version)) AS until
     FROM rollup_builds WHERE day >= toDate('${from}') AND day <= toDate('${to}') GROUP BY day`,
    z.object({ build_day: z.string(), latest: uint, until: uint }),
  ).then((rows) => rows.map((r) => ({ day: r.build_day, version: r.latest, built_to: r.until })));
}

/**
 * The columns of a session row (`sessionsOf`, session_days), in order: one row per active session. A report
 * reads one more, `session_key` (SESSION_KEY of the session's id), to match sessions with other events (the
 * conversion funnel's orders).
 */
export const SESSION_ROW_COLUMNS =
  "pageview_count, interaction_count, duration, session_device, session_country, session_browser, session_source, gig_view, continued, converted";

/**
 * A session's figures from its pieces, as `<expression> AS <column>` of SESSION_ROW_COLUMNS less the key:
 * its page views and interactions, the seconds from its first to its last page view or action, the device,
 * country and browser of its first one, the referrer host of its first page view, and whether it viewed a
 * gig, continued from one or recorded a conversion the rate counts. The builder stores the same expressions
 * per session and day in session_days (types fixed, so both kinds of row UNION on 18.16).
 */
export const SESSION_FIGURES = `toUInt64(sum(pageviews)) AS pageview_count,
      toUInt64(sum(interactions)) AS interaction_count,
      toUInt32(dateDiff('second', minIf(first_time, active = 1), maxIf(last_time, active = 1))) AS duration,
      argMinIf(device, first_time, active = 1) AS session_device,
      argMinIf(country, first_time, active = 1) AS session_country,
      argMinIf(browser, first_time, active = 1) AS session_browser,
      argMinIf(referrer_source, first_pageview, pageviews > 0) AS session_source,
      max(gig_view) AS gig_view,
      max(continued) AS continued,
      max(converted) AS converted`;

/**
 * The INSERT of a build's session_hours rows (`key`: its day and version): the pieces of the events in
 * `condition`, each with `confined` when no event of its session lies outside the build (not on another day,
 * nor later on this day than the build reaches). Events are looked up by session id in every event table,
 * copies and all: a copy that a later one replaced can only make a session look unconfined, which costs a
 * report time, never a figure.
 */
export function sessionHoursSql(key: string, { from, to }: Span): string {
  const condition = spansCondition([{ from, to }]);
  // Not `NOT (<condition>)`: 18.16 reads a negated range of the key's hour as if it were the range itself
  // (its index analysis skips the granules that hold the events outside; seen at 10M events).
  const rest = `(event_time < toDateTime(${from}) OR event_time >= toDateTime(${to}))`;
  const inside = SESSION_EVENT_TABLES.map((table) => `SELECT session_id FROM ${table} WHERE ${condition}`).join(" UNION ALL ");
  const outside = SESSION_EVENT_TABLES.map((table) => `SELECT session_id FROM ${table} WHERE ${rest} AND session_id IN (${inside})`).join(" UNION ALL ");
  return `INSERT INTO session_hours SELECT ${key}, ${PIECE_COLUMNS}, CAST(session_id NOT IN (${outside}) AS UInt8) AS is_confined
    FROM (${piecesFromEvents(condition)})`;
}

/**
 * The INSERT of a build's session_days rows: its session_hours pieces merged per session (SESSION_FIGURES),
 * with the hours of the first and last piece and the pieces' `confined`.
 */
export function sessionDaysSql(day: string, version: number): string {
  return `INSERT INTO session_days
    SELECT day, version, session_id, min(hour) AS first_piece, max(hour) AS last_piece,
      max(confined) AS is_confined, max(active) AS is_active,
      ${SESSION_FIGURES}
    FROM session_hours WHERE day = toDate('${day}') AND version = ${version}
    GROUP BY day, version, session_id`;
}
