/**
 * Analytics reports benchmark: how long each admin report takes over 10 million
 * events, and what the CSV export costs.
 *
 *   npm run bench:reports [-- --rebuild] [--rebuild-derived] [--warmups 5] [--runs 20] [--budget 8] [--events-runs 3]
 *                         [--no-export] [--build] [--no-docs]
 *
 * 1. Data: the ClickHouse database `soko_bench_reports` (migrated with migrations/clickhouse/*.sql) filled with
 *    10M generated events (scripts/lib/bench-reports-data.ts: 30 days, 200k sessions, Ugandan devices, cities
 *    and pages) by INSERT … SELECT inside ClickHouse, then OPTIMIZE … FINAL (the merged state a live store
 *    reaches). It is kept and reused by later runs; --rebuild makes it again.
 * 2. Reports: each report function of app/analytics/reports.server.ts and insights.server.ts (and the
 *    dashboard's ClickHouse part) runs through our code against that database, --warmups times unmeasured,
 *    then --runs times (fewer once a report has used --budget seconds, at least 3): p50 and p95. The SQL it
 *    sent is recorded, and each statement is run as it is with `clickhouse-client --time` (the native client
 *    of the embedded server; its own timing of the query), up to 3 times: the raw time is the sum of the
 *    statements' medians (our code sends a report's statements in parallel).
 *    Before that, the worker's builder (app/analytics/rollups.server.ts, buildRollups) builds the derived
 *    tables for the whole data (timed; kept for later runs, --rebuild-derived builds them again), and each
 *    report also runs reading only the events (`eventsOnly`, what it cost before the derived tables:
 *    --events-runs times after one warm-up), so the two are compared in one run.
 * 3. Export: a Postgres database of its own with one admin and a session; the built web process (as
 *    `npm start`) with CLICKHOUSE_DATABASE = the bench database. GET /admin/analytics/export of the page
 *    views of the whole days that hold about 1M rows, downloaded 3 times, against `clickhouse-client … FORMAT
 *    CSVWithNames` of the same SQL to a file; the web process's resident memory is sampled every 20 ms
 *    (growth = highest during a download − before it). The download asks for plain bytes 3 times, then for
 *    gzip (as browsers do, so the web process's compression() gzips the CSV) 3 times.
 * 4. Prints a table, and appends it to docs/benchmarks/history/reports.md unless --no-docs.
 *
 * A report, not a test: missed targets exit 0; errors exit 1. Everything started is stopped; the Postgres
 * database is dropped; the ClickHouse data is kept for the next run (DROP DATABASE soko_bench_reports to free it).
 */
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { ClickHouseClient } from "@clickhouse/client";
import knex, { type Knex } from "knex";
import { LOCAL_PORTS, LOCAL_URLS } from "~/utils/local-services";
import { buildApp, root } from "./build";
import { commitOf, loadAverage, machine, markdownTable, median, nodePidOf, plainTable, rssMbOf, spread, appendBenchmarkRun, type Spread } from "./lib/bench";
import { DATA_VERSION, DAYS, ROWS, SESSIONS, TOTAL_ROWS, generatorSql } from "./lib/bench-reports-data";
import { startAppServer, type AppServer } from "./lib/servers";
import { ensurePackages } from "./services";

const DATABASE = "soko_bench_reports";
const HEADING = "## Reports: `npm run bench:reports`";
const TARGET = { reportMs: 200, exportRatio: 2, exportRssMb: 50 };
const RAW_RUNS = 3;
/** Every report runs at least this often, however slow. */
const MIN_RUNS = 3;
const EXPORT_RUNS = 3;
const EXPORT_ROWS = 1_000_000;

