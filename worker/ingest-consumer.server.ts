/**
 * The analytics consumer: the tracking endpoints' stream (ADR 025) and the BullMQ ingest queue → ClickHouse,
 * in batches (docs/architecture.md, "A tracking event").
 *
 * The web processes append their events to a Redis stream, which this process reads as one consumer of the
 * group `ingest`, many entries a read. BullMQ's ingest queue carries what is not the hot path: an entry that
 * could not be written becomes a job there (and fails with its reason, for an admin to see and replay), a
 * replayed job, a job a web process from before the stream queued. Both feed the same batches.
 *
 * An entry (or job) is not inserted on its own. Its events join an in-memory batch; the batch is inserted
 * when it reaches `INGEST_BATCH_ROWS` rows or is `INGEST_BATCH_MS` old (or when no other entry can arrive
 * until some are done, or on flush/close), as one JSONEachRow INSERT per table. Only then are the batch's
 * entries acknowledged and deleted (XACK and XDEL in one MULTI) and its jobs completed: at-least-once.
 * Duplicates (a worker killed after the insert and before the ack, a stalled entry read again, the same event
 * re-sent by the browser) are harmless: the tables are ReplacingMergeTree on event_id.
 *
 * - ClickHouse down (or any error that is not about the data): the batch is retried with exponential
 *   backoff, its entries held (their idle time renewed) and its jobs active (their locks renewed by BullMQ);
 *   if the process dies, another worker claims the entries once idle `lockDuration` (XPENDING, XCLAIM) and
 *   BullMQ runs the jobs again.
 * - ClickHouse refuses the data (a parse or type error): the table's rows are bisected by entry until the
 *   ones at fault are found; the rest are inserted. A job at fault fails (BullMQ failed set, with ClickHouse's
 *   reason, never retried); a stream entry at fault becomes such a job (it is tried once more there, and
 *   fails with the reason). So does an entry that is not events at all. One delivered `maxStalledCount`
 *   times (workers died holding it) becomes an ordinary job: BullMQ's own stall limit then fails it, should
 *   it go on killing workers.
 *
 * Every event's row gets its country and city here, looked up from the truncated address the web process
 * queued (geo.server.ts; ADR 021, amended 2026-11-27): every path to ClickHouse (the endpoints, the server's
 * page views, the server's conversions, a replayed failed job) comes through this consumer, so each event is
 * placed once, as it is written. An event queued with its place (by a web process from before that change)
 * keeps it.
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import type { ClickHouseClient } from "@clickhouse/client";
import { Queue, UnrecoverableError, WaitingError, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { clickHouseOptions, createClickHouse } from "../app/analytics/clickhouse.server";
import {
  clickHouseErrorMessage,
  insertErrorKind,
  toDateTimeString,
} from "../app/analytics/clickhouse-sql.server";
import { INGEST_QUEUE, TABLES, type IngestJob, type QueuedEvent } from "../app/analytics/events";
import { EVENTS_FIELD, INGEST_GROUP, INGEST_JOB_OPTIONS, entryEvents, ingestStreamKey } from "../app/analytics/ingest-stream.server";
import { countMinute, rollupPipelineMinutes } from "../app/analytics/pipeline-stats.server";
import { markLate } from "../app/analytics/rollups.server";
import type { Env } from "../app/server/env.server";
import { createRedis } from "../app/server/redis.server";
import { openPlaces, UNKNOWN, type PlaceOf } from "./geo.server";

/** The Redis hash of the pipeline's counters (fields accepted, inserted, failed, dropped:<reason>). */
export function analyticsCountersKey(prefix: string) {
  return `${prefix}:analytics:counters`;
}

