/**
 * The reports' derived tables (migrations/clickhouse/003_rollups.sql, ADR 018): how the worker builds them,
 * and how a report splits its window between them and the events.
 *
 * A report's window is read in two parts that never overlap:
 * - **built**: the whole hours (sessions) or whole days (pages, clicks) of the window that a build holds,
 *   read from session_hours / page_days / click_days at the version rollup_builds names;
 * - **raw**: the rest (the window's ragged edges, the hour in progress, any day not built yet), computed from
 *   the event tables `FINAL` by the same SQL the builder runs, into rows of the same shape.
 * Both parts are UNIONed and combined as one, so a report gives the same figures whether nothing, part or
 * all of its window is built (tests/integration/analytics-reports.test.ts runs every report three ways).
 *
 * Freshness: every round builds today again up to the whole minute two minutes ago (GRACE_SECONDS: the
 * tracker re-sends the server's page view within seconds), so the events a report reads itself are its
 * window's last few minutes and its ragged start, never a whole hour in progress (on 18.16 an hour of
 * events cost a session report ~100 ms at 10M events). An event that arrives later for a built time marks its day dirty
 * (the worker, after its insert: `markLate`), and the next round rebuilds the day: until then, at most a
 * minute, the reports miss it.
 *
 * SQL for ClickHouse 18.16 and current ClickHouse alike: values in SQL are whole numbers and dates made
 * here from checked numbers, everything else constant text of this module.
 */
import type { ClickHouseClient } from "@clickhouse/client";
import type Redis from "ioredis";
import { z } from "zod";
import { quoteList } from "~/analytics/clickhouse-sql.server";
import { SERVER_PLATFORM, type ActionType, type BusinessConversionType } from "~/analytics/events";

const HOUR = 3600;
const DAY = 24 * HOUR;
/** A minute is built once it ended this long ago. */
export const GRACE_SECONDS = 120;

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

const isoDay = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);
const hourFloor = (seconds: number) => Math.floor(seconds / HOUR) * HOUR;
const hourCeil = (seconds: number) => Math.ceil(seconds / HOUR) * HOUR;
const minuteFloor = (seconds: number) => Math.floor(seconds / 60) * 60;