type Options = {
  rebuild: boolean;
  rebuildDerived: boolean;
  warmups: number;
  runs: number;
  budgetS: number;
  eventsRuns: number;
  exportBench: boolean;
  build: boolean;
  docs: boolean;
};

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      rebuild: { type: "boolean", default: false },
      "rebuild-derived": { type: "boolean", default: false },
      "events-runs": { type: "string", default: "3" },
      warmups: { type: "string", default: "5" },
      runs: { type: "string", default: "20" },
      budget: { type: "string", default: "8" },
      "no-export": { type: "boolean", default: false },
      build: { type: "boolean", default: false },
      "no-docs": { type: "boolean", default: false },
    },
  });
  const whole = (name: string, raw: string, min: number) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number ≥ ${min}, got "${raw}"`);
    return n;
  };
  return {
    rebuild: values.rebuild,
    rebuildDerived: values["rebuild-derived"],
    eventsRuns: whole("events-runs", values["events-runs"], 0),
    warmups: whole("warmups", values.warmups, 0),
    runs: whole("runs", values.runs, 1),
    budgetS: whole("budget", values.budget, 1),
    exportBench: !values["no-export"],
    build: values.build,
    docs: !values["no-docs"],
  };
}

const urls = {
  DATABASE_URL: process.env.DATABASE_URL ?? LOCAL_URLS.DATABASE_URL,
  REDIS_URL: process.env.REDIS_URL ?? LOCAL_URLS.REDIS_URL,
  CLICKHOUSE_URL: process.env.CLICKHOUSE_URL ?? LOCAL_URLS.CLICKHOUSE_URL,
};
const CLICKHOUSE_TCP_PORT = Number(process.env.CLICKHOUSE_TCP_PORT ?? LOCAL_PORTS.clickhouseTcp);

// ---------------------------------------------------------------------------------------------------------
// clickhouse-client, the embedded server's native client.

function clickhouseClientBinary(): string {
  ensurePackages(["clickhouse-client"]);
  for (const candidate of ["/usr/bin/clickhouse-client", "/usr/local/bin/clickhouse-client"]) if (fs.existsSync(candidate)) return candidate;
  if (fs.existsSync("/usr/bin/clickhouse")) return "/usr/bin/clickhouse";
  throw new Error("clickhouse-client is not installed (Debian: apt-get install clickhouse-client, the server's version)");
}

function clientArgs(bin: string, args: string[]): string[] {
  return [...(bin.endsWith("/clickhouse") ? ["client"] : []), "--host", "127.0.0.1", "--port", String(CLICKHOUSE_TCP_PORT), "--database", DATABASE, ...args];
}

/** The query's time as `clickhouse-client --time` reports it (ms), its answer sent to /dev/null. */
function rawTimeMs(bin: string, sql: string): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile(bin, clientArgs(bin, ["--time", "--query", `${sql}\nFORMAT JSONEachRow`]), { maxBuffer: 256 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (error) return reject(new Error(`clickhouse-client failed: ${stderr || error.message}`));
      const seconds = Number(stderr.trim().split("\n").at(-1));
      if (!Number.isFinite(seconds)) return reject(new Error(`clickhouse-client --time printed ${JSON.stringify(stderr)}`));
      resolve(seconds * 1000);
    });
  });
}

/** Wall time (ms) of `clickhouse-client --query "<sql> FORMAT CSVWithNames"` writing to a file, and the file's bytes. */
function rawCsv(bin: string, sql: string, file: string): Promise<{ ms: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const out = fs.openSync(file, "w");
    const started = performance.now();
    const child = spawn(bin, clientArgs(bin, ["--query", `${sql}\nFORMAT CSVWithNames`]), { stdio: ["ignore", out, "pipe"] });
    let stderr = "";
    child.stderr?.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - started;
      fs.closeSync(out);
      if (code !== 0) return reject(new Error(`clickhouse-client failed (${code}): ${stderr}`));
      resolve({ ms, bytes: fs.statSync(file).size });
    });
  });
}

// ---------------------------------------------------------------------------------------------------------
// The data set.

/** The end of the data's window (Unix seconds), or null when the database lacks this version's full data. */
async function existingData(client: ClickHouseClient): Promise<number | null> {
  try {
    const known = await client.query({
      query: `SELECT count() AS n FROM system.tables WHERE database = '${DATABASE}' AND name = 'bench_meta'`,
      format: "JSONEachRow",
    });
    if (Number((await known.json<{ n: number }>())[0]?.n) !== 1) return null;
    const rs = await client.query({ query: `SELECT version, end_time, rows FROM ${DATABASE}.bench_meta ORDER BY created DESC LIMIT 1`, format: "JSONEachRow" });
    const [meta] = await rs.json<{ version: number; end_time: number; rows: number }>();
    if (!meta || Number(meta.version) !== DATA_VERSION || Number(meta.rows) !== TOTAL_ROWS) return null;
    const counted = await client.query({
      query: `SELECT (SELECT count() FROM ${DATABASE}.sessions) + (SELECT count() FROM ${DATABASE}.pageviews) + (SELECT count() FROM ${DATABASE}.actions)
              + (SELECT count() FROM ${DATABASE}.conversions) + (SELECT count() FROM ${DATABASE}.user_actions) + (SELECT count() FROM ${DATABASE}.errors) AS n`,
      format: "JSONEachRow",
    });
    const [counts] = await counted.json<{ n: number }>();
    return Number(counts?.n) === TOTAL_ROWS ? Number(meta.end_time) : null;
  } catch {
    return null;
  }
}

async function loadData(
  client: ClickHouseClient,
  options: { url: string; database: string },
  migrate: (o: { url: string; database: string }) => Promise<unknown>,
): Promise<number> {
  await client.command({ query: `DROP DATABASE IF EXISTS ${DATABASE}` });
  await migrate(options);
  // The window's end: today's UTC midnight, so whole days (the export's custom periods) hold whole data.
  const end = Math.floor(Date.now() / 86_400_000) * 86_400;
  const started = performance.now();
  for (const { table, sql } of generatorSql(DATABASE, end)) {
    const t = performance.now();
    await client.command({ query: sql, clickhouse_settings: { max_threads: 1 } as never });
    console.log(`  ${table}: ${ROWS[table as keyof typeof ROWS].toLocaleString("en-US")} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  for (const table of Object.keys(ROWS)) {
    const t = performance.now();
    await client.command({ query: `OPTIMIZE TABLE ${DATABASE}.${table} FINAL` });
    console.log(`  OPTIMIZE ${table} FINAL: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  await client.command({
    query: `CREATE TABLE ${DATABASE}.bench_meta (version UInt32, end_time UInt32, rows UInt64, created DateTime DEFAULT now()) ENGINE = MergeTree ORDER BY created`,
  });
  await client.command({ query: `INSERT INTO ${DATABASE}.bench_meta (version, end_time, rows) VALUES (${DATA_VERSION}, ${end}, ${TOTAL_ROWS})` });
  console.log(`  loaded ${TOTAL_ROWS.toLocaleString("en-US")} events in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return end;
}

// ---------------------------------------------------------------------------------------------------------
// Reports.

/** A client that notes the SQL of every query it is asked, then asks the real one. */
function recordingClient(client: ClickHouseClient, log: string[]): ClickHouseClient {
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === "query") {
        return (params: { query: string }) => {
          log.push(params.query);
          return target.query(params as never);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

type ReportRun = { name: string; spread: Spread; statements: number; rawMs: number; rawSlowestMs: number };

async function measureReport(
  client: ClickHouseClient,
  bin: string | null,
  name: string,
  run: (c: ClickHouseClient) => Promise<unknown>,
  options: Options,
): Promise<ReportRun> {
  const sql: string[] = [];
  const budgetMs = options.budgetS * 1000;
  const warmStarted = performance.now();
  await run(recordingClient(client, sql)); // also the first warm-up
  // Warm-ups stop early once they have used half the budget (a report of seconds is warm after one).
  for (let i = 1; i < options.warmups && performance.now() - warmStarted < budgetMs / 2; i++) await run(client);
  const times: number[] = [];
  const started = performance.now();
  for (let i = 0; i < options.runs; i++) {
    if (i >= MIN_RUNS && performance.now() - started > budgetMs) break;
    const t = performance.now();
    await run(client);
    times.push(performance.now() - t);
  }
  const raw: number[] = [];
  for (const statement of bin === null ? [] : sql) {
    const each: number[] = [];
    const rawStarted = performance.now();
    while (each.length < RAW_RUNS && (each.length === 0 || performance.now() - rawStarted < budgetMs / 2)) each.push(await rawTimeMs(bin!, statement));
    raw.push(median(each));
  }
  const result = {
    name,
    spread: spread(times),
    statements: sql.length,
    rawMs: bin === null ? Number.NaN : raw.reduce((a, b) => a + b, 0),
    rawSlowestMs: Math.max(...raw),
  };
  console.log(
    `  ${name}: p50 ${result.spread.p50.toFixed(0)} ms, p95 ${result.spread.p95.toFixed(0)} ms (${result.spread.n} runs); raw ${result.rawMs.toFixed(0)} ms over ${sql.length} statement(s)`,
  );
  return result;
}

// ---------------------------------------------------------------------------------------------------------
// The export.

/** How the download asks: plain bytes, or gzip as browsers do (the web process's compression() then gzips). */
const ENCODINGS = ["identity", "gzip"] as const;
type Encoding = (typeof ENCODINGS)[number];
type WebRuns = { ms: number[]; bytes: number; contentEncoding: string; rssBeforeMb: number[]; rssGrowthMb: number[] };
type ExportRun = { rows: number; from: string; to: string; rawMs: number[]; rawBytes: number; web: Record<Encoding, WebRuns> };

/** Whole days from the window's start holding about EXPORT_ROWS page views: [from, to] as YYYY-MM-DD, and the count. */
async function exportDays(client: ClickHouseClient, end: number): Promise<{ from: string; to: string; rows: number }> {
  const rs = await client.query({
    query: `SELECT toUInt32(toStartOfDay(event_time)) AS day, count() AS n FROM ${DATABASE}.pageviews GROUP BY day ORDER BY day`,
    format: "JSONEachRow",
  });
  const days = (await rs.json<{ day: number; n: number }>()).map((d) => ({ day: Number(d.day), n: Number(d.n) })).filter((d) => d.day < end);
  let best = { i: 0, j: 0, rows: 0, off: Infinity };
  for (let i = 0; i < days.length; i++) {
    let rows = 0;
    for (let j = i; j < days.length; j++) {
      rows += days[j]!.n;
      const off = Math.abs(rows - EXPORT_ROWS);
      if (off < best.off) best = { i, j, rows, off };
      if (rows > EXPORT_ROWS) break;
    }
  }
  const ymd = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);
  return { from: ymd(days[best.i]!.day), to: ymd(days[best.j]!.day), rows: best.rows };
}

async function benchExport(client: ClickHouseClient, bin: string, end: number, build: boolean): Promise<ExportRun> {
  const [{ migratePostgres }, { hashToken, SESSION_COOKIE }, { exportSql }, { parsePeriod }, { periodWindow }] = await Promise.all([
    import("./lib/migrate"),
    import("~/models/session.server"),
    import("~/analytics/export.server"),
    import("~/analytics/period"),
    import("~/analytics/reports.server"),
  ]);
  if (build || !fs.existsSync(path.join(root, "build", "server", "index.js"))) {
    console.log("Building (remix vite:build)...");
    if (buildApp() !== 0) throw new Error("the build failed");
  }
  const { from, to, rows } = await exportDays(client, end);
  const pgName = `soko_bench_reports_${randomBytes(4).toString("hex")}`;
  const pgUrl = (database: string) => {
    const url = new URL(urls.DATABASE_URL);
    url.pathname = `/${database}`;
    return url.toString();
  };
  const adminDb = knex({ client: "pg", connection: pgUrl("postgres"), pool: { min: 0, max: 1 } });
  let db: Knex | null = null;
  let web: AppServer | null = null;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "bench-reports-"));
  await adminDb.raw(`CREATE DATABASE ${pgName}`);
  try {
    db = knex({ client: "pg", connection: pgUrl(pgName), pool: { min: 0, max: 2 } });
    await migratePostgres(db);
    const [admin] = await db("users")
      .insert({
        name: "Bench Admin",
        username: "bench_admin",
        email: "bench.admin@example.ug",
        password_hash: null,
        role: "admin",
        status: "active",
        level: "member",
      })
      .returning("id");
    const token = randomBytes(32).toString("base64url");
    await db("sessions").insert({
      id: hashToken(token),
      user_id: Number(admin.id),
      expires_at: new Date(Date.now() + 3_600_000),
      persistent: false,
      user_agent: "bench-reports",
    });

    web = await startAppServer(
      { ...urls, DATABASE_URL: pgUrl(pgName), CLICKHOUSE_DATABASE: DATABASE, QUEUE_PREFIX: `bench_reports_${pgName.slice(-8)}`, SEED_DEMO: "0" },
      { name: "web", host: "127.0.0.1", timeoutMs: 60_000, stopGraceMs: 10_000 },
    );
    const pid = nodePidOf(web);
    const exportUrl = (f: string, t: string) => `${web!.baseUrl}/admin/analytics/export?report=pageviews&range=custom&from=${f}&to=${t}`;
    const download = async (url: string, encoding: Encoding) => {
      const res = await fetch(url, { headers: { cookie: `${SESSION_COOKIE}=${token}`, "accept-encoding": encoding }, redirect: "manual" });
      if (res.status !== 200 || !res.body) throw new Error(`export answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      let bytes = 0;
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return { bytes, contentEncoding: res.headers.get("content-encoding") ?? "none" };
        bytes += value.byteLength;
      }
    };
    // Warm-up: one small export loads the route's code and the connections.
    await download(exportUrl(from, from), "identity");

    const params = new URLSearchParams({ range: "custom", from, to });
    const parsed = parsePeriod(params);
    if (!parsed.ok || parsed.period.kind !== "custom") throw new Error(`bad export period ${from}..${to}`);
    const sql = exportSql("pageviews", periodWindow(parsed.period.window));

    const empty = (): WebRuns => ({ ms: [], bytes: 0, contentEncoding: "", rssBeforeMb: [], rssGrowthMb: [] });
    const result: ExportRun = { rows, from, to, rawMs: [], rawBytes: 0, web: { identity: empty(), gzip: empty() } };
    for (let i = 0; i < EXPORT_RUNS; i++) {
      const raw = await rawCsv(bin, sql, path.join(tmp, "raw.csv"));
      result.rawMs.push(raw.ms);
      result.rawBytes = raw.bytes;
      console.log(`  export run ${i + 1}: raw ${(raw.ms / 1000).toFixed(2)} s (${(raw.bytes / 1e6).toFixed(0)} MB)`);
    }
    // Plain first, then gzip: resident memory that grows in one run stays (the process keeps its pages), so
    // the order shows which way of asking makes it grow.
    for (const encoding of ENCODINGS) {
      const runs = result.web[encoding];
      for (let i = 0; i < EXPORT_RUNS; i++) {
        const before = rssMbOf(pid) ?? Number.NaN;
        let highest = before;
        const sampler = setInterval(() => {
          const now = rssMbOf(pid);
          if (now !== null && now > highest) highest = now;
        }, 20);
        const t = performance.now();
        const got = await download(exportUrl(from, to), encoding);
        runs.ms.push(performance.now() - t);
        clearInterval(sampler);
        runs.bytes = got.bytes;
        runs.contentEncoding = got.contentEncoding;
        runs.rssBeforeMb.push(before);
        runs.rssGrowthMb.push(highest - before);
        console.log(
          `  web, Accept-Encoding ${encoding}, run ${i + 1}: ${(runs.ms.at(-1)! / 1000).toFixed(2)} s (${(got.bytes / 1e6).toFixed(0)} MB, Content-Encoding ${got.contentEncoding}), RSS ${before.toFixed(0)} MB + ${(highest - before).toFixed(1)} MB`,
        );
      }
    }
    return result;
  } finally {
    await web?.stop();
    await db?.destroy();
    await adminDb.raw(`DROP DATABASE IF EXISTS ${pgName} WITH (FORCE)`).catch(() => {});
    await adminDb.destroy();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------

async function main() {
  const options = readOptions();
  process.env.CLICKHOUSE_DATABASE = DATABASE;
  const [{ migrateClickHouse, splitStatements }, { clickHouseOptions, createClickHouse }, { parseEnv }, reports, insights, rollups, rollupSources] =
    await Promise.all([
      import("./lib/migrate"),
      import("~/analytics/clickhouse.server"),
      import("~/server/env.server"),
      import("~/analytics/reports.server"),
      import("~/analytics/insights.server"),
      import("~/analytics/rollups.server"),
      import("~/analytics/rollup-sources.server"),
    ]);
  const chOptions = clickHouseOptions(parseEnv({ ...process.env, ...urls }), DATABASE);
  // Loading 10M events, OPTIMIZE … FINAL and building the derived tables take minutes on a busy machine.
  const admin = createClickHouse({ ...chOptions, database: "default" }, { requestTimeoutMs: 30 * 60_000 });
  const builder = createClickHouse(chOptions, { requestTimeoutMs: 30 * 60_000 });
  const client = createClickHouse(chOptions);
  const bin = clickhouseClientBinary();
  const facts = machine();
  const load = loadAverage();
  const commit = commitOf();
  const runAt = new Date().toISOString().slice(0, 16).replace("T", " ");
  try {
    const version = (await (await admin.query({ query: "SELECT version() AS v", format: "JSONEachRow" })).json<{ v: string }>())[0]!.v;
    console.log(`Reports benchmark: ClickHouse ${version}, database ${DATABASE}; commit ${commit}; load average ${load}`);
    let end = options.rebuild ? null : await existingData(admin);
    if (end === null) {
      console.log(`Loading ${TOTAL_ROWS.toLocaleString("en-US")} generated events (${DAYS} days, ${SESSIONS.toLocaleString("en-US")} sessions)...`);
      end = await loadData(admin, chOptions, migrateClickHouse);
    } else {
      console.log(`Reusing the ${TOTAL_ROWS.toLocaleString("en-US")} events already in ${DATABASE} (--rebuild to make them again)`);
      // Kept data takes the schema's later migrations as a deployed database would (timed: 004 copies every
      // event table).
      const started = performance.now();
      const applied = await migrateClickHouse(chOptions);
      if (applied.length) console.log(`  migrated the kept data: ${applied.join(", ")} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    const now = new Date(end * 1000);

    // The derived tables, as the worker builds them (kept with the data; --rebuild-derived makes them again).
    if (options.rebuildDerived) {
      for (const table of ["session_hours", "session_days", "page_days", "page_sessions", "page_hours", "click_days", "rollup_builds"])
        await admin.command({ query: `DROP TABLE IF EXISTS ${DATABASE}.${table}` });
      // The derived tables' migrations, in order (005 makes click_days again with the heatmap's cells, 006 adds
      // page_hours, 007 session_days, 008 page_days again and page_sessions).
      for (const file of ["003_rollups.sql", "005_click_cells.sql", "006_page_hours.sql", "007_session_days.sql", "008_page_sessions.sql"]) {
        const sql = fs.readFileSync(path.join(root, "migrations", "clickhouse", file), "utf8").replaceAll("{database}", DATABASE);
        for (const statement of splitStatements(sql)) await admin.command({ query: statement });
      }
    }
    const buildStarted = performance.now();
    // As the worker leaves them when a report runs: its last round (every minute) half a minute before.
    const round = await rollups.buildRollups(builder, { now: new Date(now.getTime() - 30_000) });
    const derived = { days: round.built.length, seconds: (performance.now() - buildStarted) / 1000, dayMs: spread(round.built.map((b) => b.ms)) };
    console.log(
      derived.days
        ? `Built the derived tables: ${derived.days} days in ${derived.seconds.toFixed(1)} s (a day: p50 ${derived.dayMs.p50.toFixed(0)} ms, max ${derived.dayMs.max.toFixed(0)} ms)`
        : "The derived tables were built by an earlier run (--rebuild-derived to build them again)",
    );

    // A busy member (most events) for the journey and member analytics, and the most clicked page for the heatmap.
    const [busy] = await (
      await client.query({
        query: `SELECT user_id, count() AS n FROM pageviews WHERE user_id > 0 GROUP BY user_id ORDER BY n DESC LIMIT 1`,
        format: "JSONEachRow",
      })
    ).json<{ user_id: number }>();
    const [clicked] = await insights.clickedPages(client, "30d", { now, limit: 1 });
    const userId = Number(busy!.user_id);
    const page = clicked!.page;

    const list: [string, (c: ClickHouseClient) => Promise<unknown>][] = [
      ["Page views (30d)", (c) => reports.pageViews(c, "30d", { now })],
      ["User activity / sessions (30d)", (c) => reports.userActivity(c, "30d", { now })],
      ["Countries (30d)", (c) => reports.countries(c, "30d", { now })],
      ["Active users (5 min)", (c) => reports.activeUsers(c, { now })],
      ["Conversions (30d)", (c) => reports.conversions(c, "30d", { now })],
      ["Browsers (30d)", (c) => reports.browsers(c, "30d", { now })],
      ["Referrers (30d)", (c) => reports.referrers(c, "30d", { now })],
      ["Traffic chart (30d)", (c) => reports.traffic(c, "30d", { now })],
      ["Real time (5 min)", (c) => reports.realTime(c, { now })],
      [`Heatmap ${page} (30d)`, (c) => insights.heatmap(c, page, "30d", { now })],
      ["Heatmap page list (30d)", (c) => insights.clickedPages(c, "30d", { now })],
      ["Funnel (30d)", (c) => insights.conversionFunnel(c, "30d", { now })],
      [`Journey of member ${userId} (30d)`, (c) => insights.userJourney(c, userId, "30d", { now })],
      [`Member ${userId} analytics (30d)`, (c) => insights.memberAnalytics(c, userId, "30d", { now })],
      ["Session report: activity, countries, browsers (30d)", (c) => reports.sessionReport(c, "30d", { now })],
      // app/admin/analytics.tsx's loader: every report of the screen at once.
      [
        "Analytics screen, all of it (30d)",
        (c) =>
          Promise.all([
            reports.pageViews(c, "30d", { now }),
            reports.sessionReport(c, "30d", { now }),
            reports.referrers(c, "30d", { now }),
            reports.conversions(c, "30d", { now }),
            reports.traffic(c, "30d", { now }),
            reports.realTime(c, { now }),
          ]),
      ],
      // app/admin/dashboard.tsx's readBehaviour (not exported): the same two calls at once.
      ["Dashboard, ClickHouse part (7d)", (c) => Promise.all([reports.activeUsers(c, { now }), reports.sessionReport(c, "7d", { now })])],
    ];
    console.log(
      `\nReports (${options.warmups} warm-ups, up to ${options.runs} runs or ${options.budgetS} s each; raw: clickhouse-client --time, median of up to ${RAW_RUNS}):`,
    );
    const results: ReportRun[] = [];
    const fromEvents: (ReportRun | null)[] = [];
    for (const [name, run] of list) {
      results.push(await measureReport(client, bin, name, run, options));
      if (options.eventsRuns > 0) {
        // The comparison may not fit at all (grouping a month of events by id can pass ClickHouse's memory
        // limit per query): it is then shown as failed, and the run goes on.
        const before = await measureReport(rollupSources.eventsOnly(client), null, `${name}, events only`, run, {
          ...options,
          warmups: 1,
          runs: options.eventsRuns,
        }).catch((error: Error) => {
          console.log(`  ${name}, events only: failed (${error.message.split("\n")[0]!.slice(0, 160)})`);
          return null;
        });
        fromEvents.push(before);
      }
    }

    let exported: ExportRun | null = null;
    if (options.exportBench) {
      console.log(`\nExport (${EXPORT_RUNS} runs):`);
      exported = await benchExport(client, bin, end, options.build);
    }

    const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : "–");
    const rows = [
      ["Report", "runs", "p50 ms", "p95 ms", "statements", "raw ms (sum)", "events only: p50 ms", "events only ÷ derived (p50)", "≤ 200 ms?"],
      ...results.map((r, i) => {
        const before = fromEvents[i];
        return [
          r.name,
          String(r.spread.n),
          ms(r.spread.p50),
          ms(r.spread.p95),
          String(r.statements),
          ms(r.rawMs),
          before ? ms(before.spread.p50) : options.eventsRuns > 0 ? "failed" : "–",
          before ? `${(before.spread.p50 / r.spread.p50).toFixed(1)}×` : "–",
          r.spread.p95 <= TARGET.reportMs ? "yes" : `no (${(r.spread.p95 / TARGET.reportMs).toFixed(1)}×)`,
        ];
      }),
    ];
    console.log("");
    for (const line of plainTable(rows)) console.log(line);
    let exportLines: string[] = [];
    if (exported) {
      const raw = median(exported.rawMs);
      exportLines = [
        `- Page views of ${exported.from} to ${exported.to} (a custom period of whole days): ${exported.rows.toLocaleString("en-US")} rows, ${(exported.rawBytes / 1e6).toFixed(0)} MB of CSV; medians of ${EXPORT_RUNS} runs each; the web process is fresh but for one small warm-up export.`,
        `- Raw \`clickhouse-client … FORMAT CSVWithNames\` to a file: ${(raw / 1000).toFixed(2)} s.`,
      ];
      for (const encoding of ENCODINGS) {
        const w = exported.web[encoding];
        const webMs = median(w.ms);
        const ratio = webMs / raw;
        const growth = Math.max(...w.rssGrowthMb);
        exportLines.push(
          `- GET /admin/analytics/export with \`Accept-Encoding: ${encoding}\` (answered with Content-Encoding ${w.contentEncoding}), read by Node's fetch: ${(webMs / 1000).toFixed(2)} s → **${ratio.toFixed(2)}×** raw (target ≤ ${TARGET.exportRatio}×: ${ratio <= TARGET.exportRatio ? "met" : "missed"}); web process resident memory ${w.rssBeforeMb.map((m) => m.toFixed(0)).join(" / ")} MB before each run, growing at most **+${growth.toFixed(1)} MB** during one (target < ${TARGET.exportRssMb} MB: ${growth < TARGET.exportRssMb ? "met" : "missed"}).`,
        );
      }
      console.log("\nExport:");
      for (const line of exportLines) console.log(line);
    }

    if (options.docs) {
      const section = [
        HEADING,
        "",
        `Run ${runAt} UTC. Command: \`npm run bench:reports${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}\` (defaults: ${options.warmups} warm-ups, up to ${options.runs} runs per report or ${options.budgetS} s, at least ${MIN_RUNS}: a slow report's p95 is the highest of few runs). Commit ${commit}; ${facts.cpu}, ${facts.memoryGb} GB, ${facts.os}, Node ${facts.node}; ClickHouse ${version} (the embedded server); load average at the start ${load}, at the end ${loadAverage()} (a machine shared with other work: the figures are upper bounds for an idle one, and vary up to 2× between runs).`,
        "",
        `Data: ${TOTAL_ROWS.toLocaleString("en-US")} generated events in \`${DATABASE}\` (${Object.entries(ROWS)
          .map(([t, n]) => `${t} ${n.toLocaleString("en-US")}`)
          .join(
            ", ",
          )}), ${DAYS} days, ${SESSIONS.toLocaleString("en-US")} sessions (40% bounce), mostly Android phones in Uganda, the marketplace's pages (scripts/lib/bench-reports-data.ts), merged (OPTIMIZE … FINAL). Reports run through our code (reports.server.ts, insights.server.ts) with the window ending at the data's end, so 30d covers all of it; raw = the same SQL statements in \`clickhouse-client --time\`, one after another (our code sends a report's statements in parallel), median of up to ${RAW_RUNS}.`,
        "",
        ...markdownTable(rows),
        "",
        derived.days
          ? `Derived tables (migrations/clickhouse/003_rollups.sql, built by the worker's builder, app/analytics/rollups.server.ts): this run built all ${derived.days} days in ${derived.seconds.toFixed(1)} s, a day in ${derived.dayMs.p50.toFixed(0)} ms (p50; the most ${derived.dayMs.max.toFixed(0)} ms). In production the worker builds each day once its hours end, and today's again as each hour ends.`
          : "Derived tables (migrations/clickhouse/003_rollups.sql): built by an earlier run over the same data (`--rebuild-derived` times the build).",
        "",
        '"Events only" is the same code with nothing counted as built (`eventsOnly`): what a report costs for days the builder has not reached yet (a new install\'s first minutes), measured in the same run after one warm-up. It is slower than the code before the derived tables, whose queries were specialised per report (at 7d9d2c9 on a quieter machine: page views 1.9 s, user activity 2.7 s, the session report 2.6 s, the analytics screen 6.8 s).',
        "",
        "Export (1M-row CSV):",
        "",
        ...(exportLines.length ? exportLines : ["- not run (--no-export)"]),
        "",
        "Reading the figures:",
        "",
        `- ${results.filter((r) => r.spread.p95 <= TARGET.reportMs).length} of ${results.length} reports are within 200 ms (p95) at 10M events${
          results.some((r) => r.spread.p95 > TARGET.reportMs)
            ? `; over it: ${results
                .filter((r) => r.spread.p95 > TARGET.reportMs)
                .map((r) => `${r.name} (${r.spread.p95.toFixed(0)} ms)`)
                .join(", ")}`
            : ""
        }.`,
        "- A range's window starts on a whole hour (ADR 018), and the builder has built up to a few minutes before the report (here: its last round half a minute before `now`, built to the whole minute two minutes before that), so a report reads its window from the derived tables and only its last three minutes from the events (for clicks, the rest of the window's first day). Sessions held whole by one build (session_days, migration 007) are read as rows; the rest (crossing a day or the window's edge, or with events after the build) are put together from their pieces, in a second statement run beside the first (the confined sessions that cannot be whole are looked up first, once, and given to both as a list). A page's unique views add each build's count of its confined sessions and merge the others' `uniq` states (migration 008). Active users and real time read the events of their last minutes, as before.",
        "- The export is ClickHouse's own CSV passed through: plain, or ClickHouse's own gzip (level 1) when the download asks for gzip, as browsers do; the web process neither inflates nor compresses it.",
        "",
      ].join("\n");
      const file = appendBenchmarkRun("reports", section);
      console.log(`\nAppended this run to ${path.relative(root, file)}`);
    }
  } finally {
    await client.close();
    await builder.close();
    await admin.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
