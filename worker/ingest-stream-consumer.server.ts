/**
 * The ingest stream's consumer-group protocol (ADR 036), one consumer of the group `ingest` per worker process.
 *
 * - Read: XREADGROUP on a connection of its own (reads block), at most `concurrency` entries held at once.
 * - Held: an entry read and not yet settled is this consumer's; every `stalledIntervalMs` their idle time is
 *   renewed (XCLAIM to ourselves, JUSTID), so no other consumer claims them while ClickHouse is slow or down.
 * - Claim: entries another consumer left idle for `lockDurationMs` (a worker that died) are claimed
 *   (XPENDING IDLE, XCLAIM) and written here; one delivered `maxDeliveries` times (workers died holding it)
 *   goes to the dead letters instead.
 * - Settle, once an entry's batch is done: written → XACK and XDEL in one MULTI; refused → moved to the dead
 *   letters in that MULTI; given up by close() → added again as a new entry (read by the next worker at once)
 *   in that MULTI. If Redis refuses the MULTI, the entries stay pending, are claimed again once idle, and are
 *   written again (ReplacingMergeTree drops the copies): at-least-once.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import { EVENTS_FIELD, INGEST_GROUP, entryEvents, ingestStreamKey, moveToDeadLetters } from "../app/analytics/ingest-stream.server";
import type { Entry } from "./ingest-batcher.server";
import { rowsOf } from "./ingest-rows.server";
import { openPlaces, type PlaceOf } from "./geo.server";
import { log } from "../app/server/log.server";

export type ConsumerStats = {
  /** Stream entries read (claimed ones included). */
  streamEntries: number;
  /** Stream entries claimed from a consumer that stopped renewing them (a worker that died). */
  claimedEntries: number;
  /** Entries moved to the dead letters, and their events (the `failed` counter). */
  deadLettered: number;
  failedEvents: number;
  /** Entries given back to the stream because close() ran out of time. */
  releasedEntries: number;
};

export type ConsumerOptions = {
  redis: Redis;
  prefix: string;
  /** This consumer's name in the group (one per worker process). */
  consumer: string;
  concurrency: number;
  readCount: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  maxDeliveries: number;
  stats: ConsumerStats;
  /** Takes an entry into a batch. */
  batch: (entry: Entry) => void;
  /** Called when `concurrency` entries are held: no other can be read until some are settled. */
  full: () => void;
  /** Counts events that failed for good (before their entries leave the stream). */
  countFailed: (events: number) => Promise<void>;
};

type Refused = { id: string; payload: string; events: number; reason: string };

export type StreamConsumer = {
  start: () => Promise<void>;
  /** Stops reading (a blocked read returns at once, having taken nothing) and closes the reading connection. */
  stop: () => Promise<void>;
  /** After a batch: acknowledges what is in, dead-letters what was refused, gives back what close() gave up on. */
  settle: (entries: Entry[]) => Promise<void>;
  /** Waits for the moves to the dead letters in progress. */
  deadLettering: () => Promise<unknown>;
};

