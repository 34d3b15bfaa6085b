/**
 * The admin's closer looks at behaviour (ADR 017), read from ClickHouse: a page's click heatmap,
 * the conversion funnel, one member's journey, and a member's own analytics.
 *
 * Ranges and windows are the reports' (reports.server.ts: from the start of the hour N days before now to
 * now, UTC; a re-sent event is one row). SQL that ClickHouse 18.16 and current ClickHouse both accept: the window's
 * seconds and user ids are checked integers; a page is put in only through clickhouse-sql.server.ts's
 * quote(), after checking it is a path.
 */
import type { ClickHouseClient } from "@clickhouse/client";
import { z } from "zod";
import { quote } from "~/analytics/clickhouse-sql.server";
import { RANGES, type Range } from "~/analytics/events";
import type { FunnelStepKey } from "~/analytics/funnel-steps";
import { inWindow, reportWindow, type ReportWindow } from "~/analytics/reports.server";
import { overSessions, sources, windowSpan } from "~/analytics/rollup-sources.server";
import { FACT, HEATMAP_CELL_PX, HEATMAP_COLUMNS, HEATMAP_MAX_ROWS, joined, SESSION_KEY, spansCondition } from "~/analytics/rollup-sql.server";
import { log } from "~/server/log.server";

const uint = z.coerce.number().int().nonnegative();

function checkedUserId(userId: number): number {
  if (!Number.isSafeInteger(userId) || userId <= 0) throw new Error("user id must be a positive whole number");
  return userId;
}

async function select<T extends z.ZodTypeAny>(client: ClickHouseClient, query: string, row: T): Promise<z.output<T>[]> {
  const result = await client.query({ query, format: "JSONEachRow" });
  return z.array(row).parse(await result.json());
}

/** Part of a whole in percent, one decimal (halves up); 0 when the whole is 0. */
function percentage(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part * 1000) / whole) / 10;
}

// ---------------------------------------------------------------------------------------------------------
// Heatmap.

/** The grid, as the derived click_days bin it (rollup-sql.server.ts). */
export { HEATMAP_CELL_PX, HEATMAP_COLUMNS, HEATMAP_MAX_ROWS };

/** A page as the heatmap takes it: a path as the tables store them (cleanPath), at most 500 characters. Its messages are catalogue keys. */
export const HeatmapPage = z
  .string()
  .trim()
  .min(1, "admin.heatmap.choosePage")
  .max(500, "admin.heatmap.pageTooLong")
  .regex(/^\/[^\s]*$/, "admin.heatmap.pageNotPath");

/** The devices a heatmap can be narrowed to (a phone's page is laid out apart from a desktop's). */
export const HEATMAP_DEVICES = ["mobile", "tablet", "desktop"] as const;
export type HeatmapDevice = (typeof HEATMAP_DEVICES)[number];

export type HeatmapCell = { row: number; col: number; clicks: number };
export type Heatmap = {
  page: string;
  /** Clicks with a position, each event once. */
  clicks: number;
  /** Clicks at 0,0 (no position: a keyboard or a script pressed it), not on the grid. */
  unplaced: number;
  rows: number;
  columns: number;
  cellPx: number;
  /** Cells with clicks, hottest first (ties top to bottom, left to right). */
  cells: HeatmapCell[];
};

/**
 * The clicks (`action_type` click) on one page in the range, binned on the grid: column ⌊x / 80⌋ and row
 * ⌊y / 80⌋, where a click right of 1,280 px is in the last column and one below 4,800 px in the last row.
 * The outline has as many rows as the lowest click needs (at least 10). With `device`, only the clicks
 * made on that kind of device. The device is not in the sorting key, but every copy of a click (the
 * tracker re-sending it) comes from the same browser, so filtering on it cannot pick one copy over another.
 */
