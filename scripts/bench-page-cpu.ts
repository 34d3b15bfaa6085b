/**
 * Web CPU per page: how much CPU time the web process spends on one page, with the
 * anonymous page cache (ADR 019) on and off, for a visitor and for a signed-in member.
 *
 *   npx tsx scripts/bench-page-cpu.ts [--database soko] [--duration 3] [--rounds 6] [--connections 20] [--paths /terms,/browse,/gig/1]
 *                                     [--warmup 4] [--baseline <checkout>] [--language en|lg|sw] [--ab-only] [--no-docs]
 *
 * Runs two production servers (the built app, as bench:catalog does) on one database, PAGE_CACHE=on and
 * PAGE_CACHE=off, and signs a member in (a session row for the first active client). For each path and
 * visitor it alternates between the servers, round by round: autocannon drives one for `duration` seconds
 * (20 connections, `Accept-Encoding: gzip`, a browser's Accept and user agent) while the server's own CPU
 * time is read from /proc/<pid>/stat before and after; CPU per request = CPU time ÷ requests answered. It
 * prints each cell's median over the rounds (and its range), with the load average: on a shared machine the
 * figures move with what else runs, so compare only within one run. The targets (docs/benchmarks.md): ≤ 1.5 ms
 * for /terms, ≤ 3 ms for /browse and a gig page. What it printed is appended to docs/benchmarks/history/page-cpu.md
 * unless --no-docs.
 *
 * `--baseline <checkout>` (another checkout of Soko, built there: `npm run build`) also runs that checkout's
 * server (compiled, or `tsx server.ts` for a checkout from before ADR 020, as production ran it then) with the
 * page cache off and compares rendered pages (a visitor's and the member's) A/B: in each round
 * both servers are driven at the same time, half the connections each, so whatever else the machine runs
 * falls on both alike; it prints each one's median and the median of the rounds' ratios. Every server is first
 * warmed up on every path, as a visitor and as the member, for `--warmup` seconds each, and this checkout's arm of
 * the A/B is a server of its own that serves nothing else, as the baseline's. `--baseline .` (this checkout
 * against itself) shows what is left of the arrangement's own bias: ratios near 1.
 *
 * `--language lg` asks every page in that language (Accept-Language, as a phone set to Luganda does; ADR 047):
 * with `--baseline` at a checkout from before the languages, the A/B then compares a translated page with the
 * baseline's English one, the budget being ≤ 1.10. `--ab-only` measures only the A/B (no page-cache cells).
 */
import fs from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import knex from "knex";
import { createSession } from "~/models/session.server";
import { LOCAL_URLS } from "~/utils/local-services";
import { appendPrintedRun, keepConsole } from "./lib/bench";
import { compiledProcess, freePort, startAppServer, startChild, waitUntil, type AppServer } from "./lib/servers";

const { values } = parseArgs({
  options: {
    database: { type: "string", default: "soko" },
    duration: { type: "string", default: "3" },
    warmup: { type: "string", default: "4" },
    rounds: { type: "string", default: "6" },
    connections: { type: "string", default: "20" },
    paths: { type: "string" },
    baseline: { type: "string" },
    language: { type: "string", default: "en" },
    "ab-only": { type: "boolean", default: false },
    "no-docs": { type: "boolean", default: false },
  },
});
const printed = keepConsole();
const durationS = Number(values.duration);
const warmupS = Number(values.warmup);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
if (!(durationS > 0 && warmupS > 0 && rounds > 0 && connections > 0))
  throw new Error("--duration, --warmup, --rounds and --connections must be positive numbers");
if (!["en", "lg", "sw"].includes(values.language)) throw new Error(`--language must be en, lg or sw, got "${values.language}"`);
if (!/^[a-z_][a-z0-9_]{0,62}$/.test(values.database)) throw new Error(`--database must be a plain lower-case name, got "${values.database}"`);

const baseUrl = new URL(process.env.DATABASE_URL ?? LOCAL_URLS.DATABASE_URL);
baseUrl.pathname = `/${values.database}`;
const databaseUrl = baseUrl.toString();
const BROWSER = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";

/** utime + stime of a process, in microseconds. */
function cpuMicros(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // After "pid (comm) ", utime and stime are the 12th and 13th fields (clock ticks, 100 a second on Linux).
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100;
}

