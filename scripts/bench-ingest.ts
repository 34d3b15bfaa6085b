/**
 * Analytics ingestion benchmark: how many tracking events per second the web
 * process takes, how fast it answers, and how long an accepted event takes to be visible in ClickHouse.
 *
 *   npm run bench:ingest [-- --duration 30] [--connections 20] [--batch 20] [--build] [--keep] [--no-docs]
 *
 * 1. Runs the production build (the compiled web server and worker, as `npm start` does, building first when
 *    build/ is missing or with --build) against the project's Postgres, Redis and
 *    ClickHouse, with a Redis namespace (QUEUE_PREFIX) and a freshly migrated ClickHouse database of their
 *    own; the per-address rate limit is raised out of the way (the requests come from 1,000 addresses).
 * 2. Beside them, a bare Express process whose one endpoint answers 202 and does nothing else: the ceiling.
 * 3. Drives with autocannon, each for --duration seconds after a 3 s warm-up: the bare endpoint, then
 *    POST /api/v1/analytics/action with one event per request, then with --batch events per request as fast
 *    as answers allow, then the same paced at the target's 20,000 events/s (the lag target's run: flat out, the
 *    web process takes events faster than the worker inserts them, and the lag is the backlog). Every
 *    request carries new event ids (setupRequest). About ten times a second one request's first event is
 *    a sample: the time of its 202 is noted, and a poller looks for the sampled ids in ClickHouse every
 *    100 ms; end-to-end lag = first seen in ClickHouse − accepted (so it is exact to ~100 ms).
 * 4. After each ingest run waits for the queue to drain and checks that ClickHouse holds every accepted event.
 * 5. Prints a table, and appends it to docs/benchmarks/history/ingest.md unless --no-docs.
 *
 * It is a report, not a test: missed targets still exit 0; errors (a process that does not start, a run
 * with non-202 answers) exit 1. The ClickHouse database and Redis keys are removed afterwards unless --keep.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { ClickHouseClient } from "@clickhouse/client";
import autocannon from "autocannon";
import { Redis } from "ioredis";
import { ingestStreamKey } from "~/analytics/ingest-stream.server";
import { LOCAL_URLS } from "~/utils/local-services";
import { bin, buildApp, root } from "./build";
import { commitOf, cpuSecondsOf, machineCpuSeconds, nodePidOf, percentile, appendBenchmarkRun, ADDRESSES, actionEvent } from "./lib/bench";
import { freePort, startAppServer, startProcess, startTsx, waitUntil, type Child } from "./lib/servers";

const DOCS_HEADING = "## Analytics ingestion: `npm run bench:ingest`";

const TARGET = { singleRps: 5_000, bareRatio: 0.4, batchedEventsPerS: 20_000, p99Ms: 50, lagP99Ms: 3_000 };
const UA = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
const SAMPLE_EVERY_MS = 100;
const POLL_EVERY_MS = 100;

// ---------------------------------------------------------------------------------------------------------
// The bare endpoint: `tsx scripts/bench-ingest.ts --bare <port>` runs only this.

async function runBareServer(port: number) {
  const { default: express } = await import("express");
  const app = express();
  app.disable("x-powered-by");
  app.post("/bare", (_req, res) => {
    const text = '{"success":true,"accepted":1}';
    res.writeHead(202, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(text) });
    res.end(text);
  });
  const server = app.listen(port, "127.0.0.1", () => console.log(`[bare] listening on ${port}`));
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}

// ---------------------------------------------------------------------------------------------------------
// Options.

type Options = { durationS: number; connections: number; batch: number; build: boolean; keep: boolean; docs: boolean };

function readOptions(): Options & { bare?: number } {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "30" },
      connections: { type: "string", default: "20" },
      batch: { type: "string", default: "20" },
      build: { type: "boolean", default: false },
      keep: { type: "boolean", default: false },
      "no-docs": { type: "boolean", default: false },
      bare: { type: "string" },
    },
  });
  const positive = (name: string, raw: string) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive whole number, got "${raw}"`);
    return n;
  };
  return {
    durationS: positive("duration", values.duration),
    connections: positive("connections", values.connections),
    batch: Math.min(100, positive("batch", values.batch)),
    build: values.build,
    keep: values.keep,
    docs: !values["no-docs"],
    bare: values.bare ? positive("bare", values.bare) : undefined,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Child processes.

const children: Child[] = [];

/** A `tsx` child of this run (scripts/lib/servers.ts), stopped with the others at the end. */
function start(name: string, args: string[], env: Record<string, string>): Child {
  const child = startTsx(name, args, env, { stopGraceMs: 20_000 });
  children.push(child);
  return child;
}

