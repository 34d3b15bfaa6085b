/**
 * Scale benchmark: what a second web process and a second worker add on this machine, for the catalog, the
 * tracking endpoint and the chat.
 *
 *   npm run bench:scale [-- --duration 10] [--warmup 10] [--connections 20] [--runs 1] [--batch 20]
 *                          [--chat-rates 100,200,300,400] [--loads catalog,tracking,chat] [--keep-data] [--no-docs]
 *
 * Two arms: one web process and one worker (WEB_PROCESSES=1, WORKER_PROCESSES=1), and two of each (a cluster
 * primary with two children on one port, ADR 059), each started as `npm start` runs them (the compiled
 * processes, scripts/lib/servers.ts). For each load in turn, each run measures both arms, the first arm first in
 * odd runs and last in even ones, so a noisy moment of the shared machine does not favour one arm throughout.
 *
 * 1. Catalog: the catalog data of bench:catalog (scripts/lib/catalog-data.ts: 100,000 gigs) in a database of its
 *    own, soko_bench_scale (kept and reused with --keep-data). The web server with the page cache off (every page
 *    rendered, as a signed-in member's are) and then on (a visitor's), each warmed up for --warmup s, then
 *    autocannon at --connections for --duration s over /browse (two filters), /search (two searches) and 60 gig
 *    pages in turn: pages/s, p50 and p99, and the web processes' CPU per page.
 * 2. Tracking: POST /api/v1/analytics/action from 1,000 addresses with the rate limit out of the way, a Redis
 *    namespace and a ClickHouse database of the run's own, with the web processes alone (no worker yet): a warm-up,
 *    then one event a request flat out (events/s accepted with 202, p99) and --batch events a request. The events
 *    wait in the ingest stream; then the workers start on that backlog and the events stored in ClickHouse are
 *    counted every 100 ms: events stored per second between 10% and 90% of the backlog, and the workers' CPU per
 *    event over the same stretch.
 * 3. Chat: scripts/bench-chat.ts run as a child with --one-server and WEB_PROCESSES set (its "one server" is then
 *    the cluster), its figures read from its --json file: the highest of --chat-rates delivered with p99 ≤ 100 ms
 *    and no errors, and the most carried as fast as acknowledgements allow, with its p99.
 *
 * Prints each figure for both arms (the median over --runs, the worst run when more than one) and their ratio,
 * and appends that to docs/benchmarks/history/scale.md unless --no-docs. A report, not a test: only errors (a
 * process that does not start, answers that are not 2xx, sends not delivered) exit 1. The Redis keys and the
 * ClickHouse database are removed afterwards; soko_bench_scale is kept.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import type { ClickHouseClient } from "@clickhouse/client";
import type autocannon from "autocannon";
import { Redis } from "ioredis";
import { ingestStreamKey } from "~/analytics/ingest-stream.server";
import {
  ADDRESSES,
  actionEvent,
  appendBenchmarkRun,
  commitOf,
  loadAverage,
  machine,
  machineCpuSeconds,
  markdownTable,
  plainTable,
  treeCpuSecondsOf,
} from "./lib/bench";
import { benchEnv, databaseUrl, GIGS, prepareDatabase } from "./lib/catalog-data";
import { ensureBuild, runAutocannon, startServer } from "./lib/drive";
import { armOrder, CHAT_P99_MS, chatCarried, count, drain, millis, SCALE_FIGURES, scaleRows, type Arm, type ChatStep } from "./lib/scale";
import { startProcess, startTsx, waitUntil, type Child } from "./lib/servers";

const DATABASE = "soko_bench_scale";
const ARMS = [1, 2];
const LOADS = ["catalog", "tracking", "chat"] as const;
type Load = (typeof LOADS)[number];
const UA = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";

type Options = {
  durationS: number;
  warmupS: number;
  connections: number;
  runs: number;
  batch: number;
  chatRates: number[];
  loads: Load[];
  keepData: boolean;
  docs: boolean;
};

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "10" },
      warmup: { type: "string", default: "10" },
      connections: { type: "string", default: "20" },
      runs: { type: "string", default: "1" },
      batch: { type: "string", default: "20" },
      "chat-rates": { type: "string", default: "100,200,300,400" },
      loads: { type: "string", default: LOADS.join(",") },
      "keep-data": { type: "boolean", default: false },
      "no-docs": { type: "boolean", default: false },
    },
  });
  const whole = (name: string, raw: string) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive whole number, got "${raw}"`);
    return n;
  };
  const loads = values.loads.split(",").filter(Boolean);
  const unknown = loads.filter((l) => !(LOADS as readonly string[]).includes(l));
  if (unknown.length || loads.length === 0) throw new Error(`--loads takes ${LOADS.join(", ")}; got "${values.loads}"`);
  return {
    durationS: whole("duration", values.duration),
    warmupS: whole("warmup", values.warmup),
    connections: whole("connections", values.connections),
    runs: whole("runs", values.runs),
    batch: Math.min(100, whole("batch", values.batch)),
    chatRates: values["chat-rates"].split(",").map((r) => whole("chat-rates", r)),
    loads: LOADS.filter((l) => loads.includes(l)),
    keepData: values["keep-data"],
    docs: !values["no-docs"],
  };
}

// ---------------------------------------------------------------------------------------------------------
// What this run starts, and stops on the way out.

const tag = Math.random().toString(36).slice(2, 8);
const PREFIX = `bench_scale_${tag}`;
const CLICKHOUSE_DATABASE = `soko_bench_scale_${tag}`;
const children: Child[] = [];
let errors = 0;

/** Starts a child of this run, stopped with the others at the end (or at once, if the run is stopping). */
async function started<T extends Child>(child: Promise<T> | T): Promise<T> {
  const c = await child;
  children.push(c);
  return c;
}

