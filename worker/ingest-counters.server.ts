/**
 * The worker's half of the pipeline's counters (app/analytics/pipeline-stats.server.ts): `inserted` and
 * `failed`, added to the lifetime hash and to this minute's hash; and the move of the minute hashes (the web's
 * counts too) into ClickHouse's pipeline_minutes, every few seconds and on close.
 */
import type { ClickHouseClient } from "@clickhouse/client";
import type { Redis } from "ioredis";
import { clickHouseErrorMessage } from "../app/analytics/clickhouse-sql.server";
import { countMinute, rollupPipelineMinutes } from "../app/analytics/pipeline-stats.server";
import { log } from "../app/server/log.server";
import { ingestEvents } from "../app/server/metrics.server";

/** The Redis hash of the pipeline's lifetime counters (fields accepted, inserted, failed, dropped:<reason>). */
export function analyticsCountersKey(prefix: string) {
  return `${prefix}:analytics:counters`;
}

export type Counters = {
  /** Adds to a counter; logs and carries on when Redis refuses (a counter is not worth holding events for). */
  count: (field: "inserted" | "failed", n: number) => Promise<void>;
  /** Moves the minute hashes to ClickHouse now; one move at a time (a call during a move joins it). */
  rollup: () => Promise<void>;
  /** Stops the periodic move. */
  stop: () => void;
};

export function startCounters(
  redis: Redis,
  clickhouse: ClickHouseClient,
  prefix: string,
  { rollupIntervalMs, signal }: { rollupIntervalMs: number; signal: AbortSignal },
): Counters {
  const countersKey = analyticsCountersKey(prefix);

  async function count(field: "inserted" | "failed", n: number) {
    if (n <= 0) return;
    ingestEvents.inc({ stage: field === "inserted" ? "stored" : "failed" }, n);
    const failed = (error: Error) => log.error(`[ingest] could not count ${n} ${field}: ${error.message}`);
    // The lifetime hash, and this minute's hash for the pipeline health screen (moved to ClickHouse by rollup).
    await Promise.all([redis.hincrby(countersKey, field, n).catch(failed), countMinute(redis, prefix, [[field, n]]).catch(failed)]);
  }

  let rolling: Promise<void> | null = null;
  let lastError = 0;
  function rollup(): Promise<void> {
    rolling ??= rollupPipelineMinutes(redis, clickhouse, prefix, { signal })
      .then(
        () => undefined,
        (error: Error) => {
          // Nothing is lost: what was not moved stays in Redis for the next round.
          if (Date.now() - lastError < 60_000) return;
          lastError = Date.now();
          log.error(`[ingest] could not move the pipeline counters to ClickHouse: ${clickHouseErrorMessage(error)}`);
        },
      )
      .finally(() => {
        rolling = null;
      });
    return rolling;
  }
  const timer = setInterval(() => void rollup(), rollupIntervalMs);
  timer.unref();

  return { count, rollup, stop: () => clearInterval(timer) };
}