export type IngestOptions = {
  /**
   * Used for the BullMQ worker, the stream's acknowledgements and the counters; must have maxRetriesPerRequest:
   * null. Not closed by close(); the stream's blocking reads use a duplicate of it, which close() does close.
   */
  redis?: Redis;
  /** Where rows go (its database is the target). Not closed by close(). */
  clickhouse?: ClickHouseClient;
  /** Override INGEST_BATCH_ROWS / INGEST_BATCH_MS. */
  batchRows?: number;
  batchMs?: number;
  /** Jobs in progress at once, and stream entries held at once; they are what fills a batch. */
  concurrency?: number;
  /**
   * BullMQ lock of an active job; renewed every half of it while the job waits for its batch. Also how long a
   * stream entry may sit idle in another consumer's hands before this one claims it (its own are renewed).
   */
  lockDurationMs?: number;
  /** How often BullMQ looks for jobs whose worker died (their lock expired), and this worker for such entries. */
  stalledIntervalMs?: number;
  /** Stream entries asked for in one read (XREADGROUP COUNT). */
  readCount?: number;
  /** Backoff between retries of an insert that failed for a reason other than its data. */
  retryInitialMs?: number;
  retryMaxMs?: number;
  /**
   * close() waits this long for ClickHouse to take what is buffered; after that it hands the remaining
   * jobs back to the queue (waiting) for the next worker instead of holding the shutdown.
   */
  closeTimeoutMs?: number;
  /** How often the counters' minute hashes are moved from Redis to ClickHouse (pipeline-stats.server.ts). */
  rollupIntervalMs?: number;
};

export type IngestStats = {
  /** Batches inserted (or given back on close), each one INSERT per table it had rows for. */
  batches: number;
  /** Rows of each batch, oldest first (the last 1,000 batches). */
  batchRows: number[];
  /** Rows that ClickHouse accepted (the `inserted` counter). */
  insertedRows: number;
  /** Jobs failed for their data, and their events (the `failed` counter). */
  failedJobs: number;
  failedEvents: number;
  /** INSERTs that failed for a reason other than their data and were retried. */
  retries: number;
  /** Jobs (and stream entries) handed back because close() ran out of time. */
  releasedJobs: number;
  /** Stream entries read (claimed ones included), and those handed over to the BullMQ queue as jobs. */
  streamEntries: number;
  handedOver: number;
  /** Stream entries claimed from a consumer that stopped renewing them (a worker that died). */
  claimedEntries: number;
  /** Jobs and stream entries waiting for their batch right now, and their rows. */
  pendingJobs: number;
  pendingRows: number;
};

export type Ingest = {
  worker: Worker<IngestJob>;
  /** Inserts whatever is buffered now and waits for every batch in progress. */
  flush: () => Promise<void>;
  /** Stops taking jobs, inserts what is buffered (or hands it back after closeTimeoutMs), then closes. */
  close: () => Promise<void>;
  /** Live figures (read them, do not write them). */
  stats: Readonly<IngestStats>;
  /** Moves the counters' minute hashes to ClickHouse now (also done every rollupIntervalMs and on close). */
  rollup: () => Promise<void>;
};

type Row = Record<string, string | number>;

/**
 * The table and the row of one event; throws when the event is not one the pipeline knows. An event without
 * a place (what the web process queues) is placed by `placeOf` from its truncated address; one that carries a
 * place keeps it, "Unknown" included (an older web process looked it up from the whole address).
 *
 * Hot: every event passes here. Each row starts as the same object literal and gets its table's columns
 * assigned in a fixed order, so V8 keeps one shape per table; rows made with `{ ...base, ... }` cost 18 µs an
 * event against 1.5 µs this way (a copy per spread and an inline-cache miss per added column), 40% of the
 * worker's CPU at 20,000 events/s (bench:ingest, docs/benchmarks.md).
 */
