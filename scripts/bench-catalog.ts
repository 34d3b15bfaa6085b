/**
 * Catalog benchmark: how fast are /browse, /search and /gig/:id with 100,000 published gigs,
 * and how much of that time is the database query behind each page?
 *
 *   npm run bench:catalog [-- --duration 10] [--warmup 2] [--connections 20] [--build] [--keep-data] [--queries-only]
 *                         [--search-only] [--database soko_bench] [--page-cache on|off] [--baseline <checkout>]
 *                         [--no-docs]
 *
 * 1. (Re)creates a separate database, soko_bench, on the project's Postgres, migrates it and loads
 *    2,000 freelancers, 100,000 published gigs with three packages each and ~840,000 reviews with
 *    set-based SQL (generate_series), then calls refreshCatalog and runs VACUUM ANALYZE. Unlike the demo
 *    data (scripts/lib/seed.ts), this fixture does not go through app/operations/: 100,000 gigs one
 *    operation at a time would take many minutes and measure nothing the benchmark is about; nobody signs
 *    in to it, and it lives in its own database. The loader is scripts/lib/catalog-data.ts (bench:api uses it too).
 *    `--keep-data` reuses soko_bench when it already holds the 100,000 gigs.
 * 2. Runs the production build (building it when missing or with `--build`) as a child process against
 *    soko_bench, checks each page answers 200 and shows what its model returns, warms the server up for
 *    10 s, then drives each page with autocannon: 20 connections, 2 s warm-up, 10 s measured.
 * 3. Times the bare model call behind each page (listCatalog; getGigPageWithReviews) from 20
 *    concurrent workers on a pool of its own, for the same durations, right after its page.
 * 4. Prints p50/p95/p99 and throughput of both, their p95 ratio and whether each page meets the target:
 *    p95 ≤ 50 ms and ≤ 3× its bare query's p95 with the page cache on; ≤ 3× with it off (see targetText).
 * 5. Times single search calls, one in flight, A/B call by call: a relevance search ranking its
 *    bounded candidate set (listCatalog as it is) against ranking every match (the old order), for the same
 *    durations; target: a median under 10 ms. `--search-only` measures only these (no server, no pages).
 *    `--database` loads and measures another database than soko_bench (two people measuring at once).
 *    `--page-cache off` runs the server without the anonymous page cache (ADR 019; on by default, as in
 *    production): the pages are then rendered for every request, as a signed-in member's are.
 *    `--baseline <checkout>` adds a third arm to the single search calls: that checkout's listCatalog (its
 *    app/models/catalog-search.server.ts, or app/models/gig.server.ts in older checkouts, with our utils), on
 *    a database of its own, `<database>_baseline`, migrated with its migrations and loaded with the same
 *    seeded data (kept with --keep-data): old code against new in the same run, call by call (a git worktree
 *    of an earlier commit will do).
 * 6. Appends what it printed to docs/benchmarks/history/catalog.md unless --no-docs.
 *
 * It is a report, not a test: missed targets still exit 0; only errors (a page that does not answer 200
 * or does not show its gigs, a failed load) exit non-zero. soko_bench is kept afterwards for inspection.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import type autocannon from "autocannon";
import type { Knex } from "knex";
import { appendPrintedRun, keepConsole } from "./lib/bench";
import { BENCH_DB, benchEnv, databaseUrl, prepareDatabase } from "./lib/catalog-data";
import { ensureBuild, measureEndpoint, measureQuery, runAutocannon, startServer, summarise, type EndpointStats, type Stats, type WebServer } from "./lib/drive";

const DETAIL_IDS = 200;
const TARGET_P95_MS = 50;
const TARGET_RATIO = 3;

// ---------------------------------------------------------------------------------------------------------
// Options and environment.

type Options = {
  durationS: number;
  warmupS: number;
  connections: number;
  build: boolean;
  keepData: boolean;
  queriesOnly: boolean;
  searchOnly: boolean;
  database: string;
  /** The server's anonymous page cache (ADR 019). */
  pageCache: "on" | "off";
  /** Another checkout whose search calls are timed beside ours (null: none). */
  baseline: string | null;
  /** Append the run to docs/benchmarks/history/catalog.md. */
  docs: boolean;
};

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "10" },
      warmup: { type: "string", default: "2" },
      connections: { type: "string", default: "20" },
      build: { type: "boolean", default: false },
      "keep-data": { type: "boolean", default: false },
      "queries-only": { type: "boolean", default: false },
      "search-only": { type: "boolean", default: false },
      database: { type: "string", default: BENCH_DB },
      "page-cache": { type: "string", default: "on" },
      baseline: { type: "string" },
      "no-docs": { type: "boolean", default: false },
    },
  });
  const fail = (message: string): never => {
    throw new Error(message);
  };
  const positive = (name: string, raw: string) => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got "${raw}"`);
    return n;
  };
  return {
    durationS: positive("duration", values.duration),
    warmupS: positive("warmup", values.warmup),
    connections: Math.round(positive("connections", values.connections)),
    build: values.build,
    keepData: values["keep-data"],
    queriesOnly: values["queries-only"],
    searchOnly: values["search-only"],
    pageCache:
      values["page-cache"] === "on" || values["page-cache"] === "off"
        ? values["page-cache"]
        : fail(`--page-cache must be on or off, got "${values["page-cache"]}"`),
    database: /^[a-z_][a-z0-9_]{0,53}$/.test(values.database) ? values.database : fail(`--database must be a plain lower-case name, got "${values.database}"`),
    baseline:
      values.baseline === undefined
        ? null
        : fs.existsSync(path.join(values.baseline, "app/models/gig.server.ts"))
          ? path.resolve(values.baseline)
          : fail(`--baseline must be a checkout of this app, got "${values.baseline}"`),
    docs: !values["no-docs"],
  };
}

/** App modules read process.env when first used, so they are imported only after it points at soko_bench. */
async function loadApp() {
  const [gigModel, catalogModel, schemas, migrate, db, seed] = await Promise.all([
    import("~/models/gig.server"),
    import("~/models/catalog-search.server"),
    import("~/schemas/gig"),
    import("./lib/migrate"),
    import("~/server/db.server"),
    import("./lib/seed"),
  ]);
  return {
    listCatalog: catalogModel.listCatalog,
    COUNT_CAP: catalogModel.COUNT_CAP,
    getGigPageWithReviews: gigModel.getGigPageWithReviews,
    refreshCatalog: gigModel.refreshCatalog,
    parseCatalogQuery: schemas.parseCatalogQuery,
    DELIVERY_DAYS: schemas.DELIVERY_DAYS,
    migratePostgres: migrate.migratePostgres,
    createDb: db.createDb,
    CATEGORY_SLUGS: seed.DEMO_CATEGORY_SLUGS,
  };
}
type App = Awaited<ReturnType<typeof loadApp>>;

// ---------------------------------------------------------------------------------------------------------
// Measuring pages (the database, the server and the timing helpers are in scripts/lib/catalog-data.ts and drive.ts).

type PageStats = EndpointStats;

/** autocannon options for a scenario: one path, or a rotation through several (one per request). */
function requestOptions(baseUrl: string, paths: string[], connections: number, seconds: number): autocannon.Options {
  const headers = { "accept-encoding": "gzip", accept: "text/html" };
  const common = { connections, duration: seconds, headers, timeout: 10 };
  if (paths.length === 1) return { ...common, url: `${baseUrl}${paths[0]}` };
  let next = 0;
  return {
    ...common,
    url: baseUrl,
    requests: [{ method: "GET", setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length]! }) }],
  };
}

/**
 * A freshly started server is slower for its first ten seconds or so of load (V8 is still optimising the
 * render path; ~20% fewer requests/s on /browse here): all pages in rotation for 10 s before measuring,
 * so the first scenario is not measured against a cold server.
 */
async function warmUpServer(baseUrl: string, scenarios: Scenario[], options: Options) {
  const paths = scenarios.flatMap((s) => s.paths.slice(0, 20));
  await runAutocannon(requestOptions(baseUrl, paths, options.connections, Math.max(10, options.warmupS)), () => {});
}

function measurePage(baseUrl: string, paths: string[], options: Options): Promise<PageStats> {
  return measureEndpoint((seconds) => requestOptions(baseUrl, paths, options.connections, seconds), options);
}

// ---------------------------------------------------------------------------------------------------------
// Scenarios.

/** `expect` is text the first path's page must show (a gig title the model returns), so a 200 that is not the page fails. */
type Scenario = { name: string; paths: string[]; query: () => Promise<unknown>; expect: string | null };

async function buildScenarios(app: App, db: Knex): Promise<Scenario[]> {
  const catalog = async (name: string, pathname: "/browse" | "/search", search: string): Promise<Scenario> => {
    const query = () => app.listCatalog(db, app.parseCatalogQuery(new URLSearchParams(search)));
    const first = await query();
    return { name, paths: [`${pathname}${search ? `?${search}` : ""}`], query, expect: first.gigs[0]?.title ?? null };
  };

  const firstNewest = await app.listCatalog(db, app.parseCatalogQuery(new URLSearchParams("sort=newest")));
  if (!firstNewest.nextCursor) throw new Error("the newest-first catalog has no second page");
  const page2 = new URLSearchParams({ sort: "newest", cursor: firstNewest.nextCursor }).toString();

  const sample = await db("gigs").where({ status: "published" }).orderByRaw("md5(id::text)").limit(DETAIL_IDS).select("id", "title");
  const ids = sample.map((g) => Number(g.id));
  let nextId = 0;
  const gigDetail: Scenario = {
    name: `gig detail (${ids.length} gigs)`,
    paths: ids.map((id) => `/gig/${id}`),
    // As the gig page's loader does: the gig with its first page of reviews.
    query: async () => {
      const id = ids[nextId++ % ids.length]!;
      const found = await app.getGigPageWithReviews(db, id, null, 1);
      if (!found) throw new Error(`gig ${id} is not visible`);
      return found;
    },
    expect: sample[0]?.title ?? null,
  };

  return [
    await catalog("browse default", "/browse", ""),
    await catalog("browse graphics, 100k–500k, by rating", "/browse", "category=graphics-design&price=100000-500000&sort=rating"),
    await catalog("browse 4★+, ≤3 days, price low", "/browse", "rating=4&delivery=3&sort=price-low"),
    await catalog("browse newest, page 2", "/browse", page2),
    await catalog("search 'logo design'", "/search", "q=logo+design"),
    await catalog("search 'logo desing', <100k, price low", "/search", "q=logo+desing&sort=price-low&price=under-100000"),
    gigDetail,
  ];
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" })[c]!);

/**
 * One request to each page before measuring: a page that does not answer 200, or does not show what its
 * model returns, is an error, not a figure.
 */
async function checkPage(baseUrl: string, scenario: Scenario): Promise<string | null> {
  const pathname = scenario.paths[0]!;
  try {
    const res = await fetch(`${baseUrl}${pathname}`, { signal: AbortSignal.timeout(30_000) });
    const html = await res.text();
    if (res.status !== 200) return `GET ${pathname} answered ${res.status}`;
    if (scenario.expect && !html.includes(escapeHtml(scenario.expect))) return `GET ${pathname} does not show "${scenario.expect}"`;
    return null;
  } catch (error) {
    return `GET ${pathname} failed: ${(error as Error).message}`;
  }
}

// ---------------------------------------------------------------------------------------------------------
// The report.

type Row = { scenario: Scenario; page: PageStats | null; pageError: string | null; query: Stats };

async function machineFacts(db: Knex) {
  const { rows } = await db.raw<{ rows: { server_version: string }[] }>("SHOW server_version");
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    model: cpus[0]?.model.trim() ?? "unknown",
    memory: `${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    postgres: rows[0]?.server_version ?? "unknown",
  };
}

