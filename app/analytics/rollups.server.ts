/**
 * The builder of the reports' derived tables (migrations/clickhouse/003_rollups.sql, ADR 018), which the
 * worker runs (worker/rollups-job.server.ts): each day's tables written from its events as a new version, then
 * published in rollup_builds. Their rows' SQL is app/analytics/rollup-sql.server.ts; how a report reads them
 * beside the events, app/analytics/rollup-sources.server.ts.
 *
 * Freshness: every round builds today again up to the whole minute two minutes ago (GRACE_SECONDS: the
 * tracker re-sends the server's page view within seconds), so the events a report reads itself are its
 * window's last few minutes and its ragged start, never a whole hour in progress (on 18.16 an hour of
 * events cost a session report ~100 ms at 10M events). An event that arrives later for a built time marks its day dirty
 * (the worker, after its insert: `markLate`), and the next round rebuilds the day: until then, at most a
 * minute, the reports miss it.
 */
import type { ClickHouseClient } from "@clickhouse/client";
import type Redis from "ioredis";
import { z } from "zod";
import {
  builds,
  CLICK_COLUMNS,
  clicksFromEvents,
  DAY,
  hourFloor,
  minuteFloor,
  pageDaysSql,
  pageHoursFromEvents,
  select,
  sessionDaysSql,
  sessionHoursSql,
  spansCondition,
  uint,
} from "~/analytics/rollup-sql.server";

/** A minute is built once it ended this long ago. */
export const GRACE_SECONDS = 120;

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