export async function heatmap(
  client: ClickHouseClient,
  page: string,
  range: Range,
  { now, device }: { now?: Date; device?: HeatmapDevice | null } = {},
): Promise<Heatmap> {
  const checked = HeatmapPage.parse(page);
  if (device && !(HEATMAP_DEVICES as readonly string[]).includes(device)) throw new Error(`unknown device ${JSON.stringify(device)}`);
  const only = `page = ${quote(checked)}${device ? ` AND device = ${quote(device)}` : ""}`;
  const from = await sources(client, reportWindow(range, now), { clicksOf: only });
  const rows = await select(
    client,
    `SELECT cell_col, cell_row, unplaced, sum(clicks) AS clicks FROM (${from.clicks}) GROUP BY cell_col, cell_row, unplaced`,
    z.object({ cell_col: uint, cell_row: uint, clicks: uint, unplaced: uint }),
  );
  const placed = rows.filter((r) => r.unplaced === 0);
  const cells = placed
    .map(({ cell_row, cell_col, clicks }) => ({ row: cell_row, col: cell_col, clicks }))
    .sort((a, b) => b.clicks - a.clicks || a.row - b.row || a.col - b.col);
  return {
    page: checked,
    clicks: placed.reduce((n, c) => n + c.clicks, 0),
    unplaced: rows.filter((r) => r.unplaced === 1).reduce((n, c) => n + c.clicks, 0),
    rows: Math.max(10, ...cells.map((c) => c.row + 1)),
    columns: HEATMAP_COLUMNS,
    cellPx: HEATMAP_CELL_PX,
    cells,
  };
}

/** The pages with the most clicks in the range (for choosing a heatmap), most first. */
export async function clickedPages(client: ClickHouseClient, range: Range, { now, limit = 20 }: { now?: Date; limit?: number } = {}) {
  if (!Number.isSafeInteger(limit) || limit <= 0) throw new Error("limit must be a positive whole number");
  const from = await sources(client, reportWindow(range, now));
  return select(
    client,
    `SELECT page, sum(clicks) AS clicks FROM (${from.clicks})
     GROUP BY page HAVING clicks > 0 ORDER BY clicks DESC, page ASC LIMIT ${limit}`,
    z.object({ page: z.string(), clicks: uint }),
  );
}

// ---------------------------------------------------------------------------------------------------------
// Conversion funnel.

/** `key`: the step, which the screen and the API name (app/analytics/funnel-steps.ts). */
export type FunnelStep = { key: FunnelStepKey; count: number; dropOff: number | null };

/** A conversion type's server-recorded facts in the window (platform tested after FINAL, never in WHERE). */
const serverFacts = (where: string, type: "order_placed" | "order_paid", columns: string) =>
  `SELECT ${columns} FROM (SELECT session_id, platform, metadata FROM conversions FINAL WHERE ${where} AND conversion_type = '${type}') WHERE ${FACT}`;
/** The order a fact is about: both order facts carry it in their metadata. */
const ORDER_ID = "visitParamExtractUInt(metadata, 'order_id')";

/**
 * The sessions (SESSION_KEY) in which the server recorded an order placed in the window. The server records
 * the order on the buyer's own tracking session (ADR 007, "Conversions"): the session that viewed the gig.
 */
const placedSessions = (where: string) => serverFacts(where, "order_placed", SESSION_KEY);

/**
 * The sessions of orders placed in the window that were paid in it. The platform records a payment when the
 * provider confirms it, on no visitor's session, so a payment is matched to its order by the order id.
 */
const paidSessions = (where: string) =>
  `SELECT session_key FROM (${serverFacts(where, "order_placed", `${SESSION_KEY} AS session_key, ${ORDER_ID} AS order_id`)})
    WHERE order_id IN (${serverFacts(where, "order_paid", ORDER_ID)})`;

