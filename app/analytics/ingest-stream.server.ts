/**
 * The handoff of tracked events from the web processes to the worker (ADR 025): a Redis stream, read by the
 * worker's consumer group in batches. One entry is one group of requests answered together (ADR 009), at
 * most MAX_EVENTS_PER_REQUEST events, in one field `events` (JSON). The web answers 202 once Redis holds the
 * entry; the worker deletes it (XACK and XDEL in one MULTI) once its events are in ClickHouse. So the stream
 * holds exactly the entries not yet written: undelivered ones (waiting) and ones a worker holds (pending).
 *
 * BullMQ's ingest queue stays for what is not the hot path: an entry ClickHouse refuses, or one that killed
 * workers, becomes a job there and fails with its reason (the pipeline screen lists the failed set and
 * replays it, pipeline-replay.server.ts), and the worker still consumes jobs, so a replayed job, or one a web
 * process from before this change queued, is written the same way.
 */
import type { JobsOptions } from "bullmq";
import type { Redis } from "ioredis";
import type { QueuedEvent } from "~/analytics/events";

/** The stream's key (the prefix is QUEUE_PREFIX). */
export function ingestStreamKey(prefix: string) {
  return `${prefix}:analytics:stream`;
}

/** The worker's consumer group: every worker process is one consumer of it. */
export const INGEST_GROUP = "ingest";

/** The one field of an entry. */
export const EVENTS_FIELD = "events";

/**
 * Options of every job of the BullMQ ingest queue (a handed-over entry, or a job an older web process queued).
 * The worker keeps a job active while ClickHouse is down; these attempts are for a worker that dies mid-job:
 * 8 tries, 1 s doubling (about two minutes), then the failed set.
 */
export const INGEST_JOB_OPTIONS: JobsOptions = {
  removeOnComplete: true,
  removeOnFail: false,
  attempts: 8,
  backoff: { type: "exponential", delay: 1_000 },
};

/** Appends one entry; resolves with its id once Redis holds it. */
export async function appendEntry(redis: Redis, prefix: string, events: QueuedEvent[]): Promise<string> {
  const id = await redis.xadd(ingestStreamKey(prefix), "*", EVENTS_FIELD, JSON.stringify(events));
  return id as string;
}

/** The events of an entry's fields (`[name, value, ...]`), or what was there when it is not a JSON array. */
export function entryEvents(fields: string[]): unknown {
  const at = fields.indexOf(EVENTS_FIELD);
  if (at < 0 || at % 2 === 1) return undefined;
  try {
    return JSON.parse(fields[at + 1] ?? "");
  } catch {
    return fields[at + 1];
  }
}

/** The time Redis gave an entry (its id is `<ms>-<seq>`). */
export function entryTimeMs(id: string): number {
  return Number(id.slice(0, id.indexOf("-")));
}

export type StreamEntry = { id: string; events: QueuedEvent[] };

/** Every entry the stream holds, oldest first (for tests and tools; the stream is short when the worker keeps up). */
export async function streamEntries(redis: Redis, prefix: string): Promise<StreamEntry[]> {
  const entries = await redis.xrange(ingestStreamKey(prefix), "-", "+");
  return entries.map(([id, fields]) => {
    const events = entryEvents(fields);
    return { id, events: Array.isArray(events) ? (events as QueuedEvent[]) : [] };
  });
}

export type StreamDepth = {
  /** Entries no worker has read yet. */
  waiting: number;
  /** Entries a worker holds (read, not yet in ClickHouse). */
  active: number;
  /** When the oldest waiting entry was added, in milliseconds; null when none waits. */
  oldestWaitingMs: number | null;
};

/** How many entries wait and are held, and the oldest waiting one's time (XLEN, XINFO GROUPS, one XRANGE). */
export async function streamDepth(redis: Redis, prefix: string): Promise<StreamDepth> {
  const key = ingestStreamKey(prefix);
  const length = await redis.xlen(key);
  if (length === 0) return { waiting: 0, active: 0, oldestWaitingMs: null };
  let pending = 0;
  let lastDelivered = "0-0";
  try {
    const groups = (await redis.xinfo("GROUPS", key)) as unknown[][];
    for (const group of groups) {
      const info = fieldMap(group);
      if (info.get("name") !== INGEST_GROUP) continue;
      pending = Number(info.get("pending") ?? 0);
      lastDelivered = String(info.get("last-delivered-id") ?? "0-0");
    }
  } catch {
    // No stream or no group yet (no worker has started on this prefix): everything waits.
  }
  const waiting = Math.max(0, length - pending);
  if (waiting === 0) return { waiting: 0, active: pending, oldestWaitingMs: null };
  const [first] = await redis.xrange(key, `(${lastDelivered}`, "+", "COUNT", 1);
  return { waiting, active: pending, oldestWaitingMs: first ? entryTimeMs(first[0]) : null };
}

function fieldMap(flat: unknown[]): Map<string, unknown> {
  const map = new Map<string, unknown>();
  for (let i = 0; i + 1 < flat.length; i += 2) map.set(String(flat[i]), flat[i + 1]);
  return map;
}