/** Other work on the machine skews every figure: say so, with the load average before measuring. */
function warnIfBusy() {
  const [one, five] = os.loadavg();
  const busy = (one ?? 0) > os.cpus().length * 0.5;
  console.log(
    `Load average before measuring: ${one?.toFixed(2)} (1 min), ${five?.toFixed(2)} (5 min)${busy ? " (busy: other work is running, figures will be noisy)" : ""}`,
  );
}

const ms = (n: number) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(1) : n.toFixed(0)) : "–");
const triple = (s: Stats) => `${ms(s.p50)} / ${ms(s.p95)} / ${ms(s.p99)}`;

/**
 * The target a page is held to: with the page cache on (what visitors get), p95 ≤ 50 ms and ≤ 3× its bare query
 * (docs/benchmarks.md); with it off (every page rendered, as a signed-in member's are), ≤ 3× its bare query (no
 * absolute p95 is asked of members' pages).
 */
const targetText = (pageCache: "on" | "off") =>
  pageCache === "on" ? `p95 ≤ ${TARGET_P95_MS} ms and ≤ ${TARGET_RATIO}× the bare query's p95` : `≤ ${TARGET_RATIO}× the bare query's p95, page cache off`;

function verdict(row: Row, pageCache: "on" | "off"): string {
  if (!row.page) return `page failed: ${row.pageError}`;
  const ratio = row.page.p95 / row.query.p95;
  const misses = [
    pageCache === "on" && row.page.p95 > TARGET_P95_MS ? `p95 ${ms(row.page.p95)} ms > ${TARGET_P95_MS} ms` : null,
    ratio > TARGET_RATIO ? `ratio ${ratio.toFixed(1)}× > ${TARGET_RATIO}×` : null,
    row.page.non2xx + row.page.errors > 0 ? `${row.page.non2xx} non-2xx, ${row.page.errors} errors` : null,
  ].filter(Boolean);
  return misses.length ? `missed: ${misses.join("; ")}` : "met";
}