function checkSpan({ from, to }: Span) {
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
const PIECE_COLUMNS =
  "hour, session_id, user_id, active, first_time, last_time, pageviews, interactions, clicks, device, country, browser, first_pageview, referrer_source, gig_view, continued, converted";

/**
 * session_hours rows computed from the events in `condition`: per hour, session and member, the page views
 * and actions (each event once: `active`, first and last time, counts, the device, country and browser of
 * the first of them, the first page view and its referrer's host), and whether the session viewed a gig,
 * continued from one, or recorded a conversion the rate counts. An hour with only a conversion is a row
 * with `active` 0 (its times and device are then meaningless and readers skip them).
 */
function piecesFromEvents(condition: string): string {
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
function pagesFromEvents(condition: string): string {
  return `SELECT page, toUInt64(uniqExact(event_id)) AS views, materialize(toUInt64(0)) AS confined, materialize(toUInt64(0)) AS repeated, uniqState(last_session_id) AS sessions
    FROM ${latest("pageviews", condition, { key: ["page"], rest: [] })} GROUP BY page`;
}

/**
 * The INSERTs of a build's page_days and page_sessions rows (`key`: its day and version; `confined`: a SELECT
 * of the session ids its session_days hold as confined): per page, its views, how many of its viewing sessions
 * are confined, and an `uniq` state of the others; and per confined session, the pages it viewed.
 */
function pageDaysSql(key: string, condition: string, confined: string): string[] {
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
function pageHoursFromEvents(condition: string): string {
  return `SELECT toStartOfHour(event_time) AS hour, page, toUInt64(uniqExact(event_id)) AS views, uniqState(last_session_id) AS sessions
    FROM ${latest("pageviews", condition, { key: ["page"], rest: [] })} GROUP BY hour, page`;
}

/** (page, views) rows computed from the events in `condition`: copies of a view share its id and page (the key), so no de-duplication. */
function viewsFromEvents(condition: string): string {
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
function clicksFromEvents(condition: string, only = "1"): string {
  // Copies of a click share its id, page and type (the sorting key), and its position and device (the same
  // browser sent each): counting ids needs no de-duplication.
  return `SELECT page, CAST(device AS String) AS device,
      toUInt8(least(intDiv(x, ${HEATMAP_CELL_PX}), ${HEATMAP_COLUMNS - 1})) AS cell_col,
      toUInt8(least(intDiv(y, ${HEATMAP_CELL_PX}), ${HEATMAP_MAX_ROWS - 1})) AS cell_row,
      CAST(x = 0 AND y = 0 AS UInt8) AS unplaced, toUInt64(uniqExact(event_id)) AS clicks
    FROM actions WHERE (${condition}) AND action_type = 'click' AND (${only}) GROUP BY page, device, cell_col, cell_row, unplaced`;
}
const CLICK_COLUMNS = "page, device, cell_col, cell_row, unplaced, clicks";

const uint = z.coerce.number().int().nonnegative();
const Build = z.object({ day: z.string(), version: uint, built_to: uint });
type Build = z.output<typeof Build>;

async function select<T extends z.ZodTypeAny>(client: ClickHouseClient, query: string, row: T): Promise<z.output<T>[]> {
  const result = await client.query({ query, format: "JSONEachRow" });
  return z.array(row).parse(await result.json());
}

/** The event tables whose events make a session's pieces: a session id found in any of them is the session's. */
const SESSION_EVENT_TABLES = ["pageviews", "actions", "conversions"] as const;

/** The builds of `parts` as the SQL list of their (day, version) pairs. */
const versions = (parts: { build: Build }[]) => parts.map(({ build }) => `(toDate('${build.day}'), ${build.version})`).join(", ");

/** The latest build of each day from `from` to `to` (ISO days). */
async function builds(client: ClickHouseClient, from: string, to: string): Promise<Build[]> {
  return select(
    client,
    `SELECT toString(day) AS build_day, max(version) AS latest, toUInt32(argMax(built_to, version)) AS until
     FROM rollup_builds WHERE day >= toDate('${from}') AND day <= toDate('${to}') GROUP BY day`,
    z.object({ build_day: z.string(), latest: uint, until: uint }),
  ).then((rows) => rows.map((r) => ({ day: r.build_day, version: r.latest, built_to: r.until })));
}

/**
 * What a report reads for a window, as SQL sources of rows (each a complete SELECT to use in FROM (...)):
 * - `pieces`: session_hours rows (PIECE_COLUMNS) covering exactly the window's events;
 * - `sessions()`: one row per active session of the window (SESSION_ROW_COLUMNS), as one or two sources whose
 *   sessions do not overlap (whole sessions from session_days where they can be, the others put together
 *   from their pieces): read them with `overSessions`;
 * - `pagesWhere(condition on page)`: resolves to page rows (PAGE_FIGURES), several per page, covering the window's page
 *   views of the pages that match (read from the events for those only): combine them by PAGE_FIGURES;
 * - `views`: (page, views) rows, the same views without the sessions' states (cheaper from the events);
 * - `clicks`: (page, device, cell_col, cell_row, unplaced, clicks) rows covering the window's clicks;
 * - `raw`: the condition of the events the built part leaves (for reports that read events directly).
 */
export type Sources = {
  pieces: string;
  sessions: () => Promise<string[]>;
  pagesWhere: (only: string) => Promise<string>;
  views: string;
  clicks: string;
  raw: string;
  builtPieces: string | null;
};

/** The window as a half-open span: reports' windows are (from, to] in whole seconds. */
export const windowSpan = ({ from, to }: { from: number; to: number }): Span => ({ from: from + 1, to: to + 1 });

/** Marks a client whose reports read only the events, as if nothing were built (bench:reports' comparison). */
const EVENTS_ONLY = Symbol("soko.eventsOnly");

/** The client, for reports that read only the events: what every report cost before the derived tables. */
export function eventsOnly(client: ClickHouseClient): ClickHouseClient {
  return new Proxy(client, { get: (target, prop, receiver) => (prop === EVENTS_ONLY ? true : Reflect.get(target, prop, receiver)) });
}

/**
 * `clicksOf` narrows the clicks to a condition on their page and device (the heatmap's one page), in the
 * derived rows and the events alike, so the events' edge is read for that page only.
 */
export async function sources(client: ClickHouseClient, window: { from: number; to: number }, { clicksOf = "1" }: { clicksOf?: string } = {}): Promise<Sources> {
  const span = windowSpan(window);
  checkSpan(span);
  const days = (client as ClickHouseClient & { [EVENTS_ONLY]?: boolean })[EVENTS_ONLY] ? [] : await builds(client, isoDay(span.from), isoDay(span.to - 1));
  // Sessions: each built day gives the whole hours of the window that its build holds.
  const hourParts: { build: Build; span: Span }[] = [];
  // Pages and clicks: a built day counts only when the window holds all that its build holds. Pages of a
  // built day the window cuts (its first, usually): the whole hours the window holds of it, from page_hours.
  const dayParts: { build: Build; span: Span }[] = [];
  const pageHourParts: { build: Build; span: Span }[] = [];
  for (const build of days) {
    const start = Date.parse(`${build.day}T00:00:00Z`) / 1000;
    // A build ends at a whole minute: its last hour's pieces hold that hour up to built_to, so they serve a
    // window that reaches built_to; a window that ends before it reads that hour from the events.
    const hours = { from: Math.max(start, hourCeil(span.from)), to: build.built_to <= span.to ? build.built_to : Math.min(build.built_to, hourFloor(span.to)) };
    if (hours.from < hours.to) hourParts.push({ build, span: hours });
    if (start >= span.from && build.built_to <= span.to && start < build.built_to) dayParts.push({ build, span: { from: start, to: build.built_to } });
    else if (hours.from < hours.to) pageHourParts.push({ build, span: hours });
  }
  const rawHours = spansCondition(subtract(span, hourParts.map((p) => p.span)));
  const rawPageDays = spansCondition(subtract(span, [...dayParts, ...pageHourParts].map((p) => p.span)));
  const rawDays = spansCondition(subtract(span, dayParts.map((p) => p.span)));
  const builtPages = dayParts.length > 0 || pageHourParts.length > 0;
  // The hours as few ranges as they make (days built to their end join up): thirty ORed ranges cost a 30-day
  // report ~40 ms on 18.16, one costs nothing.
  const hoursIn = (parts: { span: Span }[]) =>
    joined(parts.map((p) => p.span))
      .map((s) => `(hour >= toDateTime(${s.from}) AND hour < toDateTime(${s.to}))`)
      .join(" OR ");
  const pageHours = (columns: string, only: string) =>
    pageHourParts.length ? `SELECT ${columns} FROM page_hours WHERE (day, version) IN (${versions(pageHourParts)}) AND (${hoursIn(pageHourParts)}) AND (${only})` : null;

  const builtPieces = hourParts.length ? `SELECT ${PIECE_COLUMNS} FROM session_hours WHERE (day, version) IN (${versions(hourParts)}) AND (${hoursIn(hourParts)})` : null;
  const union = (...parts: (string | null)[]) => parts.filter(Boolean).join("\n    UNION ALL\n    ");
  // piecesFromEvents' columns are PIECE_COLUMNS in order: no SELECT around it (a level of subquery costs 18.16 analysis).
  const rawPieces = rawHours === "0" && builtPieces ? null : piecesFromEvents(rawHours);
  // Looked up once, when a report first needs it (the events a report reads itself are those of no build's
  // hours, for pages and sessions alike).
  let heldOnce: Promise<Held | null> | undefined;
  const held = () => (heldOnce ??= hourParts.length ? heldSessions(client, hourParts, rawHours) : Promise.resolve(null));
  // The page is the events' key and page_days' and page_hours' order: a condition on it narrows every read.
  const pagesWhere = async (only: string) => {
    const confined = dayParts.length ? pageDayRows(dayParts, await held(), only) : null;
    return union(
      confined,
      pageHours("page, views, materialize(toUInt64(0)) AS confined, materialize(toUInt64(0)) AS repeated, sessions", only),
      rawPageDays === "0" && builtPages ? null : pagesFromEvents(`(${rawPageDays}) AND (${only})`),
    );
  };
  return {
    pieces: union(builtPieces, rawPieces),
    sessions: async () => (hourParts.length ? sessionRows(hourParts, await held(), rawPieces) : [sessionsOf(rawPieces!)]),
    pagesWhere,
    views: union(
      dayParts.length ? `SELECT page, views FROM page_days WHERE (day, version) IN (${versions(dayParts)})` : null,
      pageHours("page, views", "1"),
      rawPageDays === "0" && builtPages ? null : viewsFromEvents(rawPageDays),
    ),
    clicks: union(
      dayParts.length ? `SELECT ${CLICK_COLUMNS} FROM click_days WHERE (day, version) IN (${versions(dayParts)}) AND (${clicksOf})` : null,
      rawDays === "0" && dayParts.length ? null : clicksFromEvents(rawDays, clicksOf),
    ),
    raw: rawHours,
    builtPieces,
  };
}

/**
 * A page's views and unique views (the sessions that viewed it) from its page rows. A page row is (page, views,
 * confined, repeated, sessions): some of the page's views, a count of sessions that viewed it (those its build
 * holds as confined), how many of those are also in a `sessions` state, and an `uniq` state of other sessions
 * that viewed it. Each confined session is counted by the one build it lies in, so the counts add up across
 * days; the other sessions merge.
 */
export const PAGE_FIGURES = "sum(views) AS views, toUInt64(sum(confined) + uniqMerge(sessions) - sum(repeated)) AS unique_views";

/**
 * Up to this many session ids go into a report's SQL as a list; more, as a subquery (18.16 analyses a subquery
 * again at every level around it, and finds a list's rows by a table's key, not a subquery's).
 */
const LISTED_IDS = 1000;

/**
 * The page rows of built days the window holds whole (`parts`), for the pages that match `only`: page_days'
 * rows, and for the confined sessions also in the events the report reads itself (among `held`: today's
 * sessions that went on after the build) their pages from page_sessions, taken out of the counts and merged as
 * states instead, so that each is one session. (`held` may name other confined sessions too: for them this
 * only moves a session from a count to a state.) No other source of the window holds a confined session: the
 * builder publishes a build only once the other days it concerns are rebuilt (`buildRollups`).
 */
function pageDayRows(parts: { build: Build }[], held: Held | null, only: string): string {
  const days = `SELECT page, views, confined_sessions AS confined, materialize(toUInt64(0)) AS repeated, open_sessions AS sessions
      FROM page_days WHERE (day, version) IN (${versions(parts)}) AND (${only})`;
  const holding = holdingBuilds(parts, held);
  if (!held || !holding.length) return days;
  return `${days}
    UNION ALL
    SELECT page, materialize(toUInt64(0)) AS views, materialize(toUInt64(0)) AS confined, count() AS repeated, uniqState(session_id) AS sessions
      FROM page_sessions WHERE (day, version) IN (${versions(holding)}) AND (${only}) AND session_id IN ${held.ids}
      GROUP BY page`;
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
const SESSION_FIGURES = `toUInt64(sum(pageviews)) AS pageview_count,
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
 * One row per active session of the window (SESSION_ROW_COLUMNS), when some of its hours are built
 * (`parts`: the built days and the hours of each in the window; `rawHours`, `rawPieces`: the rest of the
 * window, read from the events), as two sources of two kinds of row:
 * - **whole**: a session that session_days holds as confined to its build (no event outside it), with every
 *   hour in the window's built hours and no event in the rest of the window: its row as it stands;
 * - **pieced**: every other session, put back together from its pieces by `sessionsOf`: the pieces of the
 *   sessions that cross days (`confined` = 0, the first column of session_hours' key: one short range of each
 *   build), those of the confined sessions that cannot be whole (across the built hours' edge, or with events
 *   in the rest of the window: looked up first), and the events' pieces.
 * The same figures as `sessionsOf` over all the pieces, without grouping the sessions that need none. A build
 * that holds a session as confined is the only one that holds it: the builder publishes a build only once the
 * days it finds stale are built again (`buildRollups`), so a session that came back on another day is held as
 * not confined by every build of its days before any report can read the one that found it.
 */
function sessionRows(parts: { build: Build; span: Span }[], held: Held | null, rawPieces: string | null): string[] {
  const spans = joined(parts.map((p) => p.span));
  const hours = (test: (span: Span) => string) => spans.map((span) => `(${test(span)})`).join(" OR ");
  const within = hours((s) => `first_hour >= toDateTime(${s.from}) AND last_hour < toDateTime(${s.to})`);
  const inHours = hours((s) => `hour >= toDateTime(${s.from}) AND hour < toDateTime(${s.to})`);
  const builds = (list: typeof parts) => `(day, version) IN (${versions(list)})`;
  const holding = holdingBuilds(parts, held);
  const whole = `SELECT ${SESSION_ROW_COLUMNS}, ${SESSION_KEY} AS session_key FROM session_days
    WHERE ${builds(parts)} AND confined = 1 AND active = 1 AND (${within})${held ? ` AND session_id NOT IN ${held.ids}` : ""}`;
  const pieces = [
    // The sessions that cross days: one short range of each build's key.
    `SELECT ${PIECE_COLUMNS} FROM session_hours WHERE ${builds(parts)} AND confined = 0 AND (${inHours})`,
    held && holding.length ? `SELECT ${PIECE_COLUMNS} FROM session_hours WHERE ${builds(holding)} AND confined = 1 AND (${inHours}) AND session_id IN ${held.ids}` : null,
    rawPieces,
  ];
  return [whole, sessionsOf(pieces.filter(Boolean).join("\n    UNION ALL\n    "))];
}

/**
 * Confined sessions of a window's builds that a report cannot take from their build alone, as SQL: `ids`, a
 * list (or, past LISTED_IDS, a subquery), and `days`, the days whose builds hold them (null: any).
 */
type Held = { ids: string; days: Set<string> | null };

/** The builds of `parts` that hold some of the `held` sessions. */
const holdingBuilds = <T extends { build: Build }>(parts: T[], held: Held | null): T[] =>
  held ? parts.filter((p) => !held.days || held.days.has(p.build.day)) : [];

/**
 * The confined sessions of the window's builds (`parts`) that cannot be read whole: those across the built
 * hours' edge, and (every copy's session) those with events in the rest of the window, `rawHours`; null with
 * none. Looked up once, first, and given to every query as a list: as a subquery in each, 18.16 analysed it
 * again at every level around it (~60 ms of a 30-day session report at 10M events), and it reads a list's
 * rows by a table's key, not a subquery's (page_sessions: all 2.6M rows, ~40 ms).
 */
async function heldSessions(client: ClickHouseClient, parts: { build: Build; span: Span }[], rawHours: string): Promise<Held | null> {
  const spans = joined(parts.map((p) => p.span));
  // Its negation spelt out: 18.16's index analysis reads NOT over a range of a key column wrongly (sessionHoursSql).
  const across = spans.map((s) => `(first_hour < toDateTime(${s.from}) OR last_hour >= toDateTime(${s.to}))`).join(" AND ");
  const rawIds = rawHours === "0" ? null : SESSION_EVENT_TABLES.map((table) => `SELECT session_id FROM ${table} WHERE ${rawHours}`).join(" UNION ALL ");
  const held = `SELECT toString(day) AS held_day, session_id FROM session_days
    WHERE (day, version) IN (${versions(parts)}) AND confined = 1 AND ((${across})${rawIds ? ` OR session_id IN (${rawIds})` : ""})`;
  const found = await select(client, `${held} LIMIT ${LISTED_IDS + 1}`, z.object({ held_day: z.string(), session_id: z.string() }));
  if (found.length === 0) return null;
  if (found.length > LISTED_IDS) return { ids: `(SELECT session_id FROM (${held}))`, days: null };
  return { ids: quoteList([...new Set(found.map((r) => r.session_id))]), days: new Set(found.map((r) => r.held_day)) };
}

/**
 * `query` run over each source of the window's sessions at once, and the rows that share the values of `keys`
 * added up (every other column must be a count or a sum over the sessions). One query per source: 18.16
 * builds a query's IN sets one after another on one core, so the whole and the pieced sessions, each with
 * their own sets, take half the time as two queries (bench:reports).
 */
export async function overSessions<T extends z.ZodObject<z.ZodRawShape>>(
  client: ClickHouseClient,
  from: Pick<Sources, "sessions">,
  query: (sessions: string) => string,
  row: T,
  keys: (keyof z.output<T> & string)[],
): Promise<z.output<T>[]> {
  const results = await Promise.all((await from.sessions()).map((sessions) => select(client, query(sessions), row)));
  const merged = new Map<string, Record<string, unknown>>();
  for (const r of results.flat() as Record<string, unknown>[]) {
    const id = JSON.stringify(keys.map((k) => r[k]));
    const into = merged.get(id);
    if (!into) merged.set(id, { ...r });
    else for (const [k, v] of Object.entries(r)) if (!keys.includes(k as never)) into[k] = (into[k] as number) + (v as number);
  }
  return [...merged.values()] as z.output<T>[];
}

/**
 * One row per session of the pieces (only those with a page view or an action; SESSION_ROW_COLUMNS and
 * `session_key`): its figures over those pieces (SESSION_FIGURES).
 */
export function sessionsOf(pieces: string): string {
  return `
    SELECT ${SESSION_FIGURES}, ${SESSION_KEY} AS session_key
    FROM (${pieces})
    GROUP BY ${SESSION_KEY}
    HAVING max(active) = 1`;
}

// Building.

/** Days built in one round at most (a first round over a long history goes on in the next ones). */
const DAYS_PER_ROUND = 400;

/**
 * Writes one day's tables from its events up to `builtTo` (Unix seconds, a whole minute within the day or
 * the day's end) as a new version, which readers do not see until `publish` names it.
 */
async function writeDay(client: ClickHouseClient, day: string, builtTo: number, version: number): Promise<void> {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || !Number.isSafeInteger(builtTo) || !Number.isSafeInteger(version)) throw new Error("bad build");
  const start = Date.parse(`${day}T00:00:00Z`) / 1000;
  const condition = spansCondition([{ from: start, to: builtTo }]);
  const key = `toDate('${day}') AS day, toUInt64(${version}) AS version`;
  await client.command({ query: sessionHoursSql(key, { from: start, to: builtTo }) });
  await client.command({ query: sessionDaysSql(day, version) });
  const confined = `SELECT session_id FROM session_days WHERE day = toDate('${day}') AND version = ${version} AND confined = 1`;
  for (const query of pageDaysSql(key, condition, confined)) await client.command({ query });
  await client.command({ query: `INSERT INTO page_hours SELECT ${key}, hour, page, views, sessions FROM (${pageHoursFromEvents(condition)})` });
  await client.command({ query: `INSERT INTO click_days SELECT ${key}, ${CLICK_COLUMNS} FROM (${clicksFromEvents(condition)})` });
}

/** Names a written build in rollup_builds, for readers, and drops the day's versions older than the one it replaces. */
async function publish(client: ClickHouseClient, day: string, builtTo: number, version: number): Promise<void> {
  await client.insert({
    table: "rollup_builds",
    values: [{ day, version, built_to: builtTo, built_at: Math.floor(Date.now() / 1000) }],
    format: "JSONEachRow",
  });
  // Keep this version and the one before it (a report that read rollup_builds just before may be reading it).
  const named = await select(client, `SELECT version FROM rollup_builds WHERE day = toDate('${day}') ORDER BY version DESC`, z.object({ version: uint }));
  const keep = new Set(named.slice(0, 2).map((r) => r.version));
  for (const table of ["session_hours", "session_days", "page_days", "page_sessions", "page_hours", "click_days"]) {
    const present = await select(client, `SELECT DISTINCT version FROM ${table} WHERE day = toDate('${day}')`, z.object({ version: uint }));
    for (const { version: old } of present) {
      if (!keep.has(old)) await client.command({ query: `ALTER TABLE ${table} DROP PARTITION (toDate('${day}'), ${old})` });
    }
  }
}

/**
 * The INSERT of a build's session_hours rows (`key`: its day and version): the pieces of the events in
 * `condition`, each with `confined` when no event of its session lies outside the build (not on another day,
 * nor later on this day than the build reaches). Events are looked up by session id in every event table,
 * copies and all: a copy that a later one replaced can only make a session look unconfined, which costs a
 * report time, never a figure.
 */
function sessionHoursSql(key: string, { from, to }: Span): string {
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
function sessionDaysSql(day: string, version: number): string {
  return `INSERT INTO session_days
    SELECT day, version, session_id, min(hour) AS first_piece, max(hour) AS last_piece,
      max(confined) AS is_confined, max(active) AS is_active,
      ${SESSION_FIGURES}
    FROM session_hours WHERE day = toDate('${day}') AND version = ${version}
    GROUP BY day, version, session_id`;
}

/**
 * The other built days whose session_days still hold as confined a session that the build `version` of `day`
 * found elsewhere (a session that came back after its first day was built): the builder builds them again,
 * so that every day of a session that crosses days says so (`sessionRows` reads its pieces by that flag).
 */
async function staleDays(client: ClickHouseClient, day: string, version: number): Promise<string[]> {
  const rows = await select(
    client,
    `SELECT DISTINCT toString(day) AS stale FROM session_days
     WHERE confined = 1 AND day != toDate('${day}')
       AND (day, version) IN (SELECT day, max(version) FROM rollup_builds GROUP BY day)
       AND session_id IN (SELECT session_id FROM session_days WHERE day = toDate('${day}') AND version = ${version} AND confined = 0)`,
    z.object({ stale: z.string() }),
  );
  return rows.map((r) => r.stale);
}

export type RollupRound = { built: { day: string; builtTo: number; ms: number }[] };

/**
 * One round of the builder: every day with events whose build is missing, behind (a whole minute of today has
 * ended since), or named in `dirty` (late events), up to DAYS_PER_ROUND days, oldest first, until `signal`
 * aborts. `since` limits
 * the search for days with events (the worker passes yesterday after its first round: older days change
 * only through late events, which `dirty` names).
 */
export async function buildRollups(
  client: ClickHouseClient,
  { now = new Date(), dirty = [], since, signal }: { now?: Date; dirty?: string[]; since?: string; signal?: AbortSignal } = {},
): Promise<RollupRound> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const closed = minuteFloor(nowSeconds - GRACE_SECONDS);
  const after = since ? `WHERE event_time >= toDateTime(${Date.parse(`${since}T00:00:00Z`) / 1000})` : "";
  const withEvents = await select(
    client,
    `SELECT DISTINCT day FROM (
       SELECT toString(toDate(event_time)) AS day FROM pageviews ${after} GROUP BY day
       UNION ALL SELECT toString(toDate(event_time)) AS day FROM actions ${after} GROUP BY day
       UNION ALL SELECT toString(toDate(event_time)) AS day FROM conversions ${after} GROUP BY day
     ) ORDER BY day`,
    z.object({ day: z.string() }),
  );
  const days = [...new Set([...withEvents.map((r) => r.day), ...dirty.filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d))])].sort();
  if (days.length === 0) return { built: [] };
  const known = new Map((await builds(client, days[0]!, days.at(-1)!)).map((b) => [b.day, b]));
  const late = new Set(dirty);
  const built: RollupRound["built"] = [];
  const done = new Set<string>();
  // A day's build is published only after the days it finds stale (`staleDays`: they hold as confined a
  // session it found on this day too) are built and published again, each at most once a round. So no build a
  // report can read holds as confined a session that another build it can read also holds (the readers count
  // a confined session once, from its build alone: `sessionRows`, `pageDayRows`).
  const build = async (day: string, builtTo: number) => {
    const started = Date.now();
    const version = Date.now();
    done.add(day);
    await writeDay(client, day, builtTo, version);
    for (const stale of await staleDays(client, day, version)) {
      const end = Date.parse(`${stale}T00:00:00Z`) / 1000 + DAY;
      if (!done.has(stale)) await build(stale, Math.min(end, closed));
    }
    await publish(client, day, builtTo, version);
    built.push({ day, builtTo, ms: Date.now() - started });
  };
  for (const day of days) {
    // A worker shutting down stops between days (the next round goes on); the days not reached stay due.
    if (built.length >= DAYS_PER_ROUND || signal?.aborted) break;
    if (done.has(day)) continue;
    const start = Date.parse(`${day}T00:00:00Z`) / 1000;
    const builtTo = Math.min(start + DAY, closed);
    if (builtTo <= start) continue; // nothing of the day has ended yet
    const previous = known.get(day);
    if (previous && previous.built_to >= builtTo && !late.has(day)) continue;
    await build(day, builtTo);
  }
  return { built };
}

// Late events.

/** The Redis set of days that got events after they were built (read and emptied by the builder). */
export const lateDaysKey = (prefix: string) => `${prefix}:analytics:rollup-late`;

/**
 * After an insert: names the days of events old enough that their hour may be built already. `times` are
 * the events' 'YYYY-MM-DD hh:mm:ss' UTC times.
 */
export async function markLate(redis: Redis, prefix: string, times: Iterable<string>, now = Date.now()) {
  const closedAt = new Date(hourFloor(Math.floor(now / 1000) - GRACE_SECONDS) * 1000).toISOString().replace("T", " ").slice(0, 19);
  const days = new Set<string>();
  for (const time of times) if (typeof time === "string" && time < closedAt) days.add(time.slice(0, 10));
  if (days.size > 0) await redis.sadd(lateDaysKey(prefix), ...days);
}

/** Takes the late days out of Redis for a round (a round that fails puts them back). */
export async function takeLateDays(redis: Redis, prefix: string): Promise<string[]> {
  const key = lateDaysKey(prefix);
  const [[, days]] = (await redis.multi().smembers(key).del(key).exec()) as [[Error | null, string[]], [Error | null, number]];
  return days ?? [];
}

export async function returnLateDays(redis: Redis, prefix: string, days: string[]) {
  if (days.length > 0) await redis.sadd(lateDaysKey(prefix), ...days);
}