export function createStreamConsumer(o: ConsumerOptions): StreamConsumer {
  const { redis, consumer, concurrency, readCount, lockDurationMs, stats } = o;
  const streamKey = ingestStreamKey(o.prefix);
  // Named, so stop() can find its client id in CLIENT LIST (the id changes whenever it reconnects).
  const readerName = `${consumer}-reader`;
  const reader = redis.duplicate({ connectionName: readerName });
  reader.on("error", () => undefined); // said by the read loop
  /** Entries read and not yet settled: renewed while held, never claimed from ourselves. */
  const held = new Set<string>();
  const moving = new Set<Promise<void>>();
  const stopping = new AbortController();
  let room: (() => void) | undefined;
  let lastError = 0;
  const logEvery = (message: string) => {
    if (Date.now() - lastError < 5_000) return;
    lastError = Date.now();
    log.error(`[ingest] stream: ${message}`);
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

  const acknowledge = async (ids: string[]) => {
    await redis
      .multi()
      .xack(streamKey, INGEST_GROUP, ...ids)
      .xdel(streamKey, ...ids)
      .exec();
  };

  /** Takes one entry read from the stream into a batch, or dead-letters it when it is not events we can write. */
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
    const n = Array.isArray(events) ? events.length : 0;
    let rows;
    try {
      rows = rowsOf(events, placeOf);
    } catch (error) {
      void deadLetter([{ id, payload, events: n, reason: (error as Error).message }]);
      return;
    }
    if (n === 0) {
      void acknowledge([id]).then(
        () => release([id]),
        () => release([id]),
      );
      return;
    }
    o.batch({ id, payload, events: n, rows, open: rows.size, failure: null });
  }

  /** Moves entries to the dead letters (counted failed first); if Redis refuses, they stay pending for a later claim. */
  function deadLetter(list: Refused[]) {
    const done = deadLetterNow(list).finally(() => moving.delete(done));
    moving.add(done);
    return done;
  }
  async function deadLetterNow(list: Refused[]) {
    try {
      const events = list.reduce((n, e) => n + e.events, 0);
      await o.countFailed(events);
      await moveToDeadLetters(redis.multi(), o.prefix, list).exec();
      stats.deadLettered += list.length;
      stats.failedEvents += events;
      for (const { id, reason } of list) log.error(`[ingest] stream entry ${id} moved to the dead letters: ${reason}`);
    } catch (error) {
      logEvery(`could not move ${list.length} entries to the dead letters: ${(error as Error).message}`);
    } finally {
      release(list.map((e) => e.id));
    }
  }

  async function settle(entries: Entry[]) {
    const inserted: string[] = [];
    const refused: Refused[] = [];
    const given: Entry[] = [];
    for (const entry of entries) {
      if (entry.failure) refused.push({ id: entry.id, payload: entry.payload, events: entry.events, reason: entry.failure.message });
      else if (entry.open === 0) inserted.push(entry.id);
      else given.push(entry);
    }
    if (refused.length > 0) await deadLetter(refused);
    if (inserted.length + given.length === 0) return;
    const ids = [...inserted, ...given.map((g) => g.id)];
    try {
      // Given back as new entries (to be read by the next worker at once) in the same MULTI that removes them.
      const tx = redis.multi();
      for (const { payload } of given) tx.xadd(streamKey, "*", EVENTS_FIELD, payload);
      await tx
        .xack(streamKey, INGEST_GROUP, ...ids)
        .xdel(streamKey, ...ids)
        .exec();
      stats.releasedEntries += given.length;
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
    if (stalled.length === 0 || stopping.signal.aborted) return;
    const dead = new Set(stalled.filter(([, , , deliveries]) => deliveries >= o.maxDeliveries).map(([id]) => id));
    const claimed = (await redis.xclaim(streamKey, INGEST_GROUP, consumer, lockDurationMs, ...stalled.map(([id]) => id))) as (
      [string, string[] | null] | null
    )[];
    stats.claimedEntries += claimed.length;
    const tooOften: Refused[] = [];
    for (const entry of claimed) {
      if (!entry) continue;
      const [id, fields] = entry;
      if (fields && dead.has(id)) {
        held.add(id);
        stats.streamEntries++;
        const events = entryEvents(fields);
        const payload = fields[fields.indexOf(EVENTS_FIELD) + 1] ?? "";
        const reason = `read ${o.maxDeliveries} times by workers that stopped before writing it`;
        tooOften.push({ id, payload, events: Array.isArray(events) ? events.length : 0, reason });
      } else take(id, fields, placeOf);
    }
    if (tooOften.length > 0) await deadLetter(tooOften);
  }

  /** The claim in progress: stop() waits for it, so what it claimed is in the batches close() writes. */
  let claiming: Promise<void> | undefined;
  const claimTimer = setInterval(() => {
    if (claiming || stopping.signal.aborted) return;
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
  }, o.stalledIntervalMs);
  claimTimer.unref();

  async function readLoop() {
    while (!stopping.signal.aborted) {
      if (held.size >= concurrency) {
        await new Promise<void>((resolve) => (room = resolve));
        continue;
      }
      try {
        // Without the GeoIP files no event can be placed: nothing is read until they open (the entries wait).
        const placeOf = await openPlaces();
        const reply = (await reader.xreadgroup(
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
        )) as [string, [string, string[]][]][] | null;
        if (!reply) continue;
        for (const [, entries] of reply) for (const [id, fields] of entries) take(id, fields, placeOf);
        // No other entry can arrive until some of these are done.
        if (held.size >= concurrency) o.full();
      } catch (error) {
        if (stopping.signal.aborted) break;
        const message = (error as Error).message;
        if (/NOGROUP/.test(message)) await ensureGroup().catch((e: Error) => logEvery(e.message));
        else {
          logEvery(message);
          await sleep(1_000, undefined, { signal: stopping.signal }).catch(() => undefined);
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
    stop: async () => {
      stopping.abort();
      clearInterval(claimTimer);
      room?.();
      // UNBLOCK makes a blocked XREADGROUP return nothing, so no entry is given to a read nobody will see;
      // with Redis away there is no read to lose, and the connection is dropped.
      const stopped = reading ?? Promise.resolve();
      if (redis.status === "ready") {
        const unblocked = clientIdOf(redis, readerName)
          .then((id) => (id ? redis.client("UNBLOCK", id) : undefined))
          .catch(() => undefined);
        await Promise.race([stopped.then(() => unblocked), sleep(1_000)]);
      }
      reader.disconnect();
      await Promise.all([stopped, claiming]);
    },
    deadLettering: () => Promise.all([...moving]),
  };
}

/** The client id of the connection of this name (CLIENT LIST), or undefined when there is none. */
async function clientIdOf(redis: Redis, name: string): Promise<string | undefined> {
  const list = String(await redis.call("CLIENT", "LIST", "TYPE", "normal"));
  for (const line of list.split("\n")) {
    if (line.includes(` name=${name} `)) return /^id=(\d+)/.exec(line)?.[1];
  }
  return undefined;
}