function printTable(rows: Row[], pageCache: "on" | "off") {
  const header = ["scenario", "page p50/p95/p99 ms", "page req/s", "query p50/p95/p99 ms", "query calls/s", "page p95 ÷ query p95", "target"];
  const lines = rows.map((row) => [
    row.scenario.name,
    row.page ? triple(row.page) : "–",
    row.page ? row.page.perSecond.toFixed(0) : "–",
    triple(row.query),
    row.query.perSecond.toFixed(0),
    row.page ? `${(row.page.p95 / row.query.p95).toFixed(1)}×` : "–",
    verdict(row, pageCache),
  ]);
  console.log(`\n| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|`);
  for (const line of lines) console.log(`| ${line.join(" | ")} |`);
}

// ---------------------------------------------------------------------------------------------------------
// One search call at a time: the bounded candidate set against ranking every match.

/** Searches timed call by call; the last one sorts by price, which the candidate set does not touch. */
const SEARCH_CALLS = ["q=logo+design", "q=logo+desing", "q=design", "q=translate+luganda", "q=logo+desing&sort=price-low&price=under-100000"];
const TARGET_SEARCH_MS = 10;

type Arm = "bounded" | "all" | "baseline";
type PerArm = Partial<Record<Arm, number>>;
type SearchCallRow = {
  search: string;
  times: Partial<Record<Arm, Stats>>;
  fastest: PerArm;
  postgresCpu: PerArm | null;
  matches: string;
  shared: number;
  shown: number;
};