/**
 * The funnel in the range (default 30d in the screen), in one unit, sessions, each step a share of the one
 * before (so a drop-off is never negative):
 * 1. **Visit**: sessions with a page view.
 * 2. **Gig view**: of those, sessions that viewed a gig's page (/gig/:id).
 * 3. **Contact or continue**: of those, sessions that went on from it: a page view of the gig's order form
 *    (/gig/:id/order) or of /messages, or a `contact_seller` or `package_selected` step the browser reported.
 * 4. **Order placed**: of those, sessions in which the server recorded an order placed (`order_placed`; a
 *    session that placed three orders counts once).
 * 5. **Paid**: of those, sessions with an order placed that was then paid (`order_paid` for the same order).
 * `dropOff` is the percentage lost from the step before (one decimal; null for the first; 0 when the step
 * before had none).
 */
export async function conversionFunnel(client: ClickHouseClient, range: Range, { now }: { now?: Date } = {}): Promise<FunnelStep[]> {
  const window = reportWindow(range, now);
  const where = inWindow(window);
  const visit = "pageview_count > 0";
  const gigView = `${visit} AND gig_view = 1`;
  const continued = `${gigView} AND continued = 1`;
  const placed = `${continued} AND session_key IN (${placedSessions(where)})`;
  const paid = `${placed} AND session_key IN (${paidSessions(where)})`;
  const [sessions] = await overSessions(
    client,
    await sources(client, window),
    // Named apart from the session rows' columns (an alias `continued` would stand for the column inside countIf).
    (rows) => `SELECT countIf(${visit}) AS step_visit, countIf(${gigView}) AS step_gig_view, countIf(${continued}) AS step_contact,
       countIf(${placed}) AS step_placed, countIf(${paid}) AS step_paid
     FROM (${rows})`,
    z.object({ step_visit: uint, step_gig_view: uint, step_contact: uint, step_placed: uint, step_paid: uint }),
    [],
  );
  const counts: [FunnelStepKey, number][] = [
    ["visit", sessions?.step_visit ?? 0],
    ["gig_view", sessions?.step_gig_view ?? 0],
    ["contact", sessions?.step_contact ?? 0],
    ["order_placed", sessions?.step_placed ?? 0],
    ["paid", sessions?.step_paid ?? 0],
  ];
  return counts.map(([key, count], i) => {
    const before = i === 0 ? null : counts[i - 1]![1];
    return { key, count, dropOff: before === null ? null : before === 0 ? 0 : Math.round(((before - count) * 1000) / before) / 10 };
  });
}

// ---------------------------------------------------------------------------------------------------------
// A member's journey and analytics.

/**
 * The window's sources, and the condition of the window's hours in which the member had a page view or an
 * action (whole hours, cut to the window): their page views are read from the events of those hours only,
 * found in session_hours rather than by reading every page view of the window for one user id (the events'
 * key starts with the hour, so the read is of those hours' granules).
 */
async function memberHours(client: ClickHouseClient, window: ReportWindow, id: number): Promise<{ pieces: string; hours: string }> {
  const { pieces } = await sources(client, window);
  const rows = await select(
    client,
    `SELECT DISTINCT toUInt32(hour) AS hour FROM (${pieces}) WHERE user_id = ${id} AND active = 1 ORDER BY hour`,
    z.object({ hour: uint }),
  );
  const span = windowSpan(window);
  const spans = rows.map(({ hour }) => ({ from: Math.max(hour, span.from), to: Math.min(hour + 60 * 60, span.to) })).filter((s) => s.from < s.to);
  return { pieces, hours: spansCondition(joined(spans)) };
}

export type JourneyStep = { at: string; kind: "page" | "conversion"; what: string; detail: string };
export type JourneySession = { sessionId: string; start: string; end: string; device: string; browser: string; country: string; steps: JourneyStep[] };

/** At most this many steps of a journey are read (the latest ones). */
export const JOURNEY_MAX_STEPS = 1_000;