async function stopAll() {
  await Promise.all(children.splice(0).map((c) => c.stop()));
}

// ---------------------------------------------------------------------------------------------------------
// Load.

type Sample = { id: string; acceptedAt: number; seenAt?: number };

type RunResult = {
  label: string;
  eventsPerRequest: number;
  durationS: number;
  requests: number;
  non2xx: number;
  errors: number;
  reqPerS: number;
  eventsPerS: number;
  p50: number;
  p99: number;
  samples: Sample[];
  /** CPU time per answered request, in µs, by process (see cpuMeter). */
  cpu?: Record<string, number>;
  /** Stream entries the web process appended during the run (requests of the same moment share one, ADR 036). */
  jobs?: number;
};

/** One autocannon run; with `samples`, tags about ten requests a second for the lag measurement. */
async function drive(opts: {
  label: string;
  url: string;
  durationS: number;
  connections: number;
  eventsPerRequest: number;
  sample?: (s: Sample) => void;
  /** Requests a second over all connections (a paced run); as fast as answers allow without it. */
  overallRate?: number;
}): Promise<RunResult> {
  let lastSample = 0;
  let addressIndex = 0;
  const samples: Sample[] = [];
  type Ctx = { sampleId?: string };
  const result = await autocannon({
    url: opts.url,
    connections: opts.connections,
    duration: opts.durationS,
    pipelining: 1,
    ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
    requests: [
      {
        method: "POST",
        setupRequest: (req, context) => {
          const ctx = context as Ctx;
          const events = Array.from({ length: opts.eventsPerRequest }, (_, i) => actionEvent(`/gig/${(addressIndex + i) % 500}`));
          const now = Date.now();
          ctx.sampleId = undefined;
          if (opts.sample && now - lastSample >= SAMPLE_EVERY_MS) {
            lastSample = now;
            ctx.sampleId = events[0]!.event_id;
          }
          addressIndex = (addressIndex + 1) % ADDRESSES.length;
          return {
            ...req,
            headers: {
              "content-type": "text/plain;charset=UTF-8",
              "user-agent": UA,
              "x-forwarded-for": ADDRESSES[addressIndex]!,
            },
            body: JSON.stringify(opts.eventsPerRequest === 1 ? events[0] : events),
          };
        },
        onResponse: (status, _body, context) => {
          const ctx = context as Ctx;
          if (ctx.sampleId && status === 202) {
            const sample = { id: ctx.sampleId, acceptedAt: Date.now() };
            samples.push(sample);
            opts.sample?.(sample);
          }
          ctx.sampleId = undefined;
        },
      },
    ],
  });
  const requests = result["2xx"];
  return {
    label: opts.label,
    eventsPerRequest: opts.eventsPerRequest,
    durationS: result.duration,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    reqPerS: requests / result.duration,
    eventsPerS: (requests * opts.eventsPerRequest) / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    samples,
  };
}