/** Another checkout's search, timed beside ours: its listCatalog and a pool on its own database. */
type Baseline = { listCatalog: App["listCatalog"]; db: Knex; url: string };

/**
 * CPU milliseconds a Postgres backend has used (user + system, from /proc: Postgres runs on this machine).
 * Unlike latency, it hardly moves with the other work on a busy machine. Null where /proc cannot tell.
 */
function backendCpuMs(pid: number): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return null;
  }
}
const CLOCK_TICKS_PER_S = 100;

/**
 * Each search called alone, one call in flight (what a buyer waits for when nothing queues), alternating
 * call by call between listCatalog as it is (a relevance search ranks a bounded candidate set), the old
 * order, which ranks every match (`candidates: Infinity`), and (with --baseline) another checkout's
 * listCatalog on its own copy of the data, so all see the same moment of a noisy machine. Also says how many
 * of the first page's gigs the bounded and rank-all orders share.
 */
async function measureSearchCalls(app: App, db: Knex, url: string, options: Options, baseline: Baseline | null): Promise<SearchCallRow[]> {
  // Postgres's CPU per call: the same calls on a pool of one connection per database, whose backend's CPU
  // time is read before and after each (the clock ticks are coarse, so this reports the sum over all calls
  // ÷ their number).
  const singles = await Promise.all(
    [url, baseline?.url ?? null].map(async (u) => {
      if (!u) return null;
      const single = app.createDb(u, { min: 1, max: 1, idleTimeoutMillis: 3_600_000 });
      const { rows } = await single.raw<{ rows: { pid: number }[] }>("SELECT pg_backend_pid() AS pid");
      return { db: single, pid: rows[0]!.pid };
    }),
  );
  const arms: Arm[] = baseline ? ["bounded", "all", "baseline"] : ["bounded", "all"];
  const rows: SearchCallRow[] = [];
  for (const search of SEARCH_CALLS) {
    const query = app.parseCatalogQuery(new URLSearchParams(search));
    const call = (arm: Arm, single = false) => {
      const own = single ? singles[0]!.db : db;
      if (arm === "bounded") return app.listCatalog(own, query);
      if (arm === "all") return app.listCatalog(own, query, { candidates: Infinity });
      return baseline!.listCatalog(single ? singles[1]!.db : baseline!.db, query);
    };
    const alternate = async (seconds: number) => {
      const times: Partial<Record<Arm, number[]>> = Object.fromEntries(arms.map((a) => [a, []]));
      const end = performance.now() + seconds * 1000;
      while (performance.now() < end) {
        for (const arm of arms) {
          const t0 = performance.now();
          await call(arm);
          times[arm]!.push(performance.now() - t0);
        }
      }
      return times;
    };
    await alternate(options.warmupS);
    const started = performance.now();
    const times = await alternate(options.durationS);
    const seconds = (performance.now() - started) / 1000;
    const cpu: PerArm = {};
    const calls: PerArm = {};
    let cpuKnown = backendCpuMs(singles[0]!.pid) !== null;
    const cpuEnd = performance.now() + options.durationS * 1000;
    while (cpuKnown && performance.now() < cpuEnd) {
      for (const arm of arms) {
        const pid = arm === "baseline" ? singles[1]!.pid : singles[0]!.pid;
        const before = backendCpuMs(pid);
        await call(arm, true);
        const after = backendCpuMs(pid);
        if (before === null || after === null) cpuKnown = false;
        else cpu[arm] = (cpu[arm] ?? 0) + after - before;
        calls[arm] = (calls[arm] ?? 0) + 1;
      }
    }
    const [first, old] = await Promise.all([call("bounded"), call("all")]);
    const oldIds = new Set(old.gigs.map((g) => g.id));
    rows.push({
      search,
      times: Object.fromEntries(arms.map((a) => [a, summarise(times[a]!, seconds)])),
      // The fastest call of each: on a busy machine, the nearest to what a quiet one would take.
      fastest: Object.fromEntries(arms.map((a) => [a, Math.min(...times[a]!)])),
      postgresCpu: cpuKnown ? Object.fromEntries(arms.map((a) => [a, cpu[a]! / calls[a]!])) : null,
      matches: first.total === null ? "–" : first.total > app.COUNT_CAP ? `${app.COUNT_CAP.toLocaleString("en-US")}+` : String(first.total),
      shared: first.gigs.filter((g) => oldIds.has(g.id)).length,
      shown: first.gigs.length,
    });
    const row = rows.at(-1)!;
    console.log(
      `  ${search}: median ${ms(row.times.bounded!.p50)} ms (all matches ranked: ${ms(row.times.all!.p50)} ms` +
        `${row.times.baseline ? `; baseline: ${ms(row.times.baseline.p50)} ms` : ""})`,
    );
  }
  await Promise.all(singles.map((s) => s?.db.destroy()));
  return rows;
}

