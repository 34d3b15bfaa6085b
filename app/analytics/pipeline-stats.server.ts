/**
 * The analytics pipeline's health: its counters per minute, its stream, and its dead letters (ADR 036).
 *
 * Counters. The web counts `accepted` and `dropped:<reason>`, the worker `inserted` and `failed`. Each side
 * adds its counts to a Redis hash of the current UTC minute (`<prefix>:analytics:minute:<epoch minute>`,
 * kept two days at most, named in the set `<prefix>:analytics:minutes`), beside the lifetime hash older
 * tools read (`<prefix>:analytics:counters`). The worker moves the minute hashes into ClickHouse's
 * `pipeline_minutes` (migrations/clickhouse/002) every few seconds (`rollupPipelineMinutes`): it renames a
 * hash to `<prefix>:analytics:rolling:<minute>:<batch>` (atomic: counts that arrive later start a new
 * hash), inserts its fields under that batch id, then deletes it. A move cut short is finished by the next one, under the same batch id, so ReplacingMergeTree keeps
 * its rows once. Readers sum `n` per minute and counter, and add the minute hashes not moved yet, so the
 * screen is current to the second.
 *
 * Stream and dead letters: the ingest stream's depth; the entries that failed for good (ClickHouse refused
 * their data, they were not events, or workers died on them ten times) are listed; pipeline-replay.server.ts
 * moves them back into the stream, audited.
 */
import { randomUUID } from "node:crypto";
import type { ClickHouseClient } from "@clickhouse/client";
import type { Redis } from "ioredis";
import { z } from "zod";
import { deadLetterCount, deadLetters, streamDepth, type DeadLetter } from "~/analytics/ingest-stream.server";

/** A minute hash lives this long in Redis if no worker ever moves it. */
export const MINUTE_KEY_TTL_SECONDS = 2 * 24 * 60 * 60;
/** The screen's window: the last day, minute by minute. */
export const HEALTH_WINDOW_MINUTES = 24 * 60;

const minutePrefix = (prefix: string) => `${prefix}:analytics:minute:`;
const rollingPrefix = (prefix: string) => `${prefix}:analytics:rolling:`;
/**
 * Sets naming the minute hashes (by minute) and the hashes being moved (by key), so neither the worker
 * nor the screen has to SCAN a keyspace that also holds the scheduled jobs' BullMQ keys.
 */
const minuteIndex = (prefix: string) => `${prefix}:analytics:minutes`;
const rollingIndex = (prefix: string) => `${prefix}:analytics:rollings`;

/** The Redis hash of the counts of the minute of `timeMs`. */
export function minuteKey(prefix: string, timeMs: number) {
  return `${minutePrefix(prefix)}${Math.floor(timeMs / 60_000)}`;
}

/**
 * Adds counts to the current minute's hash (fields such as `accepted`, `dropped:bot`), as one pipeline.
 * Rejects when Redis does; callers log and carry on (a counter is not worth refusing an event for).
 */
export async function countMinute(redis: Redis, prefix: string, counts: Iterable<[string, number]>, nowMs = Date.now()) {
  const key = minuteKey(prefix, nowMs);
  const pipeline = redis.pipeline();
  let any = false;
  for (const [field, n] of counts) {
    if (n <= 0) continue;
    pipeline.hincrby(key, field, n);
    any = true;
  }
  if (!any) return;
  pipeline.expire(key, MINUTE_KEY_TTL_SECONDS);
  pipeline.sadd(minuteIndex(prefix), String(Math.floor(nowMs / 60_000)));
  const results = (await pipeline.exec()) ?? [];
  const failed = results.find(([error]) => error);
  if (failed?.[0]) throw failed[0];
}

const COUNTER_FIELD = /^(accepted|inserted|failed|dropped:[a-z_]{1,40})$/;