/**
 * One member's journey in the range: their page views and the conversions recorded for them (by user id:
 * events sent while signed in with analytics allowed), grouped by session, each session's steps in time
 * order, the latest session first. At most JOURNEY_MAX_STEPS steps, the latest.
 */
export async function userJourney(client: ClickHouseClient, userId: number, range: Range, { now }: { now?: Date } = {}): Promise<JourneySession[]> {
  const id = checkedUserId(userId);
  const window = reportWindow(range, now);
  const where = `${inWindow(window)} AND user_id = ${id}`;
  const { hours } = await memberHours(client, window, id);
  const rows = await select(
    client,
    `SELECT * FROM (
       SELECT session_id, toUnixTimestamp(event_time) AS at, 'page' AS kind, page AS what, title AS detail,
              CAST(device AS String) AS s_device, CAST(browser AS String) AS s_browser, CAST(country AS String) AS s_country, event_id
       FROM pageviews FINAL WHERE (${hours}) AND user_id = ${id}
       UNION ALL
       SELECT session_id, toUnixTimestamp(event_time) AS at, 'conversion' AS kind, CAST(conversion_type AS String) AS what,
              toString(value) AS detail, CAST(device AS String) AS s_device, CAST(browser AS String) AS s_browser, CAST(country AS String) AS s_country, event_id
       FROM conversions FINAL WHERE ${where}
     )
     ORDER BY at DESC, event_id DESC LIMIT ${JOURNEY_MAX_STEPS}`,
    z.object({
      session_id: z.string(),
      at: uint,
      kind: z.enum(["page", "conversion"]),
      what: z.string(),
      detail: z.string(),
      s_device: z.string(),
      s_browser: z.string(),
      s_country: z.string(),
    }),
  );
  const sessions = new Map<string, JourneySession>();
  for (const row of rows.reverse()) {
    const at = new Date(row.at * 1000).toISOString();
    let session = sessions.get(row.session_id);
    if (!session) {
      session = { sessionId: row.session_id, start: at, end: at, device: row.s_device, browser: row.s_browser, country: row.s_country, steps: [] };
      sessions.set(row.session_id, session);
    }
    session.end = at;
    session.steps.push({ at, kind: row.kind, what: row.what, detail: row.detail });
  }
  return [...sessions.values()].sort((a, b) => b.start.localeCompare(a.start) || b.sessionId.localeCompare(a.sessionId));
}

export type MemberAnalytics = {
  sessions: number;
  pageViews: number;
  clicks: number;
  firstSeen: string | null;
  lastSeen: string | null;
  devices: { device: string; sessions: number; percentage: number }[];
  browsers: { browser: string; sessions: number; percentage: number }[];
  pages: { page: string; views: number }[];
  conversions: { type: string; count: number; value: number }[];
};

/**
 * A member's own analytics in the range, from the events that carry their user id (page views, actions,
 * conversions): sessions, page views, clicks, first and last event, devices and browsers (of each
 * session's first event), their 10 most viewed pages, and their conversions by type (server-recorded
 * business facts only for order and signup types; value summed, whole UGX).
 */