function reportSearchCalls(rows: SearchCallRow[]) {
  const withBaseline = rows.some((r) => r.times.baseline);
  const arms: Arm[] = withBaseline ? ["bounded", "all", "baseline"] : ["bounded", "all"];
  const names = { bounded: "bounded", all: "rank all", baseline: "baseline" };
  const header = [
    "search",
    "matches",
    ...arms.map((a) => `${names[a]} p50/p95/p99 ms`),
    "p50 all ÷ bounded",
    ...(withBaseline ? ["p50 baseline ÷ bounded"] : []),
    `fastest ${arms.map((a) => names[a]).join(" / ")} ms`,
    `Postgres CPU per call ${arms.map((a) => names[a]).join(" / ")} ms`,
    "first page shared",
    "target",
  ];
  console.log(`\n| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|`);
  for (const r of rows) {
    const p50 = (a: Arm) => r.times[a]!.p50;
    const verdict = p50("bounded") < TARGET_SEARCH_MS ? "met" : `missed: median ${ms(p50("bounded"))} ms ≥ ${TARGET_SEARCH_MS} ms`;
    const cells = [
      r.search,
      r.matches,
      ...arms.map((a) => triple(r.times[a]!)),
      `${(p50("all") / p50("bounded")).toFixed(1)}×`,
      ...(withBaseline ? [`${(p50("baseline") / p50("bounded")).toFixed(1)}×`] : []),
      arms.map((a) => ms(r.fastest[a]!)).join(" / "),
      r.postgresCpu ? arms.map((a) => ms(r.postgresCpu![a]!)).join(" / ") : "–",
      `${r.shared} of ${r.shown}`,
      verdict,
    ];
    console.log(`| ${cells.join(" | ")} |`);
  }
  console.log(
    `\nOne call in flight, the arms alternating call by call; Postgres CPU: the same calls on one connection per ` +
      `database, its backend's CPU time ÷ calls. Target: a search call under ${TARGET_SEARCH_MS} ms (median).`,
  );
}