/**
 * Moves every minute hash of `prefix` into `pipeline_minutes` (the ClickHouse client's database). Returns
 * the rows inserted. Throws when ClickHouse or Redis fails; what was not moved stays in Redis for the next call.
 *
 * Each minute hash is taken in one MULTI: off the minute index, renamed to a rolling key, onto the rolling
 * index. A count that lands in between puts the minute back on the index and either rides along in the
 * rename or starts a new hash; a minute on the index whose hash is gone (moved, or expired) only fails
 * its RENAME, and leaves an empty rolling entry that the next step clears.
 */
export async function rollupPipelineMinutes(
  redis: Redis,
  clickhouse: ClickHouseClient,
  prefix: string,
  { signal }: { signal?: AbortSignal } = {},
): Promise<number> {
  for (const minute of await redis.smembers(minuteIndex(prefix))) {
    if (!/^\d{1,12}$/.test(minute)) {
      await redis.srem(minuteIndex(prefix), minute);
      continue;
    }
    const rolling = `${rollingPrefix(prefix)}${minute}:${randomUUID()}`;
    // Errors inside EXEC (RENAME of a hash another worker moved first) are expected: nothing to do then.
    await redis
      .multi()
      .srem(minuteIndex(prefix), minute)
      .rename(`${minutePrefix(prefix)}${minute}`, rolling)
      .sadd(rollingIndex(prefix), rolling)
      .exec();
  }
  // Every rolling hash, including those of a move that did not finish (inserted again under the same batch).
  let inserted = 0;
  for (const key of await redis.smembers(rollingIndex(prefix))) {
    const match = key.startsWith(rollingPrefix(prefix)) ? /^(\d{1,12}):([0-9a-f-]{36})$/.exec(key.slice(rollingPrefix(prefix).length)) : null;
    if (!match) {
      await redis.srem(rollingIndex(prefix), key);
      continue;
    }
    const minuteMs = Number(match[1]) * 60_000;
    const fields = await redis.hgetall(key);
    const rows = Object.entries(fields)
      .filter(([field, n]) => COUNTER_FIELD.test(field) && Number(n) > 0)
      .map(([counter, n]) => ({ minute: Math.floor(minuteMs / 1000), counter, batch: match[2], n: Number(n) }));
    if (rows.length > 0) {
      await clickhouse.insert({ table: "pipeline_minutes", values: rows, format: "JSONEachRow", abort_signal: signal });
      inserted += rows.length;
    }
    await redis.multi().del(key).srem(rollingIndex(prefix), key).exec();
  }
  return inserted;
}

export type DropCounts = Record<string, number>;
export type MinuteCounts = { minute: string; accepted: number; inserted: number; failed: number; dropped: number; droppedBy: DropCounts };
export type PipelineCounts = {
  /** Minutes with any count, oldest first (ISO times of each minute's start, UTC). */
  minutes: MinuteCounts[];
  totals: Omit<MinuteCounts, "minute">;
  /** The window: (from, to], Unix seconds; to is the end of the current minute. */
  from: number;
  to: number;
};

function addCount(into: Omit<MinuteCounts, "minute">, counter: string, n: number) {
  if (counter === "accepted" || counter === "inserted" || counter === "failed") into[counter] += n;
  else if (counter.startsWith("dropped:")) {
    const reason = counter.slice("dropped:".length);
    into.dropped += n;
    into.droppedBy[reason] = (into.droppedBy[reason] ?? 0) + n;
  }
}

const empty = (): Omit<MinuteCounts, "minute"> => ({ accepted: 0, inserted: 0, failed: 0, dropped: 0, droppedBy: {} });

/**
 * The counters per minute over the last `minutes` minutes up to `now`: what ClickHouse holds, plus the
 * minute hashes still in Redis (not moved yet). A hash being moved right now (renamed, not yet inserted)
 * is in neither for that moment.
 */
