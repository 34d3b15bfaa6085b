/**
 * Memory benchmark: how much memory (RSS) do the web process and the worker hold under
 * minutes of mixed load, as production runs them (compiled JavaScript, ADR 020) and as they ran before (tsx)?
 *
 *   npm run bench:memory [-- --duration 300] [--connections 20] [--runtimes compiled,compiled-defaults,tsx] [--rounds 1]
 *                        [--database soko_bench] [--build] [--no-docs]
 *
 * 1. Uses the catalog benchmark's database (100,000 published gigs; `--database` names another); when it is
 *    missing or incomplete, loads it by running `npm run bench:catalog` with `--queries-only`. Builds the
 *    app when build/ is missing (or with `--build`). The events go to a ClickHouse database of this run's own,
 *    dropped at the end, through a Redis prefix of its own.
 * 2. For each runtime (in turn, `--rounds` times, alternating), starts a fresh worker and web server and
 *    drives them for `--duration` seconds with half the connections on pages (the landing page, /browse with
 *    filters, /search with and without a typo, /terms, and 5,000 different gig pages; gzip, as browsers ask)
 *    and half on tracking (single action events from 1,000 addresses), sampling each process's RSS every 5 s.
 * 3. Reports per run the requests answered, and RSS when idle, after one minute, at the end and at its peak,
 *    against the targets: web under 300 MB and worker under 200 MB after five minutes (peak and end), and
 *    appends that to docs/benchmarks/history/memory.md unless --no-docs.
 *
 * It is a report, not a test: missed targets still exit 0; a request answered with an error exits 1.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import knex from "knex";
import { LOCAL_URLS } from "~/utils/local-services";
import { bin, buildApp, root } from "./build";
import {
  commitOf,
  cpuSecondsOf,
  loadAverage,
  machine,
  markdownTable,
  median,
  nodePidOf,
  plainTable,
  rssMbOf,
  appendBenchmarkRun,
  ADDRESSES,
  actionEvent,
} from "./lib/bench";
import { startAppServer, startProcess, waitUntil, type Child, type Runtime } from "./lib/servers";

const DOCS_HEADING = "## Memory: `npm run bench:memory`";
const TARGET_MB = { web: 300, worker: 200 };
const SAMPLE_EVERY_MS = 5_000;
const GIGS = 100_000;
const GIG_PAGES = 5_000;
const UA = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";

const RUNTIMES: Runtime[] = ["compiled", "compiled-defaults", "tsx"];
const RUNTIME_LABELS: Record<Runtime, string> = { compiled: "compiled (npm start)", "compiled-defaults": "compiled, node's defaults", tsx: "tsx (before)" };

type Options = { durationS: number; connections: number; runtimes: Runtime[]; rounds: number; database: string; build: boolean; docs: boolean };

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "300" },
      connections: { type: "string", default: "20" },
      runtimes: { type: "string", default: "compiled,compiled-defaults,tsx" },
      rounds: { type: "string", default: "1" },
      database: { type: "string", default: "soko_bench" },
      build: { type: "boolean", default: false },
      "no-docs": { type: "boolean", default: false },
    },
  });
  const whole = (name: string, raw: string, min: number) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number of at least ${min}, got "${raw}"`);
    return n;
  };
  const runtimes = values.runtimes.split(",").map((r) => r.trim());
  for (const r of runtimes) if (!RUNTIMES.includes(r as Runtime)) throw new Error(`--runtimes takes ${RUNTIMES.join(", ")}, got "${r}"`);
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(values.database)) throw new Error(`--database must be a plain lower-case name, got "${values.database}"`);
  return {
    durationS: whole("duration", values.duration, 10),
    connections: whole("connections", values.connections, 2),
    runtimes: runtimes as Runtime[],
    rounds: whole("rounds", values.rounds, 1),
    database: values.database,
    build: values.build,
    docs: !values["no-docs"],
  };
}

function databaseUrl(database: string) {
  const url = new URL(process.env.DATABASE_URL ?? LOCAL_URLS.DATABASE_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

// ---------------------------------------------------------------------------------------------------------
// The data and the paths the load asks for.

/** Published gigs in `database`, or 0 when it does not exist or is not migrated. */
async function publishedGigs(url: string): Promise<number> {
  const db = knex({ client: "pg", connection: url, pool: { min: 0, max: 1 } });
  try {
    const { rows } = await db.raw<{ rows: { n: string }[] }>("SELECT count(*) AS n FROM gigs WHERE status = 'published'");
    return Number(rows[0]?.n ?? 0);
  } catch {
    return 0;
  } finally {
    await db.destroy();
  }
}