// ---------------------------------------------------------------------------------------------------------

async function printSetup(db: Knex, options: Options) {
  const facts = await machineFacts(db);
  console.log(`\nMachine: ${facts.cpus} × ${facts.model}, ${facts.memory}, ${facts.os}; Node ${facts.node}; Postgres ${facts.postgres}`);
  console.log(`Each measurement: ${options.connections} connections/workers, ${options.warmupS} s warm-up, ${options.durationS} s measured.`);
}

/** Each scenario in turn: its page (when there is a server), then its bare query. */
async function measureScenarios(scenarios: Scenario[], server: WebServer | null, options: Options): Promise<Row[]> {
  const rows: Row[] = [];
  for (const scenario of scenarios) {
    process.stdout.write(`  ${scenario.name}: `);
    let page: PageStats | null = null;
    const pageError: string | null = server ? await checkPage(server.baseUrl, scenario) : "skipped (--queries-only)";
    if (server && !pageError) page = await measurePage(server.baseUrl, scenario.paths, options);
    const query = await measureQuery(scenario.query, options);
    rows.push({ scenario, page, pageError, query });
    console.log(page ? `page p95 ${ms(page.p95)} ms, query p95 ${ms(query.p95)} ms` : `${pageError}; query p95 ${ms(query.p95)} ms`);
  }
  return rows;
}

