/**
 * The analytics consumer: the tracking endpoints' Redis stream → ClickHouse, in batches (ADR 036). It is put
 * together from one module per job:
 * - ingest-stream-consumer.server.ts: the consumer-group protocol (read, hold, claim, settle, dead letters);
 * - ingest-rows.server.ts: each event's table and row, placed from its truncated address (geo.server.ts);
 * - ingest-batcher.server.ts: the batches (INGEST_BATCH_ROWS rows or INGEST_BATCH_MS old);
 * - ingest-insert.server.ts: one INSERT per table, retried with backoff, bisected when ClickHouse refuses data;
 * - ingest-counters.server.ts: the `inserted` and `failed` counters and their move to ClickHouse.
 *
 * An entry is acknowledged and deleted only once its rows are in ClickHouse: at-least-once. Duplicates (a
 * worker killed after the insert and before the acknowledgement, a stalled entry read again, the same event
 * re-sent by the browser) are harmless: the tables are ReplacingMergeTree on event_id.
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import type { ClickHouseClient } from "@clickhouse/client";
import type { Redis } from "ioredis";
import { clickHouseOptions, createClickHouse } from "../app/analytics/clickhouse.server";
import { markLate } from "../app/analytics/rollups.server";
import type { Env } from "../app/server/env.server";
import { createRedis } from "../app/server/redis.server";
import { openPlaces } from "./geo.server";
import { createBatcher, type BatchStats, type Entry } from "./ingest-batcher.server";
import { startCounters } from "./ingest-counters.server";
import { createInserter, type InsertStats } from "./ingest-insert.server";
import { rollupSourceTimes } from "./ingest-rows.server";
import { createStreamConsumer, type ConsumerStats } from "./ingest-stream-consumer.server";
import { log } from "../app/server/log.server";
import { jobDuration, jobRuns } from "../app/server/metrics.server";

export type IngestOptions = {
  /** Used for the stream's acknowledgements and claims and for the counters. Not closed by close(); the
   * blocking reads use a duplicate of it, which close() does close. */
  redis?: Redis;
  /** Where rows go (its database is the target). Not closed by close(). */
  clickhouse?: ClickHouseClient;
  /** Override INGEST_BATCH_ROWS / INGEST_BATCH_MS. */
  batchRows?: number;
  batchMs?: number;
  /** Stream entries held at once; they are what fills a batch. */
  concurrency?: number;
  /** How long a stream entry may sit idle in another consumer's hands before this one claims it (its own are renewed). */
  lockDurationMs?: number;
  /** How often this worker renews its entries and looks for entries whose worker died. */
  stalledIntervalMs?: number;
  /** Stream entries asked for in one read (XREADGROUP COUNT). */
  readCount?: number;
  /** Backoff between retries of an insert that failed for a reason other than its data. */
  retryInitialMs?: number;
  retryMaxMs?: number;
  /** close() waits this long for ClickHouse to take what is buffered; after that it gives the entries back to the stream. */
  closeTimeoutMs?: number;
  /** How often the counters' minute hashes are moved from Redis to ClickHouse (pipeline-stats.server.ts). */
  rollupIntervalMs?: number;
};

export type IngestStats = BatchStats & InsertStats & ConsumerStats;

export type Ingest = {
  /** Inserts whatever is buffered now and waits for every batch in progress. */
  flush: () => Promise<void>;
  /** Stops reading, inserts what is buffered (or gives it back after closeTimeoutMs), then closes. */
  close: () => Promise<void>;
  /** Live figures (read them, do not write them). */
  stats: Readonly<IngestStats>;
  /** Moves the counters' minute hashes to ClickHouse now (also done every rollupIntervalMs and on close). */
  rollup: () => Promise<void>;
};

/** A stream entry delivered this many times (each worker died holding it) goes to the dead letters. */
const MAX_DELIVERIES = 10;