/** Loads the catalog benchmark's 100,000 gigs into `database` the way `npm run bench:catalog` does. */
function loadCatalog(database: string) {
  console.log(`\n${database} does not hold ${GIGS.toLocaleString("en-US")} published gigs: loading it with bench:catalog (--queries-only)…`);
  execFileSync(bin("tsx"), ["scripts/bench-catalog.ts", "--database", database, "--queries-only", "--duration", "1", "--warmup", "1"], {
    cwd: root,
    stdio: "inherit",
  });
}

async function pagePaths(url: string): Promise<string[]> {
  const db = knex({ client: "pg", connection: url, pool: { min: 0, max: 1 } });
  try {
    // Many distinct gig pages, so the page cache (ADR 019) fills to its bound and most gig pages are rendered.
    const gigs = await db("gigs").where({ status: "published" }).orderByRaw("md5(id::text)").limit(GIG_PAGES).pluck("id");
    const categories = await db("categories").pluck("slug");
    const listings = [
      "/",
      "/browse",
      "/browse?sort=newest",
      "/browse?sort=rating&price=100000-500000",
      "/browse?rating=4&delivery=3&sort=price-low",
      ...categories.map((slug: string) => `/browse?category=${slug}`),
      "/search?q=logo+design",
      "/search?q=logo+desing&sort=price-low&price=under-100000",
      "/search?q=wedding+video",
      "/search?q=translate+luganda",
      "/terms",
    ];
    // Every other request a listing (a few pages, most served from the cache), between them a gig page.
    return gigs.flatMap((id: number, i: number) => [listings[i % listings.length]!, `/gig/${id}`]);
  } finally {
    await db.destroy();
  }
}

type Load = { pages: number; events: number; failed: number };

/** Pages on half the connections, tracking on the other half, both for `seconds`. */
async function drive(baseUrl: string, paths: string[], connections: number, seconds: number): Promise<Load> {
  let nextPath = 0;
  let nextAddress = 0;
  const pageConnections = Math.ceil(connections / 2);
  const [pages, events] = await Promise.all([
    autocannon({
      url: baseUrl,
      connections: pageConnections,
      duration: seconds,
      timeout: 30,
      headers: { "accept-encoding": "gzip", accept: "text/html", "user-agent": UA },
      requests: [{ method: "GET", setupRequest: (request) => ({ ...request, path: paths[nextPath++ % paths.length]! }) }],
    }),
    autocannon({
      url: `${baseUrl}/api/v1/analytics/action`,
      connections: connections - pageConnections,
      duration: seconds,
      timeout: 30,
      requests: [
        {
          method: "POST",
          setupRequest: (request) => {
            nextAddress = (nextAddress + 1) % ADDRESSES.length;
            return {
              ...request,
              headers: { "content-type": "text/plain;charset=UTF-8", "user-agent": UA, "x-forwarded-for": ADDRESSES[nextAddress]! },
              body: JSON.stringify(actionEvent(paths[nextAddress % paths.length]!)),
            };
          },
        },
      ],
    }),
  ]);
  return {
    pages: pages["2xx"],
    events: events["2xx"],
    failed: pages.non2xx + pages.errors + pages.timeouts + events.non2xx + events.errors + events.timeouts,
  };
}

// ---------------------------------------------------------------------------------------------------------
// One run: a fresh web server and worker under load, their RSS sampled.

type Samples = { atS: number; web: number | null; worker: number | null }[];
type Run = { runtime: Runtime; load: Load; durationS: number; samples: Samples; loadAverage: string; webCpuS: number };