export function toRow(event: QueuedEvent, placeOf: PlaceOf): { table: string; row: Row } {
  if (!event || typeof event !== "object") throw new Error("an event is not an object");
  const place = typeof event.country === "string" ? null : placeOf(event.ip);
  const row: Row = {
    event_id: event.event_id,
    session_id: event.session_id,
    user_id: event.user_id,
    event_time: dateTime(event.event_time),
    received_at: dateTime(event.received_at),
    platform: event.platform,
    ip: event.ip,
    country: place ? place.country : event.country!,
    city: place ? place.city : (event.city ?? UNKNOWN),
    device: event.device,
    browser: event.browser,
    os: event.os,
  };
  switch (event.kind) {
    case "session":
      row.user_agent = event.user_agent;
      row.screen_resolution = event.screen_resolution;
      row.timezone = event.timezone;
      return { table: TABLES.session, row };
    case "pageview":
      row.page = event.page;
      row.title = event.title;
      row.url = event.url;
      row.referrer = event.referrer;
      return { table: TABLES.pageview, row };
    case "error":
    case "action":
      // An /action event with action_type "error" is a JavaScript error: it goes to the errors table.
      if (event.kind === "error" || event.action_type === "error") {
        row.page = event.page;
        row.message = event.error_message;
        row.stack = event.error_stack;
        return { table: TABLES.error, row };
      }
      row.action_type = event.action_type;
      row.page = event.page;
      row.element_id = event.element_id;
      row.element_class = event.element_class;
      row.element_tag = event.element_tag;
      row.element_text = event.element_text;
      row.x = event.x;
      row.y = event.y;
      row.value = event.value;
      return { table: TABLES.action, row };
    case "conversion":
      row.conversion_type = event.conversion_type;
      row.value = event.value;
      row.metadata = event.metadata;
      return { table: TABLES.conversion, row };
    case "user_action":
      row.action = event.action;
      row.details = event.details;
      row.page = event.page;
      return { table: TABLES.user_action, row };
    default:
      throw new Error(`unknown event kind ${JSON.stringify((event as { kind?: unknown }).kind)}`);
  }
}

/** ISO (or ms) → 'YYYY-MM-DD hh:mm:ss' UTC; anything else is passed on for ClickHouse to judge (and refuse). */
function dateTime(value: string | number): string | number {
  return (typeof value === "string" || typeof value === "number" ? toDateTimeString(value) : null) ?? value;
}

/** Where a batch's entry came from: a BullMQ job (its processor waits on the promise) or a stream entry. */
type Source =
  | { kind: "job"; job: Job<IngestJob>; token: string | undefined; resolve: (value: { events: number }) => void; reject: (error: Error) => void }
  | { kind: "stream"; id: string; payload: string };

type Entry = {
  source: Source;
  events: number;
  rows: Map<string, Row[]>;
  /** Tables whose rows of this entry are not in yet. */
  open: number;
  failure: Error | null;
};

type Batch = { entries: Entry[]; rows: number };

/** The tables the reports' derived tables are built from. */
const ROLLUP_SOURCES = new Set([TABLES.pageview, TABLES.action, TABLES.conversion]);

/** The event times of a batch's inserted rows in the derived tables' source tables. */
function* lateTimes(entries: Entry[]): Iterable<string> {
  for (const entry of entries) {
    if (entry.failure) continue;
    for (const [table, rows] of entry.rows) {
      if (!ROLLUP_SOURCES.has(table)) continue;
      for (const row of rows) if (typeof row.event_time === "string") yield row.event_time;
    }
  }
}

const newBatch = (): Batch => ({ entries: [], rows: 0 });