export async function memberAnalytics(client: ClickHouseClient, userId: number, range: Range, { now }: { now?: Date } = {}): Promise<MemberAnalytics> {
  const id = checkedUserId(userId);
  const window = reportWindow(range, now);
  const where = `${inWindow(window)} AND user_id = ${id}`;
  const { pieces, hours } = await memberHours(client, window, id);
  // The member's sessions, one row each (a member has hundreds at most): the totals, devices and browsers are
  // counted from them here, so the window's pieces are put together once rather than once per figure.
  const [sessions, pages, conversions] = await Promise.all([
    select(
      client,
      `SELECT session_id, argMin(device, first_time) AS session_device, argMin(browser, first_time) AS session_browser,
              sum(pageviews) AS page_views, sum(clicks) AS clicks,
              toUnixTimestamp(min(first_time)) AS first_seen, toUnixTimestamp(max(last_time)) AS last_seen
       FROM (${pieces}) WHERE user_id = ${id} AND active = 1
       GROUP BY session_id`,
      z.object({
        session_id: z.string(),
        session_device: z.string(),
        session_browser: z.string(),
        page_views: uint,
        clicks: uint,
        first_seen: uint,
        last_seen: uint,
      }),
    ),
    select(
      client,
      `SELECT page, uniqExact(event_id) AS views FROM pageviews FINAL WHERE (${hours}) AND user_id = ${id} GROUP BY page ORDER BY views DESC, page ASC LIMIT 10`,
      z.object({ page: z.string(), views: uint }),
    ),
    select(
      client,
      `SELECT CAST(conversion_type AS String) AS type, uniqExact(event_id) AS events, sum(value) AS total FROM conversions FINAL
       WHERE ${where} AND (${FACT} OR conversion_type NOT IN ('signup', 'gig_published', 'order_placed', 'order_paid', 'order_completed'))
       GROUP BY type ORDER BY type`,
      z.object({ type: z.string(), events: uint, total: uint }),
    ),
  ]);
  const all = sessions.length;
  const tally = (name: (s: (typeof sessions)[number]) => string) => {
    const counts = new Map<string, number>();
    for (const s of sessions) counts.set(name(s), (counts.get(name(s)) ?? 0) + 1);
    // Most sessions first, then the name in byte order (ClickHouse's ORDER BY name).
    return [...counts].sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0));
  };
  const seen = all > 0;
  return {
    sessions: all,
    pageViews: sessions.reduce((n, s) => n + s.page_views, 0),
    clicks: sessions.reduce((n, s) => n + s.clicks, 0),
    firstSeen: seen ? new Date(Math.min(...sessions.map((s) => s.first_seen)) * 1000).toISOString() : null,
    lastSeen: seen ? new Date(Math.max(...sessions.map((s) => s.last_seen)) * 1000).toISOString() : null,
    devices: tally((s) => s.session_device).map(([device, n]) => ({ device, sessions: n, percentage: percentage(n, all) })),
    browsers: tally((s) => s.session_browser).map(([browser, n]) => ({ browser, sessions: n, percentage: percentage(n, all) })),
    pages,
    conversions: conversions.map((c) => ({ type: c.type, count: c.events, value: c.total })),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Reading a screen's GET form.

const RANGE_NAMES = Object.keys(RANGES) as Range[];

/** The `range` of a query string: one of 1d, 7d, 30d, 90d; `fallback` when absent; the error's catalogue key when not one of them. */
export function rangeParam(params: URLSearchParams, fallback: Range): { range: Range; error: string | null } {
  const value = params.get("range");
  if (value === null || value === "") return { range: fallback, error: null };
  if ((RANGE_NAMES as string[]).includes(value)) return { range: value as Range, error: null };
  return { range: fallback, error: "admin.insights.rangeError" };
}

/** A member id from a form or a path: a positive whole number, or the error's catalogue key. */
export function memberIdParam(value: string | null | undefined): { id: number | null; error: string | null } {
  if (value === null || value === undefined || value.trim() === "") return { id: null, error: null };
  const trimmed = value.trim();
  if (!/^\d{1,12}$/.test(trimmed) || Number(trimmed) <= 0) return { id: null, error: "admin.journey.badId" };
  return { id: Number(trimmed), error: null };
}

/**
 * A screen's ClickHouse read, or the screen's message for it ("Failed to fetch heatmap data", ...) when
 * ClickHouse fails: the screen answers 503 with the message rather than a 500. The cause goes to the log.
 */
export async function readOrFailure<T>(read: Promise<T>, message: string): Promise<{ ok: true; value: T } | { ok: false; message: string }> {
  try {
    return { ok: true, value: await read };
  } catch (error) {
    log.error(`[analytics] ${message}: ${error instanceof Error ? error.message : String(error)}`);
    return { ok: false, message };
  }
}
