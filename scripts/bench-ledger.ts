/**
 * Ledger benchmark: how many journals a second Postgres posts when every one goes through the platform's shared
 * accounts (as every payment goes through provider clearing, and every completion through the platform's fee
 * accounts), against journals that touch only accounts of their own; and what one journal costs Postgres.
 * The figures behind ADR 060's estimate of when the ledger's shared accounts become the limit.
 *
 *   npm run bench:ledger [-- --duration 8] [--clients 1,4,16] [--runs 1] [--no-docs]
 *
 * 1. A throwaway database (soko_bench_ledger_<random>, migrated, dropped afterwards) with one member per client,
 *    each given a refund due large enough to move from all run long.
 * 2. For each number of clients, two arms of --duration seconds, alternating (shared first in odd runs, own
 *    first in even ones), each client posting journals back to back, one transaction each, through the ledger's
 *    own writer (postEntries: the accounts locked in code order, the journal, its entries, the balance check,
 *    the deferred balance trigger at commit):
 *    - shared: provider clearing → platform seller fees, the two rows every client must lock in turn;
 *    - own: the client's refund due → its available balance (the negative-balance check reads a sum each time).
 *    Measured: journals a second, transaction latency p50/p99, Postgres CPU per journal.
 * 3. Prints a table and appends it to docs/benchmarks/history/ledger.md unless --no-docs.
 *
 * A report, not a test: it exits 0 whatever the figures.
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import knex, { type Knex } from "knex";
import { postEntries, platform } from "~/models/ledger.server";
import { LOCAL_URLS } from "~/utils/local-services";
import { appendPrintedRun, cpuSecondsByName, keepConsole, median, plainTable, spread } from "./lib/bench";
import { migratePostgres } from "./lib/migrate";

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "8" },
    clients: { type: "string", default: "1,4,16" },
    runs: { type: "string", default: "1" },
    "no-docs": { type: "boolean", default: false },
  },
});
const DURATION_MS = Number(values.duration) * 1000;
const CLIENTS = values.clients.split(",").map(Number);
const RUNS = Number(values.runs);

const DATABASE = `soko_bench_ledger_${randomBytes(4).toString("hex")}`;
const baseUrl = process.env.DATABASE_URL ?? LOCAL_URLS.DATABASE_URL;
const urlOf = (database: string) => Object.assign(new URL(baseUrl), { pathname: `/${database}` }).toString();

type Arm = "shared" | "own";
type Result = { arm: Arm; clients: number; perSecond: number; p50: number; p99: number; pgCpuMs: number };

async function runArm(db: Knex, arm: Arm, clients: number, members: number[], run: number): Promise<Result> {
  const latencies: number[] = [];
  const end = Date.now() + DURATION_MS;
  const pgBefore = cpuSecondsByName("postgres");
  let n = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const userId = members[c]!;
      while (Date.now() < end) {
        const key = `bench:${run}:${arm}:${clients}:${c}:${n++}`;
        const postings =
          arm === "shared"
            ? [
                { account: platform.clearing, amountUgx: -1_000 },
                { account: platform.sellerFees, amountUgx: 1_000 },
              ]
            : [
                { account: { kind: "refund_due" as const, userId }, amountUgx: -1_000 },
                { account: { kind: "seller_available" as const, userId }, amountUgx: 1_000 },
              ];
        const started = performance.now();
        await db.transaction((trx) => postEntries(trx, { key, kind: "bench", postings }));
        latencies.push(performance.now() - started);
      }
    }),
  );
  const s = spread(latencies);
  return {
    arm,
    clients,
    perSecond: latencies.length / (DURATION_MS / 1000),
    p50: s.p50,
    p99: s.p99,
    pgCpuMs: ((cpuSecondsByName("postgres") - pgBefore) * 1000) / Math.max(1, latencies.length),
  };
}

async function main() {
  const printed = keepConsole();
  const admin = knex({ client: "pg", connection: urlOf("postgres"), pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${DATABASE}`);
  const db = knex({ client: "pg", connection: urlOf(DATABASE), pool: { min: 1, max: Math.max(...CLIENTS) + 2 } });
  try {
    await migratePostgres(db);
    const rows: { id: string }[] = await db("users")
      .insert(
        Array.from({ length: Math.max(...CLIENTS) }, (_, i) => ({
          name: `Ledger bench ${i}`,
          username: `ledger_bench_${i}`,
          email: `ledger.bench.${i}@example.ug`,
          role: "client",
          status: "active",
          level: "member",
        })),
      )
      .returning("id");
    const members = rows.map((r) => Number(r.id));
    // Each member's refund due holds more than a run can move out of it.
    for (const userId of members) {
      await db.transaction((trx) =>
        postEntries(trx, {
          key: `bench:seed:${userId}`,
          kind: "bench",
          postings: [
            { account: platform.clearing, amountUgx: -1_000_000_000 },
            { account: { kind: "refund_due", userId }, amountUgx: 1_000_000_000 },
          ],
        }),
      );
    }

    const results: Result[] = [];
    for (let run = 1; run <= RUNS; run++) {
      for (const clients of CLIENTS) {
        const arms: Arm[] = run % 2 ? ["shared", "own"] : ["own", "shared"];
        for (const arm of arms) results.push(await runArm(db, arm, clients, members, run));
      }
    }

    const cell = (arm: Arm, clients: number, pick: (r: Result) => number, digits = 0) => {
      const picked = results.filter((r) => r.arm === arm && r.clients === clients).map(pick);
      return `${median(picked).toFixed(digits)}${picked.length > 1 ? ` (worst ${Math.min(...picked).toFixed(digits)})` : ""}`;
    };
    console.log(`\nLedger journals, one transaction each, ${RUNS} run(s) of ${DURATION_MS / 1000} s per arm (medians):\n`);
    const table = [["clients", "shared: journals/s", "p50 / p99 ms", "own: journals/s", "p50 / p99 ms", "Postgres CPU per journal (shared / own)"]];
    for (const clients of CLIENTS) {
      const lat = (arm: Arm) => `${cell(arm, clients, (r) => r.p50, 1).split(" ")[0]} / ${cell(arm, clients, (r) => r.p99, 1).split(" ")[0]}`;
      table.push([
        String(clients),
        cell("shared", clients, (r) => r.perSecond),
        lat("shared"),
        cell("own", clients, (r) => r.perSecond),
        lat("own"),
        `${cell("shared", clients, (r) => r.pgCpuMs, 2).split(" ")[0]} / ${cell("own", clients, (r) => r.pgCpuMs, 2).split(" ")[0]} ms`,
      ]);
    }
    for (const line of plainTable(table)) console.log(line);
    const most = Math.max(...CLIENTS);
    const ratio =
      median(results.filter((r) => r.arm === "own" && r.clients === most).map((r) => r.perSecond)) /
      median(results.filter((r) => r.arm === "shared" && r.clients === most).map((r) => r.perSecond));
    console.log(`\nWith ${most} clients, journals over accounts of their own go ${ratio.toFixed(2)}× as fast as journals through the shared accounts.`);
    if (!values["no-docs"])
      console.log(
        `\nAppended to ${appendPrintedRun("ledger", `Ledger, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`, "npm run bench:ledger", printed())}`,
      );
  } finally {
    await db.destroy();
    await admin.raw(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
    await admin.destroy();
  }
}

void main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