async function drive(url: string, cookie: string | null, seconds: number, conns = connections) {
  const result = await autocannon({
    url,
    connections: conns,
    duration: seconds,
    headers: {
      Accept: "text/html",
      "Accept-Encoding": "gzip",
      "Accept-Language": values.language,
      "User-Agent": BROWSER,
      ...(cookie ? { Cookie: cookie } : {}),
    },
  });
  return { requests: result.requests.total, non2xx: result.non2xx, p95: result.latency.p97_5 };
}

async function measure(server: AppServer, path: string, cookie: string | null, conns = connections) {
  const pid = server.child.pid!;
  const before = cpuMicros(pid);
  const run = await drive(`${server.baseUrl}${path}`, cookie, durationS, conns);
  const micros = cpuMicros(pid) - before;
  return { microsPerRequest: run.requests ? micros / run.requests : NaN, ...run };
}

/**
 * Another checkout's web server, as production ran it there, ready once /healthz answers: its compiled server
 * (build/processes/, ADR 020) with our node flags, or, for a checkout from before ADR 020, `server.ts` under tsx
 * with node's defaults, from that checkout's directory. Either way its Remix build must be there (`npm run build`).
 */
async function startBaseline(dir: string, env: Record<string, string>): Promise<AppServer> {
  const root = resolve(dir);
  const compiled = join(root, "build", "processes", "server.js");
  const remixBuild = join(root, "build", "server", "index.js");
  if (!fs.existsSync(remixBuild)) throw new Error(`--baseline ${dir} has no ${remixBuild}: run \`npm run build\` there first`);
  const port = await freePort();
  const run = compiledProcess("web", { NODE_ENV: "production", ALLOW_HTTP: "1", HOST: "127.0.0.1", ...env, PORT: String(port) });
  const child = fs.existsSync(compiled)
    ? startChild("baseline", run.command, [...run.args.slice(0, -1), compiled], run.env, { processGroup: true })
    : startChild(
        "baseline (tsx)",
        process.execPath,
        ["--import", "tsx", "server.ts"],
        { ...env, NODE_ENV: "production", ALLOW_HTTP: "1", HOST: "127.0.0.1", PORT: String(port) },
        { processGroup: true, cwd: root },
      );
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitUntil(
      child,
      async () => (await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(2_000) })).status === 200,
      "answer 200 to GET /healthz",
    );
  } catch (error) {
    await child.stop();
    throw error;
  }
  return { ...child, port, baseUrl, adminUrl: baseUrl };
}