export async function startIngest(env: Env, options: IngestOptions = {}): Promise<Ingest> {
  const batchRows = options.batchRows ?? env.INGEST_BATCH_ROWS;
  const batchMs = options.batchMs ?? env.INGEST_BATCH_MS;
  const concurrency = options.concurrency ?? 500;
  const retryInitialMs = options.retryInitialMs ?? 200;
  const retryMaxMs = options.retryMaxMs ?? 10_000;
  const closeTimeoutMs = options.closeTimeoutMs ?? 10_000;

  const ownRedis = !options.redis;
  const redis = options.redis ?? createRedis(env.REDIS_URL, { maxRetriesPerRequest: null });
  const ownClickHouse = !options.clickhouse;
  const clickhouse = options.clickhouse ?? createClickHouse(clickHouseOptions(env));
  const countersKey = analyticsCountersKey(env.QUEUE_PREFIX);

  // The GeoIP files are read now rather than by the first job (and read again by a job, should this fail).
  openPlaces().catch((error: Error) => console.error(`[ingest] GeoIP database: ${error.message}`));

  const stats: IngestStats = {
    batches: 0,
    batchRows: [],
    insertedRows: 0,
    failedJobs: 0,
    failedEvents: 0,
    retries: 0,
    releasedJobs: 0,
    streamEntries: 0,
    handedOver: 0,
    claimedEntries: 0,
    pendingJobs: 0,
    pendingRows: 0,
  };

  let current = newBatch();
  let timer: NodeJS.Timeout | undefined;
  const sealed: Batch[] = [];
  let draining: Promise<void> | null = null;
  let closing = false;
  /** Set when close() runs out of time: stop retrying (and cut an insert in flight), hand the jobs back. */
  let abandoned = false;
  const abandon = new AbortController();
  const wakers = new Set<() => void>();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        wakers.delete(done);
        resolve();
      };
      const t = setTimeout(done, ms);
      wakers.add(done);
    });

  async function count(field: "inserted" | "failed", n: number) {
    if (n <= 0) return;
    const failed = (error: Error) => console.error(`[ingest] could not count ${n} ${field}: ${error.message}`);
    // The lifetime hash, and this minute's hash for the pipeline health screen (moved to ClickHouse by rollup).
    await Promise.all([redis.hincrby(countersKey, field, n).catch(failed), countMinute(redis, env.QUEUE_PREFIX, [[field, n]]).catch(failed)]);
  }

  let rolling: Promise<void> | null = null;
  let lastRollupError = 0;
  function rollup(): Promise<void> {
    rolling ??= rollupPipelineMinutes(redis, clickhouse, env.QUEUE_PREFIX, { signal: abandon.signal })
      .then(
        () => undefined,
        (error: Error) => {
          // Nothing is lost: what was not moved stays in Redis for the next round.
          if (Date.now() - lastRollupError < 60_000) return;
          lastRollupError = Date.now();
          console.error(`[ingest] could not move the pipeline counters to ClickHouse: ${clickHouseErrorMessage(error)}`);
        },
      )
      .finally(() => {
        rolling = null;
      });
    return rolling;
  }
  const rollupTimer = setInterval(() => void rollup(), options.rollupIntervalMs ?? 10_000);
  rollupTimer.unref();

  function seal() {
    clearTimeout(timer);
    timer = undefined;
    if (current.entries.length === 0) return;
    sealed.push(current);
    current = newBatch();
    drain();
  }

  function drain() {
    if (draining) return;
    draining = (async () => {
      for (let batch = sealed.shift(); batch; batch = sealed.shift()) await insertBatch(batch);
    })().finally(() => {
      draining = null;
      if (sealed.length) drain();
    });
  }

  let failedInARow = 0;
  async function insertRows(table: string, rows: Row[]) {
    await clickhouse.insert({
      table,
      values: rows,
      format: "JSONEachRow",
      abort_signal: abandon.signal,
    });
  }

  /**
   * Inserts the rows the given jobs have for one table. Retries while the failure is not the data's; on a
   * data error, splits the jobs in halves until the ones at fault are alone, and marks those. Returns
   * false when close() gave up before the rows were in.
   */
  async function insertParts(table: string, entries: Entry[], tally: { inserted: number }): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      if (abandoned) return false;
      const rows = entries.flatMap((e) => e.rows.get(table) ?? []);
      try {
        await insertRows(table, rows);
        if (failedInARow > 0) console.log(`[ingest] ClickHouse takes inserts again (after ${failedInARow} failures)`);
        failedInARow = 0;
        stats.insertedRows += rows.length;
        tally.inserted += rows.length;
        for (const e of entries) e.open--;
        return true;
      } catch (error) {
        if (insertErrorKind(error) === "data") {
          const [only] = entries;
          if (only && entries.length === 1) {
            only.failure ??= new Error(`ClickHouse refused the ${table} rows: ${clickHouseErrorMessage(error)}`);
            only.open--;
            return true;
          }
          const half = entries.length >> 1;
          const first = await insertParts(table, entries.slice(0, half), tally);
          const second = await insertParts(table, entries.slice(half), tally);
          return first && second;
        }
        if (abandoned) return false;
        stats.retries++;
        failedInARow++;
        const delay = Math.min(retryMaxMs, retryInitialMs * 2 ** Math.min(attempt, 20)) * (0.8 + Math.random() * 0.4);
        if (failedInARow === 1 || failedInARow % 10 === 0) {
          console.error(
            `[ingest] insert into ${table} failed (${failedInARow} in a row): ${clickHouseErrorMessage(error)}; retrying in ${Math.round(delay)} ms`,
          );
        }
        await sleep(delay);
      }
    }
  }

  async function insertBatch(batch: Batch) {
    stats.batches++;
    stats.batchRows.push(batch.rows);
    if (stats.batchRows.length > 1000) stats.batchRows.shift();
    const tally = { inserted: 0 };

    const byTable = new Map<string, Entry[]>();
    for (const entry of batch.entries) {
      for (const table of entry.rows.keys()) {
        const list = byTable.get(table) ?? [];
        list.push(entry);
        byTable.set(table, list);
      }
    }
    try {
      await Promise.all([...byTable].map(([table, entries]) => insertParts(table, entries, tally)));
      // Events for hours the reports' builder may have built already: name their days for a rebuild.
      await markLate(redis, env.QUEUE_PREFIX, lateTimes(batch.entries)).catch((error: Error) => console.error(`[ingest] could not name late days for the reports' builder: ${error.message}`));
      // A stream entry at fault is counted failed when its job fails (it is tried once more as a job).
      const failedEvents = batch.entries.reduce((n, e) => n + (e.failure && e.source.kind === "job" ? e.events : 0), 0);
      // Counted before the entries are acknowledged, so an acknowledged entry's events are always in the counters.
      await Promise.all([count("inserted", tally.inserted), count("failed", failedEvents)]);
    } catch (error) {
      // Not expected (insert errors are handled above); fail the entries visibly rather than hang them.
      console.error(`[ingest] batch: ${(error as Error).message}`);
      for (const entry of batch.entries) entry.failure ??= error as Error;
    }
    const done: Entry[] = [];
    for (const entry of batch.entries) {
      stats.pendingJobs--;
      stats.pendingRows -= entry.events;
      if (entry.source.kind === "job") settleJob(entry, entry.source);
      else done.push(entry);
    }
    if (done.length > 0) await stream.settle(done);
  }

  function settleJob(entry: Entry, job: Extract<Source, { kind: "job" }>) {
    if (entry.failure) {
      stats.failedJobs++;
      stats.failedEvents += entry.events;
      job.reject(new UnrecoverableError(entry.failure.message));
    } else if (entry.open === 0) {
      job.resolve({ events: entry.events });
    } else {
      // close() gave up on ClickHouse: back to the queue, where the next worker picks the job up.
      stats.releasedJobs++;
      job.job.moveToWait(job.token).then(
        () => job.reject(new WaitingError()),
        (error: Error) => job.reject(error),
      );
    }
  }

  function add(source: Source, rows: Map<string, Row[]>, events: number) {
    if (current.rows > 0 && current.rows + events > batchRows) seal();
    current.entries.push({ source, events, rows, open: rows.size, failure: null });
    current.rows += events;
    stats.pendingJobs++;
    stats.pendingRows += events;
    if (current.rows >= batchRows || stats.pendingJobs >= concurrency || closing) {
      // Full, or no other job can arrive until some of these complete, or shutting down.
      if (closing) setImmediate(seal);
      else seal();
    } else {
      timer ??= setTimeout(seal, batchMs);
    }
  }

  /** An entry's rows by table; throws when an event is not one the pipeline knows. */
  function rowsOf(events: unknown, placeOf: PlaceOf): Map<string, Row[]> {
    if (!Array.isArray(events)) throw new Error("the job has no events array");
    const rows = new Map<string, Row[]>();
    for (const event of events as QueuedEvent[]) {
      const { table, row } = toRow(event, placeOf);
      const list = rows.get(table);
      if (list) list.push(row);
      else rows.set(table, [row]);
    }
    return rows;
  }

  async function processor(job: Job<IngestJob>, token?: string) {
    const events: unknown = job.data?.events;
    // Without the GeoIP files no event can be placed: the job fails like one whose worker died (BullMQ tries
    // it again with backoff, then keeps it in the failed set to be replayed), rather than be stored as Unknown.
    const placeOf = await openPlaces().catch((error: Error) => {
      throw new Error(`GeoIP database: ${error.message}`);
    });
    let rows: Map<string, Row[]>;
    try {
      rows = rowsOf(events, placeOf);
    } catch (error) {
      const n = Array.isArray(events) ? events.length : 0;
      stats.failedJobs++;
      stats.failedEvents += n;
      await count("failed", n);
      throw new UnrecoverableError((error as Error).message);
    }
    const n = (events as unknown[]).length;
    if (n === 0) return { events: 0 };
    return new Promise<{ events: number }>((resolve, reject) => add({ kind: "job", job, token, resolve, reject }, rows, n));
  }

  // The stream (ADR 025). Reads block, so they have a connection of their own; acknowledgements, claims and
  // hand-overs go on the shared one. Each worker process is a consumer of its own name in the group.
  const streamKey = ingestStreamKey(env.QUEUE_PREFIX);
  const consumer = `${os.hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const lockDurationMs = options.lockDurationMs ?? 15_000;
  const stalledIntervalMs = options.stalledIntervalMs ?? 5_000;
  const maxStalledCount = 10;
  const readCount = options.readCount ?? 500;
  const handOverQueue = new Queue<IngestJob>(INGEST_QUEUE, { connection: redis, prefix: env.QUEUE_PREFIX, defaultJobOptions: INGEST_JOB_OPTIONS });
  handOverQueue.on("error", (error: Error) => console.error(`[ingest] queue: ${error.message}`));
  const stream = streamConsumer();

  function streamConsumer() {
    // Named, so close() can find its client id in CLIENT LIST (the id changes whenever it reconnects).
    const readerName = `${consumer}-reader`;
    const reader = redis.duplicate({ connectionName: readerName });
    reader.on("error", () => undefined); // said by the read loop
    /** Entries read and not yet acknowledged (or handed over): renewed while held, never claimed from ourselves. */
    const held = new Set<string>();
    const handing = new Set<Promise<void>>();
    let room: (() => void) | undefined;
    let lastError = 0;
    const logEvery = (message: string) => {
      if (Date.now() - lastError < 5_000) return;
      lastError = Date.now();
      console.error(`[ingest] stream: ${message}`);
    };

    const ensureGroup = () =>
      redis.xgroup("CREATE", streamKey, INGEST_GROUP, "0", "MKSTREAM").catch((error: Error) => {
        if (!/BUSYGROUP/.test(error.message)) throw error;
      });

    const release = (ids: Iterable<string>) => {
      for (const id of ids) held.delete(id);
      if (held.size < concurrency) {
        room?.();
        room = undefined;
      }
    };

    /** Takes one entry read from the stream into the batch, or hands it over when it is not events we can write. */
    function take(id: string, fields: string[] | null, placeOf: PlaceOf) {
      if (held.has(id)) return;
      if (!fields) {
        // Claimed after it was deleted (acknowledged by another worker meanwhile): nothing left to do.
        void acknowledge([id]).catch(() => undefined);
        return;
      }
      held.add(id);
      stats.streamEntries++;
      const payload = fields[fields.indexOf(EVENTS_FIELD) + 1] ?? "";
      const events = entryEvents(fields);
      let rows: Map<string, Row[]>;
      try {
        rows = rowsOf(events, placeOf);
      } catch (error) {
        void handOver([{ id, events, reason: (error as Error).message }]);
        return;
      }
      const n = (events as unknown[]).length;
      if (n === 0) {
        void acknowledge([id]).then(() => release([id]), () => release([id]));
        return;
      }
      add({ kind: "stream", id, payload }, rows, n);
    }

    const acknowledge = async (ids: string[]) => {
      await redis.multi().xack(streamKey, INGEST_GROUP, ...ids).xdel(streamKey, ...ids).exec();
    };

    /**
     * Entries that cannot be written here become jobs of the BullMQ queue (where they fail with their reason,
     * or go in, should ClickHouse take them after all), then are acknowledged. If Redis refuses, they stay
     * pending and are claimed again later.
     */
    function handOver(list: { id: string; events: unknown; reason: string }[]) {
      const done = handOverNow(list).finally(() => handing.delete(done));
      handing.add(done);
      return done;
    }
    async function handOverNow(list: { id: string; events: unknown; reason: string }[]) {
      try {
        await handOverQueue.addBulk(list.map(({ events }) => ({ name: "events", data: { events } as IngestJob })));
        await acknowledge(list.map((e) => e.id));
        stats.handedOver += list.length;
        for (const { id, reason } of list) console.error(`[ingest] stream entry ${id} handed over to the failed-job queue: ${reason}`);
      } catch (error) {
        logEvery(`could not hand ${list.length} entries over to the queue: ${(error as Error).message}`);
      } finally {
        release(list.map((e) => e.id));
      }
    }

    /** After a batch: acknowledge and delete what is in, hand over what was refused, give back what close() gave up on. */
    async function settle(entries: Entry[]) {
      const inserted: string[] = [];
      const refused: { id: string; events: unknown; reason: string }[] = [];
      const given: { id: string; payload: string }[] = [];
      for (const entry of entries) {
        if (entry.source.kind !== "stream") continue;
        const { id, payload } = entry.source;
        if (entry.failure) refused.push({ id, events: JSON.parse(payload) as unknown, reason: entry.failure.message });
        else if (entry.open === 0) inserted.push(id);
        else given.push({ id, payload });
      }
      if (refused.length > 0) await handOver(refused);
      if (inserted.length + given.length === 0) return;
      const ids = [...inserted, ...given.map((g) => g.id)];
      try {
        // Given back as new entries (to be read by the next worker at once) in the same MULTI that removes them.
        const tx = redis.multi();
        for (const { payload } of given) tx.xadd(streamKey, "*", EVENTS_FIELD, payload);
        await tx.xack(streamKey, INGEST_GROUP, ...ids).xdel(streamKey, ...ids).exec();
        stats.releasedJobs += given.length;
      } catch (error) {
        // They stay pending: claimed again once idle, and written again (ReplacingMergeTree drops the copies).
        logEvery(`could not acknowledge ${ids.length} entries: ${(error as Error).message}`);
      } finally {
        release(ids);
      }
    }

    /** Renews the idle time of the entries held here; claims those another consumer left idle for lockDuration. */
    async function claim(placeOf: PlaceOf) {
      if (held.size > 0) await redis.xclaim(streamKey, INGEST_GROUP, consumer, 0, ...held, "JUSTID");
      const pending = (await redis.xpending(streamKey, INGEST_GROUP, "IDLE", lockDurationMs, "-", "+", readCount)) as [string, string, number, number][];
      const stalled = pending.filter(([id]) => !held.has(id));
      if (stalled.length === 0 || closing) return;
      const dead = stalled.filter(([, , , deliveries]) => deliveries >= maxStalledCount).map(([id]) => id);
      const claimed = (await redis.xclaim(streamKey, INGEST_GROUP, consumer, lockDurationMs, ...stalled.map(([id]) => id))) as ([string, string[] | null] | null)[];
      stats.claimedEntries += claimed.length;
      const deadIds = new Set(dead);
      const tooOften: { id: string; events: unknown; reason: string }[] = [];
      for (const entry of claimed) {
        if (!entry) continue;
        const [id, fields] = entry;
        if (fields && deadIds.has(id)) {
          held.add(id);
          stats.streamEntries++;
          tooOften.push({ id, events: entryEvents(fields), reason: `read ${maxStalledCount} times by workers that stopped before writing it` });
        } else take(id, fields, placeOf);
      }
      if (tooOften.length > 0) await handOver(tooOften);
    }

    /** The claim in progress: stop() waits for it, so what it claimed is in the batches close() writes. */
    let claiming: Promise<void> | undefined;
    const claimTimer = setInterval(() => {
      if (claiming || closing) return;
      claiming = openPlaces()
        .then(claim)
        .catch((error: Error) => {
          if (/NOGROUP/.test(error.message)) return ensureGroup();
          logEvery(`claiming stalled entries: ${error.message}`);
        })
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => {
          claiming = undefined;
        });
    }, stalledIntervalMs);
    claimTimer.unref();

    async function readLoop() {
      while (!closing) {
        if (held.size >= concurrency) {
          await new Promise<void>((resolve) => (room = resolve));
          continue;
        }
        let reply: [string, [string, string[]][]][] | null;
        try {
          // Without the GeoIP files no event can be placed: nothing is read until they open (the entries wait).
          const placeOf = await openPlaces();
          reply = (await reader.xreadgroup(
            "GROUP",
            INGEST_GROUP,
            consumer,
            "COUNT",
            Math.min(readCount, concurrency - held.size),
            "BLOCK",
            5_000,
            "STREAMS",
            streamKey,
            ">",
          )) as typeof reply;
          if (!reply) continue;
          for (const [, entries] of reply) for (const [id, fields] of entries) take(id, fields, placeOf);
          // No other entry can arrive until some of these are done.
          if (held.size >= concurrency) seal();
        } catch (error) {
          if (closing) break;
          const message = (error as Error).message;
          if (/NOGROUP/.test(message)) await ensureGroup().catch((e: Error) => logEvery(e.message));
          else {
            logEvery(message);
            await sleep(1_000);
          }
        }
      }
    }

    let reading: Promise<void> | undefined;
    return {
      settle,
      start: async () => {
        await ensureGroup();
        reading = readLoop();
      },
      /** Stops reading (a blocked read returns at once, having taken nothing) and closes the reading connection. */
      stop: async () => {
        clearInterval(claimTimer);
        room?.();
        // UNBLOCK makes a blocked XREADGROUP return nothing, so no entry is given to a read nobody will see;
        // with Redis away there is no read to lose, and the connection is dropped.
        const stopped = reading ?? Promise.resolve();
        if (redis.status === "ready") {
          const unblocked = clientIdOf(redis, readerName)
            .then((id) => (id ? redis.client("UNBLOCK", id) : undefined))
            .catch(() => undefined);
          await Promise.race([stopped.then(() => unblocked), new Promise((resolve) => setTimeout(resolve, 1_000))]);
        }
        reader.disconnect();
        await Promise.all([stopped, claiming]);
      },
      /** Waits for the hand-overs in progress. */
      handingOver: () => Promise.all([...handing]),
    };
  }

  const worker = new Worker<IngestJob>(INGEST_QUEUE, processor, {
    connection: redis,
    prefix: env.QUEUE_PREFIX,
    concurrency,
    // A killed worker's jobs run again within about lockDuration + 2 × stalledInterval (~25 s); a live
    // worker renews its locks every lockDuration / 2, also while it waits for ClickHouse.
    lockDuration: options.lockDurationMs ?? 15_000,
    stalledInterval: options.stalledIntervalMs ?? 5_000,
    // A job whose worker died is run again; after this many deaths it is failed (a job that kills workers).
    maxStalledCount: 10,
    // Completed jobs are only a receipt; failed ones stay for an admin to see and replay.
    removeOnComplete: { age: 3600, count: 10_000 },
    removeOnFail: { count: 100_000 },
  });
  let lastWorkerError = 0;
  worker.on("error", (error) => {
    if (Date.now() - lastWorkerError < 5000) return;
    lastWorkerError = Date.now();
    console.error(`[ingest] queue: ${error.message}`);
  });
  worker.on("failed", (job, error) => {
    if (job && error instanceof UnrecoverableError) console.error(`[ingest] job ${job.id} failed: ${error.message}`);
  });
  await Promise.all([worker.waitUntilReady(), stream.start()]);

  async function flush() {
    for (;;) {
      seal();
      const waiting = draining;
      if (!waiting) break;
      await waiting;
    }
    await stream.handingOver();
  }

  let closed: Promise<void> | undefined;
  function close() {
    closed ??= (async () => {
      closing = true;
      clearInterval(rollupTimer);
      const giveUp = setTimeout(() => {
        abandoned = true;
        abandon.abort();
        for (const wake of [...wakers]) wake();
      }, closeTimeoutMs);
      // worker.close() stops fetching and waits for the active jobs, which wait for the flush; the stream stops
      // being read, and what it gave is in the batches.
      const workerClosed = worker.close();
      await stream.stop();
      await flush();
      await workerClosed;
      await flush();
      await handOverQueue.close().catch(() => undefined);
      // The last counts (this batch's inserted) go to ClickHouse too, if it answers within a moment.
      if (!abandoned) await Promise.race([rollup(), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      clearTimeout(giveUp);
      if (ownRedis) await redis.quit().catch(() => redis.disconnect());
      if (ownClickHouse) await clickhouse.close();
    })();
    return closed;
  }

  return { worker, flush, close, stats, rollup };
}

/** The client id of the connection of this name (CLIENT LIST), or undefined when there is none. */
async function clientIdOf(redis: Redis, name: string): Promise<string | undefined> {
  const list = String(await redis.call("CLIENT", "LIST", "TYPE", "normal"));
  for (const line of list.split("\n")) {
    if (line.includes(` name=${name} `)) return /^id=(\d+)/.exec(line)?.[1];
  }
  return undefined;
}
