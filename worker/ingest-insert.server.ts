/**
 * Writing a batch: one JSONEachRow INSERT per table for all its entries' rows (ADR 036).
 *
 * - ClickHouse down (or any error that is not about the data): the table's INSERT is tried again with
 *   exponential backoff (app/utils/backoff.ts), for as long as it takes or until `signal` aborts (close()
 *   gave up waiting); the entries stay held meanwhile.
 * - ClickHouse refuses the data (a parse or type error): the table's entries are bisected until the ones at
 *   fault are alone; those get their `failure`, the rest are inserted.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { ClickHouseClient } from "@clickhouse/client";
import { clickHouseErrorMessage, insertErrorKind } from "../app/analytics/clickhouse-sql.server";
import { backoffDelay, type Backoff } from "../app/utils/backoff";
import type { Entry } from "./ingest-batcher.server";
import type { Row } from "./ingest-rows.server";
import { log } from "../app/server/log.server";

export type InsertStats = {
  /** Rows that ClickHouse accepted (the `inserted` counter). */
  insertedRows: number;
  /** INSERTs that failed for a reason other than their data and were retried. */
  retries: number;
};

/**
 * Returns `insert(entries)`, which writes the entries' rows and resolves with how many went in. Afterwards
 * each entry is in (`open` 0), refused (`failure` set), or, when `signal` aborted first, neither (`open` > 0).
 */
export function createInserter(clickhouse: ClickHouseClient, { retry, signal, stats }: { retry: Backoff; signal: AbortSignal; stats: InsertStats }) {
  let failedInARow = 0;

  async function insertRows(table: string, rows: Row[]) {
    await clickhouse.insert({ table, values: rows, format: "JSONEachRow", abort_signal: signal });
  }

  /** Inserts the rows the entries have for one table, bisecting on a data error; returns the rows that went in. */
  async function insertTable(table: string, entries: Entry[]): Promise<number> {
    for (let attempt = 0; !signal.aborted; attempt++) {
      const rows = entries.flatMap((e) => e.rows.get(table) ?? []);
      try {
        await insertRows(table, rows);
        if (failedInARow > 0) log.info(`[ingest] ClickHouse takes inserts again (after ${failedInARow} failures)`);
        failedInARow = 0;
        stats.insertedRows += rows.length;
        for (const e of entries) e.open--;
        return rows.length;
      } catch (error) {
        if (insertErrorKind(error) === "data") return bisect(table, entries, error);
        if (signal.aborted) break;
        stats.retries++;
        failedInARow++;
        const delay = backoffDelay(attempt, { ...retry, jitter: 0.2 });
        if (failedInARow === 1 || failedInARow % 10 === 0) {
          log.error(`[ingest] insert into ${table} failed (${failedInARow} in a row): ${clickHouseErrorMessage(error)}; retrying in ${Math.round(delay)} ms`);
        }
        // close() aborts the wait along with the insert.
        await sleep(delay, undefined, { signal }).catch(() => undefined);
      }
    }
    return 0;
  }

  async function bisect(table: string, entries: Entry[], error: unknown): Promise<number> {
    const [only] = entries;
    if (only && entries.length === 1) {
      only.failure ??= new Error(`ClickHouse refused the ${table} rows: ${clickHouseErrorMessage(error)}`);
      only.open--;
      return 0;
    }
    const half = entries.length >> 1;
    const first = await insertTable(table, entries.slice(0, half));
    return first + (await insertTable(table, entries.slice(half)));
  }

  return async function insert(entries: Entry[]): Promise<number> {
    const byTable = new Map<string, Entry[]>();
    for (const entry of entries) {
      for (const table of entry.rows.keys()) {
        const list = byTable.get(table);
        if (list) list.push(entry);
        else byTable.set(table, [entry]);
      }
    }
    const inserted = await Promise.all([...byTable].map(([table, list]) => insertTable(table, list)));
    return inserted.reduce((a, b) => a + b, 0);
  };
}