const db = knex({ client: "pg", connection: databaseUrl, pool: { min: 0, max: 2 } });
const servers: AppServer[] = [];
try {
  const member = await db("users").where({ role: "client", status: "active" }).orderBy("id").first("id");
  if (!member) throw new Error(`${values.database} has no active client to sign in as: load the demo data (npm start) or pass --database`);
  const { token } = await createSession(db, { userId: Number(member.id), persistent: false });
  const gig = await db("gigs").where({ status: "published" }).orderBy("id").first("id");
  const paths = values.paths?.split(",") ?? ["/terms", "/browse", `/gig/${gig?.id ?? 1}`];

  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.REDIS_URL ?? LOCAL_URLS.REDIS_URL,
    CLICKHOUSE_URL: process.env.CLICKHOUSE_URL ?? LOCAL_URLS.CLICKHOUSE_URL,
    SEED_DEMO: "0",
    QUEUE_PREFIX: `bench_cpu_${process.pid}`,
    CATALOG_RATE_LIMIT: "1000000000",
  };
  const on = await startAppServer({ ...env, PAGE_CACHE: "on" }, { host: "127.0.0.1", processGroup: true, name: "cache on" });
  servers.push(on);
  const off = await startAppServer({ ...env, PAGE_CACHE: "off" }, { host: "127.0.0.1", processGroup: true, name: "cache off" });
  servers.push(off);
  const baseline = values.baseline ? await startBaseline(values.baseline, { ...env, PAGE_CACHE: "off" }) : null;
  if (baseline) servers.push(baseline);
  // The A/B's own arm of this checkout: a server that, like the baseline, serves nothing but the warm-up and the
  // A/B (the cache-off server above has served its own cells by then: an A/A run read up to 0.9 against itself).
  const mine = baseline ? await startAppServer({ ...env, PAGE_CACHE: "off" }, { host: "127.0.0.1", processGroup: true, name: "A/B this" }) : null;
  if (mine) servers.push(mine);
  const loadBefore = os.loadavg();
  console.log(
    `Web CPU per request, pages in ${values.language}, ${connections} connections, ${rounds} rounds of ${durationS} s per cell, alternating; load average ${loadBefore.map((l) => l.toFixed(2)).join(", ")}`,
  );

  const cells = values["ab-only"]
    ? []
    : [
        { name: "anonymous, cache on", server: on, cookie: null },
        { name: "anonymous, cache off", server: off, cookie: null },
        { name: "member, cache on", server: on, cookie: `soko_session=${token}` },
      ];
  // Every server warms up on every path, as a visitor and as the member, before anything is measured: a server
  // measured after others have run (the cache-off one, before the A/B) had its code optimised by then, and the
  // baseline, warmed only for its own turn, came out up to 30% dearer against the very same build (an A/A run).
  for (const path of paths) {
    for (const server of servers) {
      for (const cookie of [null, `soko_session=${token}`]) await drive(`${server.baseUrl}${path}`, cookie, warmupS);
    }
  }
  for (const path of paths) {
    const samples = new Map<string, { micros: number[]; non2xx: number; p95: number[] }>(cells.map((c) => [c.name, { micros: [], non2xx: 0, p95: [] }]));
    for (let round = 0; round < rounds; round++) {
      for (const cell of cells) {
        const m = await measure(cell.server, path, cell.cookie);
        const s = samples.get(cell.name)!;
        s.micros.push(m.microsPerRequest);
        s.p95.push(m.p95);
        s.non2xx += m.non2xx;
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(`\n${path}`);
    for (const [name, s] of samples) {
      const ms = s.micros.map((x) => x / 1000);
      console.log(
        `  ${name.padEnd(22)} ${median(ms).toFixed(2)} ms CPU/request (range ${Math.min(...ms).toFixed(2)}–${Math.max(...ms).toFixed(2)}), latency p97.5 median ${median(s.p95)} ms${s.non2xx ? `, ${s.non2xx} non-2xx` : ""}`,
      );
    }
    if (!baseline) continue;
    // Rendered pages A/B: this checkout's A/B server and the baseline's, driven at the same time.
    const half = Math.max(1, Math.floor(connections / 2));
    for (const [name, cookie] of [
      ["anonymous, rendered", null],
      ["member", `soko_session=${token}`],
    ] as const) {
      const ours: number[] = [];
      const theirs: number[] = [];
      let non2xx = 0;
      await Promise.all([drive(`${mine!.baseUrl}${path}`, cookie, 1, half), drive(`${baseline.baseUrl}${path}`, cookie, 1, half)]); // warm-up
      for (let round = 0; round < rounds; round++) {
        const [a, b] = await Promise.all([measure(mine!, path, cookie, half), measure(baseline, path, cookie, half)]);
        ours.push(a.microsPerRequest / 1000);
        theirs.push(b.microsPerRequest / 1000);
        non2xx += a.non2xx + b.non2xx;
      }
      const ratio = median(ours.map((x, i) => x / theirs[i]!));
      console.log(
        `  A/B ${name.padEnd(18)} this ${median(ours).toFixed(2)} ms, baseline ${median(theirs).toFixed(2)} ms CPU/request; this ÷ baseline ${ratio.toFixed(2)} (median of ${rounds} rounds side by side)${non2xx ? `, ${non2xx} non-2xx` : ""}`,
      );
    }
  }
  if (baseline) console.log(`\nBaseline: ${resolve(values.baseline!)}`);
  console.log(
    `\nLoad average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
  );
  if (!values["no-docs"]) {
    const file = appendPrintedRun("page-cpu", "Web CPU per page: `scripts/bench-page-cpu.ts`", "npx tsx scripts/bench-page-cpu.ts", printed());
    console.log(`Appended this run to ${file}`);
  }
} finally {
  await Promise.all(servers.map((s) => s.stop()));
  await db.destroy();
}