/** The table and the verdict; true when every page answered (missed targets are not failures). */
function report(rows: Row[], server: WebServer | null, pageCache: "on" | "off"): boolean {
  printTable(rows, pageCache);
  const failed = server ? rows.filter((r) => !r.page || r.page.errors > 0) : [];
  const non2xx = rows.some((r) => (r.page?.non2xx ?? 0) > 0);
  if (server && (failed.length || non2xx)) console.error(`\n--- last lines of the web server's output ---\n${server.output()}`);
  const met = rows.filter((r) => verdict(r, pageCache) === "met").length;
  console.log(`\n${met} of ${rows.length} pages met the target (${targetText(pageCache)}).`);
  return failed.length === 0;
}

/** The --baseline checkout's listCatalog, and its own database loaded with the same data by its migrations. */
async function prepareBaseline(app: App, options: Options): Promise<Baseline> {
  const database = `${options.database}_baseline`;
  const url = databaseUrl(database);
  await prepareDatabase(app, url, database, options.keepData, path.join(options.baseline!, "migrations"));
  // listCatalog is in app/models/catalog-search.server.ts, or in app/models/gig.server.ts in older checkouts.
  const catalogModule = ["app/models/catalog-search.server.ts", "app/models/gig.server.ts"].find((file) => fs.existsSync(path.join(options.baseline!, file)))!;
  const model = (await import(path.join(options.baseline!, catalogModule))) as { listCatalog: App["listCatalog"] };
  console.log(`Baseline: ${options.baseline} on ${database}`);
  return { listCatalog: model.listCatalog, db: app.createDb(url, { min: 0, max: options.connections }), url };
}

async function main() {
  const options = readOptions();
  const printed = keepConsole();
  const benchUrl = databaseUrl(options.database);
  Object.assign(process.env, benchEnv(benchUrl));
  const app = await loadApp();

  await prepareDatabase(app, benchUrl, options.database, options.keepData);
  const baseline = options.baseline ? await prepareBaseline(app, options) : null;

  const db = app.createDb(benchUrl, { min: 0, max: options.connections });
  let server: WebServer | null = null;
  const stopServer = async () => server?.stop();
  const onSignal = () => void stopServer().finally(() => process.exit(130));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    await printSetup(db, options);
    warnIfBusy();
    if (options.searchOnly) {
      reportSearchCalls(await measureSearchCalls(app, db, benchUrl, options, baseline));
      if (options.docs) recordRun(printed());
      return;
    }
    const scenarios = await buildScenarios(app, db);
    if (!options.queriesOnly) {
      ensureBuild(options.build);
      server = await startServer({ ...benchEnv(benchUrl), PAGE_CACHE: options.pageCache });
      console.log(`Web server (production build, page cache ${options.pageCache}) at ${server.baseUrl}; warming it up…`);
      await warmUpServer(server.baseUrl, scenarios, options);
    }
    const rows = await measureScenarios(scenarios, server, options);
    if (!report(rows, server, options.pageCache)) process.exitCode = 1;
    // The single search calls run with the server stopped, so they do not compete with it.
    await stopServer();
    server = null;
    console.log("\nSearch calls, one at a time:");
    reportSearchCalls(await measureSearchCalls(app, db, benchUrl, options, baseline));
    if (options.docs) recordRun(printed());
  } finally {
    await stopServer();
    await db.destroy();
    await baseline?.db.destroy();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/** Appends what this run printed to docs/benchmarks/history/catalog.md. */
function recordRun(printed: string) {
  const file = appendPrintedRun("catalog", "Catalog: `npm run bench:catalog`", "npm run bench:catalog", printed);
  console.log(`\nAppended this run to ${path.relative(process.cwd(), file)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
