/**
 * What a report reads for its window (ADR 018): how it splits the window between the derived tables the
 * builder wrote (app/analytics/rollups.server.ts) and the events.
 *
 * A report's window is read in two parts that never overlap:
 * - **built**: the whole hours (sessions) or whole days (pages, clicks) of the window that a build holds,
 *   read from session_hours / page_days / click_days at the version rollup_builds names;
 * - **raw**: the rest (the window's ragged edges, the hour in progress, any day not built yet), computed from
 *   the event tables `FINAL` by the same SQL the builder runs (app/analytics/rollup-sql.server.ts), into rows
 *   of the same shape.
 * Both parts are UNIONed and combined as one, so a report gives the same figures whether nothing, part or
 * all of its window is built (tests/integration/analytics-reports.test.ts runs every report three ways).
 */
import type { ClickHouseClient } from "@clickhouse/client";
import { z } from "zod";
import { quoteList } from "~/analytics/clickhouse-sql.server";
import {
  builds,
  checkSpan,
  CLICK_COLUMNS,
  clicksFromEvents,
  hourCeil,
  hourFloor,
  isoDay,
  joined,
  pagesFromEvents,
  piecesFromEvents,
  PIECE_COLUMNS,
  select,
  SESSION_EVENT_TABLES,
  SESSION_FIGURES,
  SESSION_KEY,
  SESSION_ROW_COLUMNS,
  spansCondition,
  subtract,
  viewsFromEvents,
  type Build,
  type Span,
} from "~/analytics/rollup-sql.server";

/** The builds of `parts` as the SQL list of their (day, version) pairs. */
const versions = (parts: { build: Build }[]) => parts.map(({ build }) => `(toDate('${build.day}'), ${build.version})`).join(", ");

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
export async function sources(
  client: ClickHouseClient,
  window: { from: number; to: number },
  { clicksOf = "1" }: { clicksOf?: string } = {},
): Promise<Sources> {
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
  const rawHours = spansCondition(
    subtract(
      span,
      hourParts.map((p) => p.span),
    ),
  );
  const rawPageDays = spansCondition(
    subtract(
      span,
      [...dayParts, ...pageHourParts].map((p) => p.span),
    ),
  );
  const rawDays = spansCondition(
    subtract(
      span,
      dayParts.map((p) => p.span),
    ),
  );
  const builtPages = dayParts.length > 0 || pageHourParts.length > 0;
  // The hours as few ranges as they make (days built to their end join up): thirty ORed ranges cost a 30-day
  // report ~40 ms on 18.16, one costs nothing.
  const hoursIn = (parts: { span: Span }[]) =>
    joined(parts.map((p) => p.span))
      .map((s) => `(hour >= toDateTime(${s.from}) AND hour < toDateTime(${s.to}))`)
      .join(" OR ");
  const pageHours = (columns: string, only: string) =>
    pageHourParts.length
      ? `SELECT ${columns} FROM page_hours WHERE (day, version) IN (${versions(pageHourParts)}) AND (${hoursIn(pageHourParts)}) AND (${only})`
      : null;

  const builtPieces = hourParts.length
    ? `SELECT ${PIECE_COLUMNS} FROM session_hours WHERE (day, version) IN (${versions(hourParts)}) AND (${hoursIn(hourParts)})`
    : null;
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
    held && holding.length
      ? `SELECT ${PIECE_COLUMNS} FROM session_hours WHERE ${builds(holding)} AND confined = 1 AND (${inHours}) AND session_id IN ${held.ids}`
      : null,
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