async function stop(child: Child) {
  const at = children.indexOf(child);
  if (at !== -1) children.splice(at, 1);
  await child.stop();
}

/** A cluster is ready once every child is (startAppServer waits only for /healthz, which the first answers). */
async function allReady(child: Child, name: "web" | "worker", processes: number) {
  const line = processes > 1 ? `${processes} ${name} processes ready` : name === "worker" ? "[worker] ready" : null;
  if (line) await waitUntil(child, () => child.output().includes(line), line, 90_000);
}

/** Seconds of CPU the process tree used while `fn` ran, and the machine's (every core). */
async function metered<T>(pid: number | null, fn: () => Promise<T>): Promise<{ result: T; cpuS: number; machineS: number }> {
  const [cpu0, machine0] = [treeCpuSecondsOf(pid), machineCpuSeconds()];
  const result = await fn();
  const [cpu1, machine1] = [treeCpuSecondsOf(pid), machineCpuSeconds()];
  return { result, cpuS: (cpu1 ?? Number.NaN) - (cpu0 ?? Number.NaN), machineS: (machine1 ?? Number.NaN) - (machine0 ?? Number.NaN) };
}

/** One autocannon run: answers/s, p50, p99, and the answers that were not 2xx (each counted as an error). */
async function drive(options: autocannon.Options) {
  const result = await runAutocannon(options, () => {});
  const bad = result.non2xx + result.errors + result.timeouts;
  errors += bad;
  return { perS: result["2xx"] / result.duration, ok: result["2xx"], p50: result.latency.p50, p99: result.latency.p99, bad };
}

// ---------------------------------------------------------------------------------------------------------
// 1. Catalog.

type Env = Record<string, string>;

async function catalogPaths(): Promise<string[]> {
  const { createDb } = await import("~/server/db.server");
  const db = createDb(databaseUrl(DATABASE), { min: 0, max: 1 });
  try {
    const ids: number[] = (await db("gigs").where({ status: "published" }).orderByRaw("md5(id::text)").limit(60).pluck("id")).map(Number);
    const browse = ["/browse", "/browse?category=graphics-design&price=100000-500000&sort=rating"];
    const search = ["/search?q=logo+design", "/search?q=translate+luganda"];
    return ids.flatMap((id, i) => [browse[i % 2]!, search[i % 2]!, `/gig/${id}`]);
  } finally {
    await db.destroy();
  }
}