export async function pipelineCounts(
  clickhouse: ClickHouseClient,
  redis: Redis,
  prefix: string,
  { now = new Date(), minutes = HEALTH_WINDOW_MINUTES }: { now?: Date; minutes?: number } = {},
): Promise<PipelineCounts> {
  const nowMinute = Math.floor(now.getTime() / 60_000);
  if (!Number.isSafeInteger(nowMinute) || !Number.isSafeInteger(minutes) || minutes <= 0) throw new Error("bad pipeline window");
  const fromMinute = nowMinute - minutes + 1;
  const from = fromMinute * 60;
  const to = (nowMinute + 1) * 60;
  const result = await clickhouse.query({
    // Aliases differ from the columns' names: on some versions an alias named like a column replaces it everywhere.
    query: `SELECT toUnixTimestamp(minute) AS minute_at, counter, sum(n) AS total FROM pipeline_minutes FINAL
            WHERE minute >= toDateTime(${from}) AND minute < toDateTime(${to})
            GROUP BY minute_at, counter ORDER BY minute_at`,
    format: "JSONEachRow",
  });
  const rows = z
    .array(z.object({ minute_at: z.coerce.number().int(), counter: z.string(), total: z.coerce.number().int().nonnegative() }))
    .parse(await result.json());
  const byMinute = new Map<number, Omit<MinuteCounts, "minute">>();
  const at = (minuteSeconds: number) => {
    let entry = byMinute.get(minuteSeconds);
    if (!entry) byMinute.set(minuteSeconds, (entry = empty()));
    return entry;
  };
  for (const row of rows) addCount(at(row.minute_at), row.counter, row.total);
  for (const name of await redis.smembers(minuteIndex(prefix))) {
    const minute = Number(name);
    if (!Number.isSafeInteger(minute) || minute < fromMinute || minute > nowMinute) continue;
    for (const [counter, n] of Object.entries(await redis.hgetall(`${minutePrefix(prefix)}${minute}`))) {
      if (COUNTER_FIELD.test(counter)) addCount(at(minute * 60), counter, Number(n) || 0);
    }
  }
  const totals = empty();
  const list = [...byMinute]
    .sort(([a], [b]) => a - b)
    .map(([minute, counts]) => {
      totals.accepted += counts.accepted;
      totals.inserted += counts.inserted;
      totals.failed += counts.failed;
      totals.dropped += counts.dropped;
      for (const [reason, n] of Object.entries(counts.droppedBy)) totals.droppedBy[reason] = (totals.droppedBy[reason] ?? 0) + n;
      return { minute: new Date(minute * 1000).toISOString(), ...counts };
    });
  return { minutes: list, totals, from, to };
}

// ---------------------------------------------------------------------------------------------------------
// The stream and its dead letters.

export type QueueHealth = {
  waiting: number;
  active: number;
  /** Entries in the dead letters. */
  failed: number;
  /** Age in milliseconds of the oldest entry waiting (0 when none waits): how far behind the worker is. */
  lagMs: number;
  oldestWaitingAt: string | null;
};

/** The ingest stream's entries: waiting (not read by a worker yet), being inserted (held by a worker), failed (dead letters), and the age of the oldest that waits. */
export async function queueHealth(redis: Redis, prefix: string, now = Date.now()): Promise<QueueHealth> {
  const [stream, failed] = await Promise.all([streamDepth(redis, prefix), deadLetterCount(redis, prefix)]);
  const at = stream.oldestWaitingMs ?? undefined;
  return {
    waiting: stream.waiting,
    active: stream.active,
    failed,
    lagMs: at ? Math.max(0, now - at) : 0,
    oldestWaitingAt: at ? new Date(at).toISOString() : null,
  };
}

export type FailedEntry = DeadLetter;

/** The dead letters, newest first: at most `limit`. */
export function failedEntries(redis: Redis, prefix: string, limit = 50): Promise<FailedEntry[]> {
  return deadLetters(redis, prefix, { limit });
}
