/**
 * The handoff of tracked events from the web processes to the worker (ADR 036): a Redis stream, read by the
 * worker's consumer group in batches. One entry is one group of requests answered together, at
 * most MAX_EVENTS_PER_REQUEST events, in one field `events` (JSON). The web answers 202 once Redis holds the
 * entry; the worker deletes it (XACK and XDEL in one MULTI) once its events are in ClickHouse. So the stream
 * holds exactly the entries not yet written: undelivered ones (waiting) and ones a worker holds (pending).
 *
 * An entry that fails for good (ClickHouse refuses its data, it is not events at all, or workers died holding
 * it ten times) moves to the dead letters, a second stream, with its reason; the pipeline screen lists them
 * and replays them into the ingest stream (pipeline-replay.server.ts). The design is ADR 036.
 */
import type { ChainableCommander, Redis } from "ioredis";
import type { QueuedEvent } from "~/analytics/events";

/** The stream's key (the prefix is QUEUE_PREFIX). */
export function ingestStreamKey(prefix: string) {
  return `${prefix}:analytics:stream`;
}

/** The worker's consumer group: every worker process is one consumer of it. */
export const INGEST_GROUP = "ingest";

/** The one field of an entry. */
export const EVENTS_FIELD = "events";

/** The dead letters' key: entries that failed for good, each `events` (as it was), `reason` and `queued` (ms). */
export function deadLetterKey(prefix: string) {
  return `${prefix}:analytics:dead`;
}

/** The dead letters keep about this many entries (XADD MAXLEN ~): the oldest go first. */
export const DEAD_LETTERS_MAX = 100_000;

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

/**
 * Queues, on `tx`, the move of ingest entries to the dead letters: each added there with its reason, then
 * acknowledged and deleted from the ingest stream, in the one MULTI the caller executes.
 */
export function moveToDeadLetters(tx: ChainableCommander, prefix: string, entries: { id: string; payload: string; reason: string }[]) {
  const key = ingestStreamKey(prefix);
  for (const { id, payload, reason } of entries) {
    tx.xadd(deadLetterKey(prefix), "MAXLEN", "~", DEAD_LETTERS_MAX, "*", EVENTS_FIELD, payload, "reason", reason, "queued", String(entryTimeMs(id)));
  }
  const ids = entries.map((e) => e.id);
  return tx.xack(key, INGEST_GROUP, ...ids).xdel(key, ...ids);
}

export type DeadLetter = { id: string; events: number; reason: string; queuedAt: string; failedAt: string };

function deadLetterOf([id, fields]: [string, string[]]): DeadLetter {
  const field = (name: string) => {
    const at = fields.indexOf(name);
    return at >= 0 && at % 2 === 0 ? (fields[at + 1] ?? "") : "";
  };
  const events = entryEvents(fields);
  const queued = Number(field("queued")) || entryTimeMs(id);
  return {
    id,
    events: Array.isArray(events) ? events.length : 0,
    reason: field("reason").slice(0, 500),
    queuedAt: new Date(queued).toISOString(),
    failedAt: new Date(entryTimeMs(id)).toISOString(),
  };
}

/** The dead letters, newest first (`newest`) or oldest first: at most `limit`. */
export async function deadLetters(redis: Redis, prefix: string, { limit, newest = true }: { limit: number; newest?: boolean }): Promise<DeadLetter[]> {
  const key = deadLetterKey(prefix);
  const entries = newest ? await redis.xrevrange(key, "+", "-", "COUNT", limit) : await redis.xrange(key, "-", "+", "COUNT", limit);
  return entries.map(deadLetterOf);
}

/** How many dead letters there are. */
export function deadLetterCount(redis: Redis, prefix: string): Promise<number> {
  return redis.xlen(deadLetterKey(prefix));
}

/**
 * Each named dead letter still there goes back to the ingest stream (a new entry with its events) and leaves the
 * dead letters, atomically (one script): two replays at once move each entry once. Resolves with the ids moved.
 */
const REPLAY_SCRIPT = `
local moved = {}
for _, id in ipairs(ARGV) do
  local found = redis.call('XRANGE', KEYS[1], id, id)
  if #found > 0 then
    local fields = found[1][2]
    local payload = ''
    for i = 1, #fields, 2 do
      if fields[i] == 'events' then payload = fields[i + 1] end
    end
    redis.call('XADD', KEYS[2], '*', 'events', payload)
    redis.call('XDEL', KEYS[1], id)
    table.insert(moved, id)
  end
end
return moved`;

export async function replayDeadLetters(redis: Redis, prefix: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  return (await redis.eval(REPLAY_SCRIPT, 2, deadLetterKey(prefix), ingestStreamKey(prefix), ...ids)) as string[];
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