async function measure(runtime: Runtime, env: Record<string, string>, paths: string[], options: Options): Promise<Run> {
  const children: Child[] = [];
  try {
    const worker = await startProcess("worker", { NODE_ENV: "production", ALLOW_HTTP: "1", ...env }, { runtime, stopGraceMs: 20_000 });
    children.push(worker);
    const web = await startAppServer(env, { name: "web", host: "127.0.0.1", timeoutMs: 60_000, stopGraceMs: 20_000, runtime });
    children.push(web);
    await waitUntil(worker, () => worker.output().includes("[worker] ready"), "[worker] ready", 60_000);
    const pids = { web: nodePidOf(web), worker: nodePidOf(worker) };

    const samples: Samples = [];
    const started = Date.now();
    const sample = () => samples.push({ atS: Math.round((Date.now() - started) / 1000), web: rssMbOf(pids.web), worker: rssMbOf(pids.worker) });
    sample();
    const timer = setInterval(sample, SAMPLE_EVERY_MS);
    const startLoad = loadAverage();
    const cpuBefore = cpuSecondsOf(pids.web) ?? Number.NaN;
    let load: Load;
    try {
      load = await drive(web.baseUrl, paths, options.connections, options.durationS);
    } finally {
      clearInterval(timer);
    }
    sample();
    const webCpuS = (cpuSecondsOf(pids.web) ?? Number.NaN) - cpuBefore;
    for (const child of children) if (child.exited()) throw new Error(`${child.name} exited during the run:\n${child.output()}`);
    return { runtime, load, durationS: (Date.now() - started) / 1000, samples, loadAverage: startLoad, webCpuS };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}

// ---------------------------------------------------------------------------------------------------------
// The report.

type Figures = { idle: number; minute: number; end: number; peak: number; lastMinuteMedian: number };

function figures(samples: Samples, which: "web" | "worker"): Figures {
  const at = (s: Samples[number]) => s[which] ?? Number.NaN;
  const end = samples.at(-1)!;
  const minute = samples.find((s) => s.atS >= 60) ?? end;
  return {
    idle: at(samples[0]!),
    minute: at(minute),
    end: at(end),
    peak: Math.max(...samples.map(at).filter(Number.isFinite)),
    lastMinuteMedian: median(samples.filter((s) => s.atS >= end.atS - 60).map(at)),
  };
}

const mb = (n: number) => (Number.isFinite(n) ? `${Math.round(n)}` : "–");

function report(runs: Run[], options: Options) {
  const header = [
    "Runtime",
    "Load avg at start",
    "Pages/s",
    "Events/s",
    "Errors",
    "Web CPU ms / request",
    "Web RSS MB idle / 1 min / end / peak",
    "Worker RSS MB idle / 1 min / end / peak",
    "Targets (web < 300, worker < 200 MB)",
  ];
  const rows = runs.map((run) => {
    const web = figures(run.samples, "web");
    const worker = figures(run.samples, "worker");
    const met = web.peak < TARGET_MB.web && worker.peak < TARGET_MB.worker;
    return [
      RUNTIME_LABELS[run.runtime],
      run.loadAverage.split(", ")[0]!,
      (run.load.pages / options.durationS).toFixed(0),
      (run.load.events / options.durationS).toFixed(0),
      String(run.load.failed),
      ((run.webCpuS * 1000) / Math.max(1, run.load.pages + run.load.events)).toFixed(2),
      [web.idle, web.minute, web.end, web.peak].map(mb).join(" / "),
      [worker.idle, worker.minute, worker.end, worker.peak].map(mb).join(" / "),
      met ? "met" : `missed (web peak ${mb(web.peak)}, worker peak ${mb(worker.peak)})`,
    ];
  });
  // Peak RSS per runtime: the median over rounds, each against tsx (the way before).
  const peakOf = (runtime: Runtime, which: "web" | "worker") => median(runs.filter((r) => r.runtime === runtime).map((r) => figures(r.samples, which).peak));
  const ratios = options.runtimes.includes("tsx")
    ? options.runtimes
        .filter((r) => r !== "tsx")
        .map(
          (r) =>
            `${RUNTIME_LABELS[r]}: ${(["web", "worker"] as const).map((w) => `${w} ${mb(peakOf(r, w))} MB (${(peakOf(r, w) / peakOf("tsx", w)).toFixed(2)}× tsx's ${mb(peakOf("tsx", w))})`).join(", ")}`,
        )
    : [];
  const m = machine();
  const facts = `Commit ${commitOf()}, ${m.cpu}, ${m.memoryGb} GB, ${m.os}, Node ${m.node}; ${options.durationS} s per run at ${options.connections} connections (half pages, half tracking), ${options.rounds} round(s); load average at the end ${loadAverage()}.`;
  const text = [facts, "", ...plainTable([header, ...rows]), ...(ratios.length ? ["", `Peak RSS, median of the rounds: ${ratios.join("; ")}.`] : [])].join(
    "\n",
  );
  const markdown = [
    DOCS_HEADING,
    "",
    `\`npm run bench:memory${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}\``,
    "",
    `${facts} Database ${options.database} (${GIGS.toLocaleString("en-US")} published gigs). RSS is read from /proc every ${SAMPLE_EVERY_MS / 1000} s; the web process and the worker start fresh for each run.`,
    "",
    ...markdownTable([header, ...rows]),
    ...(ratios.length ? ["", `Peak RSS, median of the rounds: ${ratios.join("; ")}.`] : []),
    "",
  ].join("\n");
  return { text, markdown };
}

// ---------------------------------------------------------------------------------------------------------

async function main() {
  const options = readOptions();
  const url = databaseUrl(options.database);
  if ((await publishedGigs(url)) !== GIGS) loadCatalog(options.database);
  if ((await publishedGigs(url)) !== GIGS) throw new Error(`${options.database} still does not hold ${GIGS} published gigs`);
  if (options.build || !fs.existsSync(path.join(root, "build", "server", "index.js"))) {
    console.log("\nBuilding…");
    if (buildApp({ stdio: ["ignore", "ignore", "inherit"] }) !== 0) throw new Error("the build failed");
  }

  const tag = randomBytes(4).toString("hex");
  const clickhouseDatabase = `soko_bench_memory_${tag}`;
  const redisUrl = process.env.REDIS_URL ?? LOCAL_URLS.REDIS_URL;
  const clickhouseUrl = process.env.CLICKHOUSE_URL ?? LOCAL_URLS.CLICKHOUSE_URL;
  const [{ migrateClickHouse }, { clickHouseOptions, createClickHouse }, { parseEnv }, { Redis }] = await Promise.all([
    import("./lib/migrate"),
    import("~/analytics/clickhouse.server"),
    import("~/server/env.server"),
    import("ioredis"),
  ]);
  const clickhouseOptions = clickHouseOptions(
    parseEnv({ ...process.env, DATABASE_URL: url, REDIS_URL: redisUrl, CLICKHOUSE_URL: clickhouseUrl, CLICKHOUSE_DATABASE: clickhouseDatabase }),
  );
  await migrateClickHouse(clickhouseOptions);
  const paths = await pagePaths(url);
  const prefixes: string[] = [];

  const runs: Run[] = [];
  try {
    const order = Array.from({ length: options.rounds }, (_, round) => (round % 2 === 0 ? options.runtimes : [...options.runtimes].reverse())).flat();
    for (const [i, runtime] of order.entries()) {
      const prefix = `bench_memory_${tag}_${i}`;
      prefixes.push(prefix);
      const env = {
        DATABASE_URL: url,
        REDIS_URL: redisUrl,
        CLICKHOUSE_URL: clickhouseUrl,
        CLICKHOUSE_DATABASE: clickhouseDatabase,
        QUEUE_PREFIX: prefix,
        SEED_DEMO: "0",
        // All the load comes from this machine: the per-address limits (ADR 010) would answer 429.
        TRUST_PROXY: "loopback",
        ANALYTICS_RATE_LIMIT: "1000000000",
        CATALOG_RATE_LIMIT: "1000000000",
      };
      console.log(`\nRun ${i + 1} of ${order.length}: ${runtime}, ${options.durationS} s (load average ${loadAverage()})`);
      const run = await measure(runtime, env, paths, options);
      const web = figures(run.samples, "web");
      const worker = figures(run.samples, "worker");
      console.log(
        `  ${run.load.pages} pages, ${run.load.events} events, ${run.load.failed} errors; web RSS peak ${mb(web.peak)} MB (end ${mb(web.end)}), worker peak ${mb(worker.peak)} MB (end ${mb(worker.end)})`,
      );
      runs.push(run);
    }
  } finally {
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
    for (const prefix of prefixes) {
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
        cursor = next;
        if (keys.length) await redis.del(...keys);
      } while (cursor !== "0");
    }
    redis.disconnect();
    // A busy ClickHouse may time out here: the figures are printed all the same.
    const clickhouse = createClickHouse({ ...clickhouseOptions, database: "default" });
    await clickhouse
      .command({ query: `DROP DATABASE IF EXISTS ${clickhouseDatabase}` })
      .catch((error: Error) => console.error(`Could not drop the ClickHouse database ${clickhouseDatabase}: ${error.message}`));
    await clickhouse.close();
  }

  const { text, markdown } = report(runs, options);
  console.log(`\n${text}`);
  fs.mkdirSync(path.join(root, ".data"), { recursive: true });
  fs.writeFileSync(path.join(root, ".data", "bench-memory.md"), markdown);
  fs.writeFileSync(path.join(root, ".data", "bench-memory-samples.json"), JSON.stringify(runs, null, 1));
  if (options.docs) console.log(`\nAppended this run to ${path.relative(root, appendBenchmarkRun("memory", markdown))}.`);
  if (runs.some((r) => r.load.failed > 0)) {
    console.error("\nSome requests were not answered with 2xx: see the Errors column.");
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