/** Looks for sampled event ids in ClickHouse every 100 ms and notes when each first appears. */
function lagPoller(clickhouse: ClickHouseClient) {
  const open = new Map<string, Sample>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped || open.size > 0) {
      if (open.size > 0) {
        const ids = [...open.keys()];
        const list = ids.map((id) => `'${id}'`).join(",");
        const rs = await clickhouse.query({ query: `SELECT toString(event_id) AS id FROM actions WHERE event_id IN (${list})`, format: "JSONEachRow" });
        const seenAt = Date.now();
        for (const row of await rs.json<{ id: string }>()) {
          const sample = open.get(row.id);
          if (sample) {
            sample.seenAt = seenAt;
            open.delete(row.id);
          }
        }
      }
      await new Promise((r) => setTimeout(r, POLL_EVERY_MS));
    }
  })();
  return {
    add: (s: Sample) => open.set(s.id, s),
    /** Waits until every sample is seen, or gives up on the rest after `ms`. */
    finish: async (ms: number) => {
      const deadline = Date.now() + ms;
      while (open.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      open.clear();
      stopped = true;
      await loop;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Where the CPU goes: seconds of CPU used by each process during a run, from /proc (Linux), Redis's INFO
// and this process's own counter (autocannon and the lag poller). "machine" is every core's busy time, so
// "other" is what the rest of the machine did meanwhile (other users of the box, Postgres, the kernel).

/** ClickHouse's pid when it is the project's embedded one (scripts/services.ts knows it), else null. */
function embeddedClickHousePid(): number | null {
  try {
    const status = JSON.parse(execFileSync(bin("tsx"), ["scripts/services.ts", "status"], { cwd: root, stdio: ["ignore", "pipe", "ignore"] }).toString());
    return typeof status?.pids?.clickhouse === "number" ? status.pids.clickhouse : null;
  } catch {
    return null;
  }
}

/** Measures the CPU of the given node processes, Redis, ClickHouse, this process and the whole machine. */
function cpuMeter(redis: Redis, processes: Record<string, number | null>) {
  const snapshot = async () => {
    const info = await redis.info("cpu");
    const self = process.cpuUsage();
    const parts: Record<string, number | null> = {};
    for (const [name, pid] of Object.entries(processes)) parts[name] = pid ? cpuSecondsOf(pid) : null;
    parts.Redis = Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1]);
    parts.autocannon = (self.user + self.system) / 1e6;
    return { parts, machine: machineCpuSeconds() };
  };
  return {
    /** Runs `fn` and adds the CPU µs each part spent per answered request meanwhile (and "other", "total"). */
    async measure(fn: () => Promise<RunResult>): Promise<RunResult> {
      const before = await snapshot();
      const run = await fn();
      const after = await snapshot();
      const answered = Math.max(1, run.reqPerS * run.durationS);
      const per = (a: number | null | undefined, b: number | null | undefined) =>
        a === null || a === undefined || b === null || b === undefined ? Number.NaN : ((b - a) * 1e6) / answered;
      const cpu: Record<string, number> = {};
      let known = 0;
      for (const name of Object.keys(after.parts)) {
        cpu[name] = per(before.parts[name], after.parts[name]);
        if (Number.isFinite(cpu[name])) known += cpu[name]!;
      }
      cpu.total = per(before.machine, after.machine);
      cpu.other = Math.max(0, cpu.total - known);
      return { ...run, cpu };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// The run.

type Lag = { p50: number; p99: number; max: number; seen: number; missing: number };

function lagOf(samples: Sample[]): Lag {
  const lags = samples
    .filter((s) => s.seenAt !== undefined)
    .map((s) => s.seenAt! - s.acceptedAt)
    .sort((a, b) => a - b);
  return { p50: percentile(lags, 50), p99: percentile(lags, 99), max: lags.at(-1) ?? Number.NaN, seen: lags.length, missing: samples.length - lags.length };
}

async function main() {
  const options = readOptions();
  if (options.bare) return runBareServer(options.bare);

  const urls = {
    DATABASE_URL: process.env.DATABASE_URL ?? LOCAL_URLS.DATABASE_URL,
    REDIS_URL: process.env.REDIS_URL ?? LOCAL_URLS.REDIS_URL,
    CLICKHOUSE_URL: process.env.CLICKHOUSE_URL ?? LOCAL_URLS.CLICKHOUSE_URL,
  };
  const tag = randomBytes(4).toString("hex");
  const prefix = `bench_ingest_${tag}`;
  const database = `soko_bench_ingest_${tag}`;
  process.env.CLICKHOUSE_DATABASE = database;

  const [{ migrateClickHouse }, { clickHouseOptions, createClickHouse }, { parseEnv }] = await Promise.all([
    import("./lib/migrate"),
    import("~/analytics/clickhouse.server"),
    import("~/server/env.server"),
  ]);
  // The configured server's credentials too (CLICKHOUSE_USER, CLICKHOUSE_PASSWORD), on the run's database.
  const clickhouseOptions = clickHouseOptions(parseEnv({ ...process.env, ...urls }));

  if (options.build || !fs.existsSync(path.join(root, "build", "server", "index.js"))) {
    console.log("Building (remix vite:build)...");
    if (buildApp() !== 0) throw new Error("the build failed");
  }

  console.log(`ClickHouse database ${database} (migrating), Redis prefix ${prefix}`);
  await migrateClickHouse(clickhouseOptions);
  const clickhouse = createClickHouse(clickhouseOptions);
  const redis = new Redis(urls.REDIS_URL, { maxRetriesPerRequest: null });

  const cleanup = async () => {
    await stopAll();
    if (!options.keep) {
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
        cursor = next;
        if (keys.length) await redis.del(...keys);
      } while (cursor !== "0");
      await clickhouse.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    }
    await clickhouse.close();
    redis.disconnect();
  };
  process.once("SIGINT", () => void cleanup().finally(() => process.exit(130)));

  try {
    const facts = await machineFacts(clickhouse, redis);
    const barePort = await freePort();
    const env = {
      ...urls,
      CLICKHOUSE_DATABASE: database,
      QUEUE_PREFIX: prefix,
      TRUST_PROXY: "loopback",
      ANALYTICS_RATE_LIMIT: "1000000000",
    };
    const bare = start("bare endpoint", ["scripts/bench-ingest.ts", "--bare", String(barePort)], {});
    // The worker as `npm start` runs it (compiled, ADR 020).
    const worker = await startProcess("worker", { ...env, NODE_ENV: "production", ALLOW_HTTP: "1" }, { stopGraceMs: 20_000 });
    children.push(worker);
    const web = await startAppServer(env, { name: "web", host: "127.0.0.1", timeoutMs: 60_000, stopGraceMs: 20_000 });
    children.push(web);
    await waitUntil(bare, () => bare.output().includes("[bare] listening"), "listening", 60_000);
    await waitUntil(worker, () => worker.output().includes("[worker] ready"), "[worker] ready", 60_000);

    const base = { durationS: options.durationS, connections: options.connections };
    const bareUrl = `http://127.0.0.1:${barePort}/bare`;
    const ingestUrl = `${web.baseUrl}/api/v1/analytics/action`;

    console.log(`\nWarming up (3 s each), then ${options.durationS} s per run at ${options.connections} connections:`);
    await drive({ ...base, durationS: 3, label: "warm-up", url: bareUrl, eventsPerRequest: 1 });
    await drive({ ...base, durationS: 3, label: "warm-up", url: ingestUrl, eventsPerRequest: 1 });
    await drainAndCount(redis, prefix, clickhouse); // the warm-up's events are in before the runs start
    const warmEvents = await countEvents(clickhouse);

    const clickhousePid = embeddedClickHousePid();
    const bareMeter = cpuMeter(redis, { bare: nodePidOf(bare), ClickHouse: clickhousePid });
    const meter = cpuMeter(redis, { web: nodePidOf(web), worker: nodePidOf(worker), ClickHouse: clickhousePid });
    const bareRun = await bareMeter.measure(() => drive({ ...base, label: "bare Express, 202 and nothing else", url: bareUrl, eventsPerRequest: 1 }));
    console.log(`  ${bareRun.label}: ${Math.round(bareRun.reqPerS)} req/s`);

    // The stream counts the entries ever added to it: its growth over a run is the entries the web appended
    // (requests of the same moment share one, ADR 036).
    const jobIds = async () => {
      const info = (await redis.xinfo("STREAM", ingestStreamKey(prefix)).catch(() => [])) as unknown[];
      const at = info.indexOf("entries-added");
      return at < 0 ? 0 : Number(info[at + 1]);
    };
    const runIngest = async (eventsPerRequest: number, label: string, overallRate?: number) => {
      const poller = lagPoller(clickhouse);
      const jobsBefore = await jobIds();
      const run = await meter.measure(() => drive({ ...base, label, url: ingestUrl, eventsPerRequest, overallRate, sample: (s) => poller.add(s) }));
      run.jobs = (await jobIds()) - jobsBefore;
      await poller.finish(30_000);
      console.log(`  ${label}: ${Math.round(run.reqPerS)} req/s, ${Math.round(run.eventsPerS)} events/s, ${eventsPerJob(run)} events an entry`);
      return run;
    };
    const single = await runIngest(1, "/action, 1 event per request");
    const batched = await runIngest(options.batch, `/action, ${options.batch} events per request`);
    // Lag at the target's rate: the flat-out run above sends faster than the worker inserts, so its lag is the
    // backlog it builds; this one asks whether events are in ClickHouse within 3 s at 20,000 events/s.
    await drainAndCount(redis, prefix, clickhouse);
    const paced = await runIngest(
      options.batch,
      `/action, ${options.batch} events per request, paced at ${TARGET.batchedEventsPerS.toLocaleString("en-US")} events/s`,
      TARGET.batchedEventsPerS / options.batch,
    );

    const drained = await drainAndCount(redis, prefix, clickhouse);
    const acceptedInRuns = single.reqPerS * single.durationS + batched.eventsPerS * batched.durationS + paced.eventsPerS * paced.durationS;
    const stored = drained.uniqueEvents - warmEvents;
    const counters = await redis.hgetall(`${prefix}:analytics:counters`);
    const memory = await processMemory([web, worker]);
    const loadAtEnd = os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(", ");

    const report = buildReport({
      options,
      facts: { ...facts, loadAtEnd },
      bareRun,
      single,
      batched,
      paced,
      acceptedInRuns,
      stored,
      counters,
      memory,
      drainedInMs: drained.ms,
    });
    console.log(`\n${report.text}`);
    if (options.docs) writeDocs(report.markdown);
    if (single.non2xx + batched.non2xx + paced.non2xx + bareRun.non2xx > 0 || single.errors + batched.errors + paced.errors + bareRun.errors > 0) {
      console.error("\nSome requests were not answered 202: see the table.");
      process.exitCode = 1;
    }
  } finally {
    await cleanup();
  }
}

async function countEvents(clickhouse: ClickHouseClient): Promise<number> {
  const rs = await clickhouse.query({ query: "SELECT uniqExact(event_id) AS n FROM actions", format: "JSONEachRow" });
  const [row] = await rs.json<{ n: number | string }>();
  return Number(row?.n ?? 0);
}

/** Waits until the stream is empty (every entry inserted) and counts the distinct events in ClickHouse. */
async function drainAndCount(redis: Redis, prefix: string, clickhouse: ClickHouseClient) {
  const started = Date.now();
  for (;;) {
    const entries = await redis.xlen(ingestStreamKey(prefix));
    if (entries === 0) break;
    if (Date.now() - started > 120_000) throw new Error(`the stream did not drain within 120 s (${entries} entries)`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { ms: Date.now() - started, uniqueEvents: await countEvents(clickhouse) };
}

async function machineFacts(clickhouse: ClickHouseClient, redis: Redis) {
  const cpus = os.cpus();
  const chVersion = await (await clickhouse.query({ query: "SELECT version() AS v", format: "JSONEachRow" })).json<{ v: string }>();
  const info = await redis.info("server");
  return {
    cpu: `${cpus.length} × ${cpus[0]?.model.trim() ?? "unknown CPU"}`,
    memoryGb: (os.totalmem() / 1024 ** 3).toFixed(1),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    redis: /redis_version:(\S+)/.exec(info)?.[1] ?? "?",
    clickhouse: chVersion[0]?.v ?? "?",
    loadAverage: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(", "),
    commit: commitOf(),
  };
}

/** Resident memory of the web and worker processes (the node process under each tsx), from /proc. */
async function processMemory(list: Child[]) {
  const out: Record<string, string> = {};
  for (const child of list) {
    try {
      const pid = nodePidOf(child);
      const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      out[child.name] = `${Math.round(kb / 1024)} MB`;
    } catch {
      out[child.name] = "?";
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// The report.

/** Events a stream entry carried on average in a run (answered requests × events each ÷ entries). */
function eventsPerJob(run: RunResult): string {
  if (!run.jobs) return "–";
  return ((run.reqPerS * run.durationS * run.eventsPerRequest) / run.jobs).toFixed(1);
}

function buildReport(r: {
  options: Options;
  facts: Awaited<ReturnType<typeof machineFacts>> & { loadAtEnd: string };
  bareRun: RunResult;
  single: RunResult;
  batched: RunResult;
  paced: RunResult;
  acceptedInRuns: number;
  stored: number;
  counters: Record<string, string>;
  memory: Record<string, string>;
  drainedInMs: number;
}) {
  const { options, facts, bareRun, single, batched, paced } = r;
  const lagSingle = lagOf(single.samples);
  const lagBatched = lagOf(batched.samples);
  const lagPaced = lagOf(paced.samples);
  const n = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "–");
  const ms = (x: number) => (Number.isFinite(x) ? `${Math.round(x).toLocaleString("en-US")} ms` : "–");
  const ratio = single.reqPerS / bareRun.reqPerS;

  const figures: string[][] = [
    ["Run", "Requests/s", "Events/s", "Events an entry", "HTTP p50", "HTTP p99", "Lag p50", "Lag p99", "Lag max", "Not 202"],
    [bareRun.label, n(bareRun.reqPerS), n(bareRun.eventsPerS), "", ms(bareRun.p50), ms(bareRun.p99), "", "", "", n(bareRun.non2xx + bareRun.errors)],
    ...(
      [
        [single, lagSingle],
        [batched, lagBatched],
        [paced, lagPaced],
      ] as const
    ).map(([x, l]) => [x.label, n(x.reqPerS), n(x.eventsPerS), eventsPerJob(x), ms(x.p50), ms(x.p99), ms(l.p50), ms(l.p99), ms(l.max), n(x.non2xx + x.errors)]),
  ];

  // CPU per answered request, and the request rate the machine's cores would allow at that cost.
  const cores = os.cpus().length;
  const own = (run: RunResult) => (run.cpu?.total ?? Number.NaN) - (run.cpu?.other ?? 0);
  const cpuRow = (run: RunResult, server: string) => {
    const c = run.cpu ?? {};
    return [
      run.label,
      n(c[server] ?? Number.NaN),
      n(c.worker ?? Number.NaN),
      n(c.Redis ?? Number.NaN),
      n(c.ClickHouse ?? Number.NaN),
      n(c.autocannon ?? Number.NaN),
      n(c.other ?? Number.NaN),
      n(c.total ?? Number.NaN),
      n((cores * 1e6) / own(run)),
    ];
  };
  const cpuTable: string[][] = [
    ["CPU µs per request", "web", "worker", "Redis", "ClickHouse", "autocannon", "other", "total", `req/s ${cores} cores allow`],
    cpuRow(bareRun, "bare"),
    cpuRow(single, "web"),
    cpuRow(batched, "web"),
    cpuRow(paced, "web"),
  ];

  const verdict = (met: boolean, text: string) => `${met ? "met" : "MISSED"}: ${text}`;
  const pct = (a: number, b: number) => `${Math.round((a / b - 1) * 100)}%`;
  const targets = [
    verdict(
      single.reqPerS >= TARGET.singleRps,
      `single-event requests/s ≥ ${n(TARGET.singleRps)}: ${n(single.reqPerS)} (${single.reqPerS >= TARGET.singleRps ? "+" : ""}${pct(single.reqPerS, TARGET.singleRps)})`,
    ),
    verdict(ratio >= TARGET.bareRatio, `≥ ${TARGET.bareRatio * 100}% of the bare endpoint: ${Math.round(ratio * 100)}% (${n(bareRun.reqPerS)} req/s bare)`),
    verdict(
      batched.eventsPerS >= TARGET.batchedEventsPerS,
      `batched events/s ≥ ${n(TARGET.batchedEventsPerS)}: ${n(batched.eventsPerS)} (${batched.eventsPerS >= TARGET.batchedEventsPerS ? "+" : ""}${pct(batched.eventsPerS, TARGET.batchedEventsPerS)})`,
    ),
    verdict(Math.max(single.p99, batched.p99) <= TARGET.p99Ms, `HTTP p99 ≤ ${TARGET.p99Ms} ms: ${single.p99} ms single, ${batched.p99} ms batched`),
    verdict(
      Math.max(lagSingle.p99, lagPaced.p99) <= TARGET.lagP99Ms && lagSingle.missing + lagPaced.missing === 0,
      `lag p99 ≤ ${n(TARGET.lagP99Ms)} ms: ${ms(lagSingle.p99)} single, ${ms(lagPaced.p99)} batched at ${n(paced.eventsPerS)} events/s ` +
        `(${lagSingle.seen + lagPaced.seen} samples, ${lagSingle.missing + lagPaced.missing} not seen within 30 s); ` +
        `flat out (${n(batched.eventsPerS)} events/s): ${ms(lagBatched.p99)}`,
    ),
  ];

  const c = single.cpu ?? {};
  const budget = (cores * 1e6) / TARGET.singleRps;
  const why =
    `Where the time goes: each single-event request cost the machine ${n(own(single))} µs of CPU across the processes above ` +
    `(web ${n(c.web ?? Number.NaN)}, worker ${n(c.worker ?? Number.NaN)}, Redis ${n(c.Redis ?? Number.NaN)}, ClickHouse ${n(c.ClickHouse ?? Number.NaN)}, ` +
    `autocannon ${n(c.autocannon ?? Number.NaN)}), so ${cores} cores allow about ${n((cores * 1e6) / own(single))} requests/s; ` +
    `${n(TARGET.singleRps)} requests/s leaves ${n(budget)} µs per request for all of them, while the bare endpoint alone costs ` +
    `${n(bareRun.cpu?.bare ?? Number.NaN)} µs plus ${n(bareRun.cpu?.autocannon ?? Number.NaN)} µs of autocannon. ` +
    `The stream (requests of the same moment share an entry, ADR 036) costs Redis and the worker ${n((c.Redis ?? 0) + (c.worker ?? 0))} µs per request ` +
    `(${(c.Redis ?? 0) + (c.worker ?? 0) > budget ? "more than" : "within"} that budget). ` +
    `"other" is what the rest of the machine did meanwhile (other users of this box, Postgres, the kernel).`;
  const integrity =
    `${r.stored >= r.acceptedInRuns ? "Every" : "NOT every"} accepted event reached ClickHouse: ${n(r.acceptedInRuns)} accepted in the three runs, ` +
    `${n(r.stored)} distinct event ids stored (queue drained ${ms(r.drainedInMs)} after the last run). Counters: ${Object.entries(r.counters)
      .map(([k, v]) => `${k} ${Number(v).toLocaleString("en-US")}`)
      .join(", ")}. Memory (RSS) at the end: web ${r.memory.web}, worker ${r.memory.worker}.`;

  const plain = (rows: string[][]) => {
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
    return rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  "));
  };
  const markdownTable = (rows: string[][]) => [
    `| ${rows[0]!.join(" | ")} |`,
    `|${rows[0]!.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`,
    ...rows.slice(1).map((row) => `| ${row.join(" | ")} |`),
  ];

  const text = [
    `commit ${facts.commit}, load average ${facts.loadAverage} → ${facts.loadAtEnd}`,
    "",
    ...plain(figures),
    "",
    ...plain(cpuTable),
    "",
    ...targets,
    "",
    why,
    "",
    integrity,
  ].join("\n");

  const date = new Date().toISOString().slice(0, 16).replace("T", " ");
  const markdown = [
    DOCS_HEADING,
    "",
    `Run ${date} UTC at commit ${facts.commit} on ${facts.cpu}, ${facts.memoryGb} GB RAM, ${facts.os}; Node ${facts.node}, Redis ${facts.redis}, ` +
      `ClickHouse ${facts.clickhouse}. Everything on this one machine at once: the web process and the worker ` +
      `(compiled, as \`npm start\` runs them), Redis, ClickHouse, Postgres, the bare endpoint and autocannon itself. Load average when it started: ${facts.loadAverage}; at the end: ${facts.loadAtEnd}.`,
    "",
    "```",
    `npm run bench:ingest -- --duration ${options.durationS} --connections ${options.connections} --batch ${options.batch}`,
    "```",
    "",
    `autocannon, ${options.connections} connections, ${options.durationS} s per run after a 3 s warm-up, POST \`/api/v1/analytics/action\` ` +
      "as text/plain (as sendBeacon sends it) from 1,000 addresses with new event ids in every request; the bare endpoint is " +
      "Express answering 202 without reading the body. Lag = first seen in ClickHouse (polled every 100 ms) − the 202, " +
      "for about ten sampled events a second.",
    "",
    ...markdownTable(figures),
    "",
    ...markdownTable(cpuTable),
    "",
    "Targets:",
    "",
    ...targets.map((t) => `- ${t}`),
    "",
    why,
    "",
    integrity,
    "",
  ].join("\n");
  return { text, markdown };
}

/** Appends this run to docs/benchmarks/history/ingest.md. */
function writeDocs(section: string) {
  const file = appendBenchmarkRun("ingest", section);
  console.log(`\nAppended this run to ${path.relative(root, file)}.`);
}

main().catch(async (error: Error) => {
  console.error(error.stack ?? error.message);
  await stopAll();
  process.exit(1);
});