export async function startIngest(env: Env, options: IngestOptions = {}): Promise<Ingest> {
  const ownRedis = !options.redis;
  const redis = options.redis ?? createRedis(env.REDIS_URL, { maxRetriesPerRequest: null });
  const ownClickHouse = !options.clickhouse;
  const clickhouse = options.clickhouse ?? createClickHouse(clickHouseOptions(env));
  const prefix = env.QUEUE_PREFIX;
  const concurrency = options.concurrency ?? 500;

  // The GeoIP files are read now rather than by the first read (which waits for them, should this fail).
  openPlaces().catch((error: Error) => log.error(`[ingest] GeoIP database: ${error.message}`));

  const stats: IngestStats = {
    batches: 0,
    batchRows: [],
    insertedRows: 0,
    retries: 0,
    streamEntries: 0,
    claimedEntries: 0,
    deadLettered: 0,
    failedEvents: 0,
    releasedEntries: 0,
    pendingEntries: 0,
    pendingRows: 0,
  };
  let closing = false;
  /** Aborted when close() runs out of time: retries stop, an insert in flight is cut, entries are given back. */
  const abandon = new AbortController();

  const counters = startCounters(redis, clickhouse, prefix, { rollupIntervalMs: options.rollupIntervalMs ?? 10_000, signal: abandon.signal });
  const insert = createInserter(clickhouse, {
    retry: { initialMs: options.retryInitialMs ?? 200, maxMs: options.retryMaxMs ?? 10_000 },
    signal: abandon.signal,
    stats,
  });

  /** A sealed batch: its rows in, the late days named, the counts, then its entries settled on the stream. */
  async function write(entries: Entry[]) {
    const started = performance.now();
    try {
      const inserted = await insert(entries);
      // Events for hours the reports' builder may have built already: name their days for a rebuild.
      const written = entries.filter((e) => !e.failure).map((e) => e.rows);
      await markLate(redis, prefix, rollupSourceTimes(written)).catch((error: Error) =>
        log.error(`[ingest] could not name late days for the reports' builder: ${error.message}`),
      );
      // Counted before the entries are acknowledged, so an acknowledged entry's events are always in the counters.
      await counters.count("inserted", inserted);
      // One line per batch (ADR 057): the ingest's job run.
      const ms = performance.now() - started;
      const failed = entries.filter((e) => e.failure).length;
      jobRuns.inc({ job: "ingest", outcome: failed ? "failed" : "ok" });
      jobDuration.observe({ job: "ingest" }, ms / 1000);
      log.info(
        { job: "ingest", outcome: failed ? "failed" : "ok", ms: Math.round(ms), counts: { entries: entries.length, inserted, failedEntries: failed } },
        "[ingest] batch written",
      );
    } catch (error) {
      // Not expected (insert errors are handled there); dead-letter the entries visibly rather than hang them.
      jobRuns.inc({ job: "ingest", outcome: "failed" });
      log.error({ job: "ingest", outcome: "failed", err: error }, `[ingest] batch: ${(error as Error).message}`);
      for (const entry of entries) entry.failure ??= error as Error;
    }
    await stream.settle(entries);
  }

  const batcher = createBatcher({
    batchRows: options.batchRows ?? env.INGEST_BATCH_ROWS,
    batchMs: options.batchMs ?? env.INGEST_BATCH_MS,
    maxPending: concurrency,
    closing: () => closing,
    stats,
    write,
  });

  // Each worker process is a consumer of its own name in the group.
  const stream = createStreamConsumer({
    redis,
    prefix,
    consumer: `${os.hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`,
    concurrency,
    readCount: options.readCount ?? 500,
    lockDurationMs: options.lockDurationMs ?? 15_000,
    stalledIntervalMs: options.stalledIntervalMs ?? 5_000,
    maxDeliveries: MAX_DELIVERIES,
    stats,
    batch: batcher.add,
    full: batcher.seal,
    countFailed: (events) => counters.count("failed", events),
  });
  await stream.start();

  async function flush() {
    await batcher.flush();
    await stream.deadLettering();
  }

  let closed: Promise<void> | undefined;
  function close() {
    closed ??= (async () => {
      closing = true;
      counters.stop();
      const giveUp = setTimeout(() => abandon.abort(), options.closeTimeoutMs ?? 10_000);
      // Nothing more is read; what was read is in the batches, written (or given back) by the flush.
      await stream.stop();
      await flush();
      // The last counts (this batch's inserted) go to ClickHouse too, if it answers within a moment.
      if (!abandon.signal.aborted) await Promise.race([counters.rollup(), sleep(2_000, undefined, { ref: false })]);
      clearTimeout(giveUp);
      if (ownRedis) await redis.quit().catch(() => redis.disconnect());
      if (ownClickHouse) await clickhouse.close();
    })();
    return closed;
  }

  return { flush, close, stats, rollup: counters.rollup };
}