async function measureCatalog(env: Env, processes: number, paths: string[], options: Options, record: Record<string, number>) {
  for (const cache of ["off", "on"] as const) {
    const server = await started(startServer({ ...env, PAGE_CACHE: cache, WEB_PROCESSES: String(processes) }));
    try {
      await allReady(server, "web", processes);
      for (const p of new Set(paths.slice(0, 6))) {
        const res = await fetch(`${server.baseUrl}${p}`, { signal: AbortSignal.timeout(30_000) });
        if (res.status !== 200) throw new Error(`GET ${p} answered ${res.status}`);
      }
      let next = 0;
      const load = (seconds: number): autocannon.Options => ({
        url: server.baseUrl,
        connections: options.connections,
        duration: seconds,
        timeout: 10,
        headers: { "accept-encoding": "gzip", accept: "text/html" },
        requests: [{ method: "GET", setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length]! }) }],
      });
      await drive(load(options.warmupS));
      const { result, cpuS } = await metered(server.child.pid ?? null, () => drive(load(options.durationS)));
      Object.assign(record, {
        [`catalog_${cache}_rps`]: result.perS,
        [`catalog_${cache}_p50`]: result.p50,
        [`catalog_${cache}_p99`]: result.p99,
        [`catalog_${cache}_cpu`]: (cpuS * 1000) / result.ok,
      });
      console.log(`    page cache ${cache}: ${count(result.perS)} pages/s, p50 ${millis(result.p50)} ms, p99 ${millis(result.p99)} ms, ${result.bad} not 2xx`);
    } finally {
      await stop(server);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// 2. Tracking.

function trackingLoad(url: string, eventsPerRequest: number, connections: number, seconds: number): autocannon.Options {
  let address = 0;
  return {
    url,
    connections,
    duration: seconds,
    requests: [
      {
        method: "POST",
        setupRequest: (request) => {
          const events = Array.from({ length: eventsPerRequest }, (_, i) => actionEvent(`/gig/${(address + i) % 500}`));
          address = (address + 1) % ADDRESSES.length;
          return {
            ...request,
            headers: { "content-type": "text/plain;charset=UTF-8", "user-agent": UA, "x-forwarded-for": ADDRESSES[address]! },
            body: JSON.stringify(eventsPerRequest === 1 ? events[0] : events),
          };
        },
      },
    ],
  };
}

async function storedEvents(clickhouse: ClickHouseClient): Promise<number> {
  const rs = await clickhouse.query({ query: "SELECT count() AS n FROM actions", format: "JSONEachRow" });
  return Number((await rs.json<{ n: string | number }>())[0]?.n ?? 0);
}

async function measureTracking(
  env: Env,
  processes: number,
  run: number,
  options: Options,
  services: { clickhouse: ClickHouseClient; redis: Redis },
  record: Record<string, number>,
) {
  const prefix = `${PREFIX}_${processes}_${run}`;
  const own = { ...env, QUEUE_PREFIX: prefix, TRUST_PROXY: "loopback", ANALYTICS_RATE_LIMIT: "1000000000" };
  const before = await storedEvents(services.clickhouse);
  let accepted = 0;

  // The web processes alone: what they accept, with no worker taking the machine's CPU meanwhile.
  const web = await started(startServer({ ...own, WEB_PROCESSES: String(processes) }));
  try {
    await allReady(web, "web", processes);
    const url = `${web.baseUrl}/api/v1/analytics/action`;
    accepted += (await drive(trackingLoad(url, 1, options.connections, options.warmupS))).ok;
    const single = await metered(web.child.pid ?? null, () => drive(trackingLoad(url, 1, options.connections, options.durationS)));
    accepted += single.result.ok;
    const batched = await drive(trackingLoad(url, options.batch, options.connections, options.durationS));
    accepted += batched.ok * options.batch;
    Object.assign(record, {
      tracking_rps: single.result.perS,
      tracking_p99: single.result.p99,
      tracking_cpu: (single.cpuS * 1e6) / single.result.ok,
      tracking_batched: batched.perS * options.batch,
      tracking_batched_p99: batched.p99,
    });
    console.log(
      `    accepted: ${count(single.result.perS)} events/s one a request (p99 ${millis(single.result.p99)} ms), ` +
        `${count(batched.perS * options.batch)} events/s ${options.batch} a request (p99 ${millis(batched.p99)} ms)`,
    );
  } finally {
    await stop(web);
  }

  // The workers on the backlog: events stored per second while it drains.
  const worker = await started(
    startProcess(
      "worker",
      { ...own, NODE_ENV: "production", ALLOW_HTTP: "1", WORKER_PROCESSES: String(processes) },
      { stopGraceMs: 30_000, processGroup: true },
    ),
  );
  try {
    const samples: { t: number; stored: number; cpu: number }[] = [];
    const t0 = performance.now();
    for (;;) {
      if (worker.exited()) throw new Error(`the worker exited:\n${worker.output()}`);
      const stored = (await storedEvents(services.clickhouse)) - before;
      samples.push({ t: performance.now() - t0, stored, cpu: treeCpuSecondsOf(worker.child.pid ?? null) ?? Number.NaN });
      if (stored >= accepted) break;
      if (performance.now() - t0 > 180_000) throw new Error(`the backlog did not drain within 180 s (${stored} of ${accepted} events stored)`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const { perS: rate, cpuUsPerEvent } = drain(samples, accepted);
    Object.assign(record, { ingest_rate: rate, ingest_cpu: cpuUsPerEvent });
    console.log(`    stored: ${count(accepted)} events in ${(samples.at(-1)!.t / 1000).toFixed(1)} s, ${count(rate)} events/s while draining`);
  } finally {
    await stop(worker);
  }
  await services.redis.del(ingestStreamKey(prefix));
}

// ---------------------------------------------------------------------------------------------------------
// 3. Chat.

async function measureChat(processes: number, run: number, options: Options, record: Record<string, number>) {
  const file = path.join(os.tmpdir(), `bench-scale-chat-${tag}-${processes}-${run}.json`);
  const args = [
    "scripts/bench-chat.ts",
    "--one-server",
    "--no-docs",
    "--json",
    file,
    "--rates",
    options.chatRates.join(","),
    "--duration",
    String(options.durationS),
  ];
  const chat = await started(
    startTsx(
      "bench:chat",
      [...args, "--max-seconds", String(options.durationS)],
      { WEB_PROCESSES: String(processes) },
      { processGroup: true, stopGraceMs: 30_000 },
    ),
  );
  try {
    const code = await chat.exit;
    if (!fs.existsSync(file)) throw new Error(`bench:chat exited with ${code} and no figures:\n${chat.output()}`);
    const { steps, acknowledged, stored, webProcesses } = JSON.parse(fs.readFileSync(file, "utf8")) as {
      steps: ChatStep[];
      acknowledged: number;
      stored: number;
      webProcesses: number;
    };
    if (webProcesses !== processes) throw new Error(`bench:chat ran ${webProcesses} web processes, not ${processes}`);
    const failed = steps.reduce((sum, s) => sum + s.errors, 0) + (acknowledged === stored ? 0 : 1);
    errors += failed;
    const carried = chatCarried(steps, CHAT_P99_MS);
    Object.assign(record, { chat_within: carried.withinTarget, chat_max: carried.maxPerS, chat_max_p99: carried.maxP99 });
    console.log(
      `    ${carried.withinTarget} messages/s within p99 ≤ ${CHAT_P99_MS} ms; at most ${count(carried.maxPerS)}/s (p99 ${millis(carried.maxP99)} ms); ${failed} errors`,
    );
  } finally {
    fs.rmSync(file, { force: true });
    await stop(chat);
  }
}

// ---------------------------------------------------------------------------------------------------------
// The report.

function report(arms: Arm[], options: Options, facts: { commit: string; load: string; startedAt: Date }) {
  const rows = scaleRows(SCALE_FIGURES, arms);
  const m = machine();
  const args = process.argv.slice(2).join(" ");
  const command = `npm run bench:scale${args ? ` -- ${args}` : ""}`;
  const cpuModel = /model name\s*:\s*(.+)/.exec(fs.existsSync("/proc/cpuinfo") ? fs.readFileSync("/proc/cpuinfo", "utf8") : "")?.[1]?.trim() ?? m.cpu;
  const setting =
    `Commit ${facts.commit}; ${m.cores} cores of ${cpuModel}, ${m.memoryGb} GB, ${m.os}; Node ${m.node}. ` +
    `Started ${facts.startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC; load average before ${facts.load}, after ${loadAverage()}.`;
  const how: Record<Load, string> = {
    catalog:
      `Catalog: ${GIGS.toLocaleString("en-US")} gigs, ${options.connections} connections, ${options.warmupS} s warm-up and ${options.durationS} s measured ` +
      `over /browse, /search and gig pages in turn, page cache off and on.`,
    tracking:
      `Tracking: ${options.connections} connections for ${options.durationS} s, one event a request, then ${options.batch}; the web processes alone, ` +
      `then the workers on the backlog (stored/s between 10% and 90% of it).`,
    chat: `Chat: bench:chat's 1,000 members at ${options.chatRates.join(", ")} messages/s for ${options.durationS} s each, then as fast as acknowledgements allow.`,
  };
  const method = [
    `Everything on this one machine at once: the web processes and workers (compiled, as \`npm start\` runs them; two of each as a cluster ` +
      `primary with two children on one port), Postgres, Redis, ClickHouse and the load generators.`,
    `${options.runs} run${options.runs > 1 ? "s" : ""}, the arms alternating (1 then 2 in odd runs, 2 then 1 in even ones); each figure is the median ` +
      `over the runs${options.runs > 1 ? ", with the worst run beside it" : ""}.`,
    ...options.loads.map((load) => how[load]),
    `CPU figures are the process tree's (primary and children).`,
  ].join(" ");
  console.log(`\n${setting}\n\n${plainTable(rows).join("\n")}\n`);
  if (errors) console.error(`${errors} requests, sends or checks failed: see above.`);
  if (!options.docs) return;
  const section = [
    "## Scale: `npm run bench:scale`",
    "",
    setting,
    "",
    "```",
    command,
    "```",
    "",
    method,
    "",
    ...markdownTable(rows),
    "",
    `Errors: ${errors}.`,
    "",
  ].join("\n");
  const file = appendBenchmarkRun("scale", section);
  console.log(`Appended this run to ${path.relative(process.cwd(), file)}.`);
}

// ---------------------------------------------------------------------------------------------------------

async function main() {
  const options = readOptions();
  const startedAt = new Date();
  const facts = { commit: commitOf(), load: loadAverage(), startedAt };
  const url = databaseUrl(DATABASE);
  const env: Env = { ...benchEnv(url), QUEUE_PREFIX: PREFIX, CLICKHOUSE_DATABASE };
  Object.assign(process.env, env);
  const [gig, schemas, migrate, db, seed, clickhouseModule, { parseEnv }] = await Promise.all([
    import("~/models/gig.server"),
    import("~/schemas/gig"),
    import("./lib/migrate"),
    import("~/server/db.server"),
    import("./lib/seed"),
    import("~/analytics/clickhouse.server"),
    import("~/server/env.server"),
  ]);
  const catalogApp = {
    createDb: db.createDb,
    migratePostgres: migrate.migratePostgres,
    refreshCatalog: gig.refreshCatalog,
    DELIVERY_DAYS: schemas.DELIVERY_DAYS,
    CATEGORY_SLUGS: seed.DEMO_CATEGORY_SLUGS,
  };
  const clickhouseOptions = clickhouseModule.clickHouseOptions(parseEnv({ ...process.env }));
  const redis = new Redis(env.REDIS_URL!, { maxRetriesPerRequest: 1 });
  let clickhouse: ClickHouseClient | null = null;

  const cleanup = async () => {
    await Promise.all(children.splice(0).map((c) => c.stop()));
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${PREFIX}*`, "COUNT", 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== "0");
    await clickhouse?.command({ query: `DROP DATABASE IF EXISTS ${CLICKHOUSE_DATABASE}` });
    await clickhouse?.close();
    redis.disconnect();
  };
  const onSignal = () => void cleanup().finally(() => process.exit(130));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  try {
    console.log(
      `Scale benchmark: ${options.loads.join(", ")} with ${ARMS.join(" and ")} web processes and workers; commit ${facts.commit}, load average ${facts.load}`,
    );
    ensureBuild(false);
    await prepareDatabase(catalogApp, url, DATABASE, options.keepData);
    await migrate.migrateClickHouse(clickhouseOptions);
    clickhouse = clickhouseModule.createClickHouse(clickhouseOptions);
    const arms: Arm[] = ARMS.map((processes) => ({ processes, runs: Array.from({ length: options.runs }, () => ({})) }));
    const paths = options.loads.includes("catalog") ? await catalogPaths() : [];
    for (const load of options.loads) {
      console.log(`\n${load[0]!.toUpperCase()}${load.slice(1)}:`);
      for (let run = 1; run <= options.runs; run++) {
        for (const arm of armOrder(arms, run)) {
          console.log(`  run ${run}, ${arm.processes} process${arm.processes > 1 ? "es" : ""}:`);
          const record = arm.runs[run - 1]!;
          if (load === "catalog") await measureCatalog(env, arm.processes, paths, options, record);
          else if (load === "tracking") await measureTracking(env, arm.processes, run, options, { clickhouse, redis }, record);
          else await measureChat(arm.processes, run, options, record);
        }
      }
    }
    report(arms, options, facts);
    if (errors) process.exitCode = 1;
  } finally {
    await cleanup();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
