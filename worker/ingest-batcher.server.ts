/**
 * Batching (ADR 036): an entry's events join an in-memory batch, which is sealed when it reaches `batchRows`
 * rows or is `batchMs` old, when `maxPending` entries wait (no other can arrive until some are done), or
 * on flush. Sealed batches are written one after another by `write`.
 */
import type { Row } from "./ingest-rows.server";

/** One stream entry in a batch: its rows by table, and what became of them. */
export type Entry = {
  /** The stream entry's id, and its `events` field as it was read (given back or dead-lettered as is). */
  id: string;
  payload: string;
  events: number;
  rows: Map<string, Row[]>;
  /** Tables whose rows of this entry are not in yet. */
  open: number;
  /** Set when ClickHouse refused this entry's rows. */
  failure: Error | null;
};

export type BatchStats = {
  /** Batches written (or given back on close), each one INSERT per table it had rows for. */
  batches: number;
  /** Rows of each batch, oldest first (the last 1,000 batches). */
  batchRows: number[];
  /** Entries waiting for their batch right now, and their rows. */
  pendingEntries: number;
  pendingRows: number;
};

type Batch = { entries: Entry[]; rows: number };
const newBatch = (): Batch => ({ entries: [], rows: 0 });

export type Batcher = {
  add: (entry: Entry) => void;
  /** Seals the batch being filled, if it has anything, and starts writing it. */
  seal: () => void;
  /** Seals what is buffered and waits for every batch in progress. */
  flush: () => Promise<void>;
};

export function createBatcher({
  batchRows,
  batchMs,
  maxPending,
  closing,
  stats,
  write,
}: {
  batchRows: number;
  batchMs: number;
  maxPending: number;
  /** Once true, every entry added is sealed at once (on the next turn, with the others of that turn). */
  closing: () => boolean;
  stats: BatchStats;
  /** Writes a sealed batch and settles its entries; does not throw. */
  write: (entries: Entry[]) => Promise<void>;
}): Batcher {
  let current = newBatch();
  let timer: NodeJS.Timeout | undefined;
  const sealed: Batch[] = [];
  let draining: Promise<void> | null = null;

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
      for (let batch = sealed.shift(); batch; batch = sealed.shift()) {
        stats.batches++;
        stats.batchRows.push(batch.rows);
        if (stats.batchRows.length > 1000) stats.batchRows.shift();
        await write(batch.entries);
        for (const entry of batch.entries) {
          stats.pendingEntries--;
          stats.pendingRows -= entry.events;
        }
      }
    })().finally(() => {
      draining = null;
      if (sealed.length) drain();
    });
  }

  function add(entry: Entry) {
    if (current.rows > 0 && current.rows + entry.events > batchRows) seal();
    current.entries.push(entry);
    current.rows += entry.events;
    stats.pendingEntries++;
    stats.pendingRows += entry.events;
    if (closing()) setImmediate(seal);
    // Full, or no other entry can arrive until some of these are done.
    else if (current.rows >= batchRows || stats.pendingEntries >= maxPending) seal();
    else timer ??= setTimeout(seal, batchMs);
  }

  async function flush() {
    for (;;) {
      seal();
      const waiting = draining;
      if (!waiting) break;
      await waiting;
    }
  }

  return { add, seal, flush };
}
