/**
 * JSON API benchmark: how fast are the app's busiest calls under /api/v1 at 100,000 gigs, and how much of that
 * time is the model call or operation behind each?
 *
 *   npm run bench:api [-- --duration 10] [--warmup 2] [--connections 20] [--rate 200] [--pairs 300] [--runs 1]
 *                     [--visitor] [--no-cache] [--build] [--keep-data] [--database soko_bench] [--no-docs]
 *
 * 1. The database of bench:catalog (scripts/lib/catalog-data.ts): soko_bench with 100,000 published gigs,
 *    (re)loaded unless --keep-data finds it complete. --pairs clients and as many freelancers get an app token
 *    each (createAppSession, as POST /auth/login makes them), and each pair a conversation (startConversation,
 *    reused when the pair already has one). The tokens are deleted on the way out; messages and conversations
 *    stay in soko_bench.
 * 2. The production build (built when missing or with --build) as a child process against soko_bench, with the
 *    API's per-token and per-address limits lifted (all the load comes from one address and a few tokens). The
 *    catalog calls are shared reads, answered from the web process's micro-cache (ADR 042); --no-cache runs the
 *    server with PAGE_CACHE=off, so that every call runs its handler.
 * 3. Each GET with autocannon, --connections connections, --warmup s then --duration s measured, each request
 *    with one of the members' tokens in turn (--visitor: none): GET /api/v1/gigs with filters, GET
 *    /api/v1/gigs/{id} over 200 gigs, GET /api/v1/gigs/search?q=logo+design; right after each, its bare model
 *    call as the handler makes it (listCatalog, getGigPageWithReviews) from --connections workers on a pool of
 *    this process. Target: p95 ≤ 20 ms and ≤ 2× the bare call's p95.
 * 4. POST /api/v1/messages/send at --rate messages a second (open loop: sends go out on schedule whether or
 *    not earlier ones were answered, over at most --connections keep-alive connections), from every member of
 *    every pair in turn, each message with a clientId of its own; then the bare operation (sendMessage, called
 *    in this process with the same members) at the same rate. Target: p99 ≤ 100 ms. Afterwards every
 *    acknowledged clientId is looked up: each must be stored exactly once.
 * 5. With --runs N, steps 3 and 4 N times in a row; the report shows each figure's median over the runs and,
 *    per call, its worst run (the highest p95, or p99 for the send).
 * 6. Prints the tables and appends them to docs/benchmarks/history/api.md unless --no-docs.
 *
 * It is a report, not a test: missed targets still exit 0; errors (an answer that is not the data asked for,
 * non-2xx answers, failed sends, an acknowledged message not stored exactly once) exit 1.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import type autocannon from "autocannon";
import type { Knex } from "knex";
import type { Actor } from "~/operations/core.server";
import { appendBenchmarkRun, commitOf, loadAverage, machine, markdownTable, median, plainTable } from "./lib/bench";
import { BENCH_DB, CLIENTS, benchEnv, databaseUrl, prepareDatabase } from "./lib/catalog-data";
import { ensureBuild, measureEndpoint, measureQuery, runAutocannon, startServer, summarise, type EndpointStats, type Stats, type WebServer } from "./lib/drive";

const DOCS_HEADING = "## API: `npm run bench:api`";
const TARGET = { p95Ms: 20, ratio: 2, sendP99Ms: 100 };
const DETAIL_IDS = 200;
/** The page size of the API's lists when the app asks for none (PageQuery's `limit`). */
const API_PAGE = 20;
/** What the app's device name says on the benchmark's tokens, so a run deletes its own (and an interrupted run's). */
const DEVICE = "bench:api";
const SEND_TIMEOUT_MS = 30_000;

// ---------------------------------------------------------------------------------------------------------
// Options and environment.

type Options = {
  durationS: number;
  warmupS: number;
  connections: number;
  rate: number;
  pairs: number;
  runs: number;
  /** GETs without a token, as a visitor's app sends them. */
  visitor: boolean;
  /** The server with PAGE_CACHE=off: every GET runs its handler. */
  cache: boolean;
  build: boolean;
  keepData: boolean;
  database: string;
  docs: boolean;
};

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "10" },
      warmup: { type: "string", default: "2" },
      connections: { type: "string", default: "20" },
      rate: { type: "string", default: "200" },
      pairs: { type: "string", default: String(CLIENTS) },
      runs: { type: "string", default: "1" },
      visitor: { type: "boolean", default: false },
      "no-cache": { type: "boolean", default: false },
      build: { type: "boolean", default: false },
      "keep-data": { type: "boolean", default: false },
      database: { type: "string", default: BENCH_DB },
      "no-docs": { type: "boolean", default: false },
    },
  });
  const positive = (name: string, raw: string) => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got "${raw}"`);
    return n;
  };
  const pairs = Math.round(positive("pairs", values.pairs));
  if (pairs > CLIENTS) throw new Error(`--pairs is at most ${CLIENTS} (the clients the data has)`);
  if (!/^[a-z_][a-z0-9_]{0,53}$/.test(values.database)) throw new Error(`--database must be a plain lower-case name, got "${values.database}"`);
  return {
    durationS: positive("duration", values.duration),
    warmupS: positive("warmup", values.warmup),
    connections: Math.round(positive("connections", values.connections)),
    rate: positive("rate", values.rate),
    pairs,
    runs: Math.round(positive("runs", values.runs)),
    visitor: values.visitor,
    cache: !values["no-cache"],
    build: values.build,
    keepData: values["keep-data"],
    database: values.database,
    docs: !values["no-docs"],
  };
}

/** bench:catalog's environment, with the API's limits per token and per address lifted. */
function apiBenchEnv(url: string): Record<string, string> {
  return { ...benchEnv(url), API_TOKEN_RATE_LIMIT: "1000000000", API_ADDRESS_RATE_LIMIT: "1000000000" };
}

/** App modules read process.env when first used, so they are imported only after it points at the database. */
async function loadApp() {
  const [gigModel, catalogModel, schemas, migrate, db, seed, sessions, messages, redis, limits] = await Promise.all([
    import("~/models/gig.server"),
    import("~/models/catalog-search.server"),
    import("~/schemas/gig"),
    import("./lib/migrate"),
    import("~/server/db.server"),
    import("./lib/seed"),
    import("~/models/session.server"),
    import("~/operations/messages.server"),
    import("~/server/redis.server"),
    import("~/server/rate-limit.server"),
  ]);
  return {
    listCatalog: catalogModel.listCatalog,
    getGigPageWithReviews: gigModel.getGigPageWithReviews,
    refreshCatalog: gigModel.refreshCatalog,
    parseCatalogQuery: schemas.parseCatalogQuery,
    DELIVERY_DAYS: schemas.DELIVERY_DAYS,
    migratePostgres: migrate.migratePostgres,
    createDb: db.createDb,
    CATEGORY_SLUGS: seed.DEMO_CATEGORY_SLUGS,
    createAppSession: sessions.createAppSession,
    getSessionUser: sessions.getSessionUser,
    startConversation: messages.startConversation,
    sendMessage: messages.sendMessage,
    /** What the operations called in this process opened: their pool, Redis and the rate limits' Redis. */
    close: () => Promise.all([db.closeDb(), redis.closeRedis(), limits.closeLimitRedis()]),
  };
}
type App = Awaited<ReturnType<typeof loadApp>>;

// ---------------------------------------------------------------------------------------------------------
// Members: pairs of a client and a freelancer, each with an app token, each pair with a conversation.

type Member = { id: number; token: string; actor: Actor };
type Pair = { members: [Member, Member]; conversationId: string };

async function preparePairs(app: App, db: Knex, count: number): Promise<Pair[]> {
  await db("sessions").where({ kind: "app", device_name: DEVICE }).delete();
  const clients: number[] = (await db("users").where({ role: "client", status: "active" }).orderBy("id").limit(count).pluck("id")).map(Number);
  const sellers: number[] = (await db("users").where({ role: "freelancer", status: "active" }).orderBy("id").limit(count).pluck("id")).map(Number);
  if (clients.length < count || sellers.length < count)
    throw new Error(`the database has ${clients.length} clients and ${sellers.length} freelancers, ${count} of each are needed`);
  const member = async (userId: number): Promise<Member> => {
    const { token } = await app.createAppSession(db, { userId, admin: false, platform: "api", deviceName: DEVICE, userAgent: DEVICE });
    const found = await app.getSessionUser(db, token, "app");
    if (!found) throw new Error(`the new token of member ${userId} does not sign in`);
    const { renewalDue, ...user } = found;
    const client = { ip: "127.0.0.1", userAgent: DEVICE, analyticsConsent: false, tabSessionId: null, platform: "api" as const };
    return { id: userId, token, actor: { kind: "member", user, client } };
  };
  return pool(
    clients.map((c, i) => [c, sellers[i]!] as const),
    10,
    async ([clientId, sellerId]) => {
      const members: [Member, Member] = [await member(clientId), await member(sellerId)];
      const opened = await app.startConversation(members[0].actor, { userId: sellerId });
      if (!opened.ok) throw new Error(`member ${clientId} could not open a conversation with ${sellerId}: ${JSON.stringify(opened)}`);
      return { members, conversationId: opened.value.conversationId };
    },
  );
}

/** Runs `fn` over `items` with at most `limit` at a time. */
async function pool<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// The GET calls, each with its bare model call.

type GetCall = {
  name: string;
  /** The request paths, used in turn (one request each). */
  paths: string[];
  bareName: string;
  bare: () => Promise<unknown>;
  /** Null when the answer at paths[0] is what was asked for; else what is wrong with it. */
  check: (body: unknown) => string | null;
};

const FILTERED = "category=graphics-design&price=100000-500000&sort=rating";
const SEARCH = "q=logo+design";

type Listed = { data?: { items?: { id?: unknown }[]; nextCursor?: unknown } };

async function buildGetCalls(app: App, db: Knex): Promise<GetCall[]> {
  const list = async (name: string, pathname: string, search: string): Promise<GetCall> => {
    // As the API's handler calls it: a page of API_PAGE cards, without the total the pages count.
    const bare = () => app.listCatalog(db, app.parseCatalogQuery(new URLSearchParams(search)), { limit: API_PAGE, count: false });
    const first = (await bare()).gigs[0];
    if (!first) throw new Error(`${name}: the bare call finds no gig`);
    return {
      name,
      paths: [`/api/v1${pathname}?${search}`],
      bareName: "listCatalog",
      bare,
      check: (body) => {
        const items = (body as Listed).data?.items;
        if (!Array.isArray(items) || items.length === 0) return "no data.items";
        return items.some((item) => Number(item.id) === first.id) ? null : `data.items does not have gig ${first.id}, the bare call's first`;
      },
    };
  };

  const sample = await db("gigs").where({ status: "published" }).orderByRaw("md5(id::text)").limit(DETAIL_IDS).pluck("id");
  const ids = sample.map(Number);
  let nextId = 0;
  const detail: GetCall = {
    name: `GET /api/v1/gigs/{id} (${ids.length} gigs)`,
    paths: ids.map((id) => `/api/v1/gigs/${id}`),
    bareName: "getGigPageWithReviews",
    // As the API's handler calls it: the gig with its newest reviews, in one statement.
    bare: async () => {
      const id = ids[nextId++ % ids.length]!;
      if (!(await app.getGigPageWithReviews(db, id, null, 1))) throw new Error(`gig ${id} is not visible`);
    },
    check: (body) => {
      const data = (body as { data?: { id?: unknown } }).data;
      return Number(data?.id) === ids[0] ? null : `data is not gig ${ids[0]}`;
    },
  };

  return [await list(`GET /api/v1/gigs?${FILTERED}`, "/gigs", FILTERED), detail, await list(`GET /api/v1/gigs/search?${SEARCH}`, "/gigs/search", SEARCH)];
}

/** One request to each call before measuring: an answer that is not 200 with the data asked for is an error, not a figure. */
async function checkGet(baseUrl: string, call: GetCall, token: string | null): Promise<string | null> {
  const pathname = call.paths[0]!;
  try {
    const res = await fetch(`${baseUrl}${pathname}`, {
      headers: { accept: "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (res.status !== 200) return `answered ${res.status} ${codeOf(text)}`.trim();
    const wrong = call.check(JSON.parse(text));
    return wrong ? `answered ${wrong}` : null;
  } catch (error) {
    return `failed: ${(error as Error).message}`;
  }
}

/** autocannon options for a call: its paths in turn, and the members' tokens in turn (none for a visitor). */
function getRequests(baseUrl: string, paths: string[], tokens: string[], connections: number, seconds: number): autocannon.Options {
  let next = 0;
  return {
    url: baseUrl,
    connections,
    duration: seconds,
    timeout: 10,
    headers: { accept: "application/json", "accept-encoding": "gzip" },
    requests: [
      {
        method: "GET",
        setupRequest: (request) => {
          const n = next++;
          const headers = tokens.length ? { ...request.headers, authorization: `Bearer ${tokens[n % tokens.length]}` } : request.headers;
          return { ...request, path: paths[n % paths.length]!, headers };
        },
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------------------------
// Sending messages at a fixed rate.

const BODIES = [
  "Hello, is the logo ready for review today?",
  "Yes, I will send the first draft this evening.",
  "Please make the colours a little brighter.",
  "Thank you, the new version looks very good.",
  "Can we add our slogan under the name?",
  "Sure, I have added it. Have a look at the file.",
];

const tag = randomBytes(4).toString("hex");
let sequence = 0;
/** Every clientId answered as stored (warm-ups, the API's and the bare operation's sends): each must be stored once. */
const acknowledged = new Set<string>();
/** Sends answered with something else, or not at all. */
let sendsFailed = 0;

type SendStats = { latency: Stats; sentPerS: number; sent: number; ok: number; errors: Map<string, number> };
type Sender = (pair: Pair, from: Member, clientId: string, body: string) => Promise<string | null>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let stopping = false;

/**
 * `rate` sends a second for `seconds`, on schedule (open loop): the k-th from pair k mod pairs, its members in
 * turn, so every member sends alike (well under the operation's 120 messages a minute per member). `send`
 * answers null when the message was acknowledged, else what went wrong.
 */
async function atRate(pairs: Pair[], rate: number, seconds: number, send: Sender): Promise<SendStats> {
  const total = Math.round(rate * seconds);
  const latencies: number[] = [];
  const errors = new Map<string, number>();
  const pending: Promise<void>[] = [];
  const one = async (k: number) => {
    const pair = pairs[k % pairs.length]!;
    const from = pair.members[Math.floor(k / pairs.length) % 2]!;
    const clientId = `${tag}-${++sequence}`;
    const t0 = performance.now();
    const failed = await send(pair, from, clientId, BODIES[k % BODIES.length]!).catch((error: Error) => error.message || "error");
    if (failed) {
      sendsFailed++;
      errors.set(failed, (errors.get(failed) ?? 0) + 1);
    } else {
      latencies.push(performance.now() - t0);
      acknowledged.add(clientId);
    }
  };
  const start = performance.now();
  let k = 0;
  while (k < total && !stopping) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
    while (k < due) pending.push(one(k++));
    await sleep(Math.max(1, Math.min(20, 500 / rate)));
  }
  const sendSeconds = (performance.now() - start) / 1000;
  await Promise.all(pending);
  return { latency: summarise(latencies, sendSeconds), sentPerS: k / sendSeconds, sent: k, ok: latencies.length, errors };
}

/** POST /api/v1/messages/send over keep-alive connections (at most `connections`), answered null when stored. */
function apiSender(baseUrl: string, connections: number): { send: Sender; close: () => void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const { hostname, port } = new URL(baseUrl);
  const send: Sender = (pair, from, clientId, text) =>
    new Promise((resolve, reject) => {
      const payload = JSON.stringify({ conversationId: pair.conversationId, body: text, clientId });
      const req = http.request(
        {
          agent,
          hostname,
          port,
          method: "POST",
          path: "/api/v1/messages/send",
          timeout: SEND_TIMEOUT_MS,
          headers: {
            accept: "application/json",
            "content-type": "application/json",
            "content-length": Buffer.byteLength(payload),
            authorization: `Bearer ${from.token}`,
          },
        },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (body += chunk));
          res.on("end", () => {
            const status = res.statusCode ?? 0;
            if (status < 200 || status >= 300) return resolve(`${status} ${codeOf(body)}`);
            resolve(answeredFor(body, clientId));
          });
          res.on("error", reject);
        },
      );
      req.on("timeout", () => req.destroy(new Error("timeout")));
      req.on("error", reject);
      req.end(payload);
    });
  return { send, close: () => agent.destroy() };
}

/** The failure code of an error answer (`{ error: { code } }` or `{ code }`), for counting errors by kind. */
function codeOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: string } | string; code?: string };
    return (typeof parsed.error === "object" ? parsed.error?.code : parsed.error) ?? parsed.code ?? "";
  } catch {
    return "";
  }
}

/** Null when a send's answer is its new message (`data.message` with this clientId), else what it is instead. */
function answeredFor(body: string, clientId: string): string | null {
  try {
    const data = (JSON.parse(body) as { data?: { message?: { clientId?: string | null }; duplicate?: boolean } }).data;
    if (data?.message?.clientId !== clientId) return "an answer without the message";
    return data.duplicate ? "answered as a duplicate" : null;
  } catch {
    return "an answer that is not JSON";
  }
}

/** The operation itself, called in this process with the member's actor: no HTTP, no token, no JSON. */
function bareSender(app: App): Sender {
  return async (pair, from, clientId, body) => {
    const sent = await app.sendMessage(from.actor, { conversationId: pair.conversationId, body, clientId });
    return sent.ok ? null : `${sent.error} ${"code" in sent ? String(sent.code) : ""}`.trim();
  };
}

/** Each acknowledged clientId looked up: how many are stored once, not at all, or more than once. */
async function storedOnce(db: Knex) {
  const rows: { client_id: string; n: number | string }[] = await db("messages")
    .where("client_id", "like", `${tag}-%`)
    .groupBy("client_id")
    .select("client_id", db.raw("count(*) AS n"));
  const stored = new Map(rows.map((r) => [r.client_id, Number(r.n)]));
  let once = 0;
  let missing = 0;
  let twice = 0;
  for (const clientId of acknowledged) {
    const n = stored.get(clientId) ?? 0;
    if (n === 1) once++;
    else if (n === 0) missing++;
    else twice++;
  }
  const unanswered = [...stored.keys()].filter((c) => !acknowledged.has(c)).length;
  return { acknowledged: acknowledged.size, once, missing, twice, unanswered, ok: missing === 0 && twice === 0 };
}

// ---------------------------------------------------------------------------------------------------------
// One run: each GET beside its bare call, then the send beside its operation.

type GetRow = { kind: "get"; call: GetCall; api: EndpointStats | null; apiError: string | null; bare: Stats };
type SendRow = { kind: "send"; api: SendStats; bare: SendStats };
type Run = { gets: GetRow[]; send: SendRow };

async function measureRun(run: number, calls: GetCall[], pairs: Pair[], server: WebServer, app: App, options: Options): Promise<Run> {
  const tokens = options.visitor ? [] : pairs.flatMap((p) => p.members.map((m) => m.token));
  const gets: GetRow[] = [];
  if (options.runs > 1) console.log(`\nRun ${run} of ${options.runs}:`);
  for (const call of calls) {
    process.stdout.write(`  ${call.name}: `);
    const apiError = await checkGet(server.baseUrl, call, tokens[0] ?? null);
    const api = apiError ? null : await measureEndpoint((seconds) => getRequests(server.baseUrl, call.paths, tokens, options.connections, seconds), options);
    const bare = await measureQuery(call.bare, options);
    gets.push({ kind: "get", call, api, apiError, bare });
    console.log(`${api ? `API p95 ${ms(api.p95)} ms, ${n(api.perSecond)}/s` : apiError}; ${call.bareName} p95 ${ms(bare.p95)} ms`);
  }

  process.stdout.write(`  POST /api/v1/messages/send at ${n(options.rate)}/s: `);
  const overHttp = apiSender(server.baseUrl, options.connections);
  let api: SendStats;
  try {
    await atRate(pairs, options.rate, options.warmupS, overHttp.send);
    api = await atRate(pairs, options.rate, options.durationS, overHttp.send);
  } finally {
    overHttp.close();
  }
  const bareSend = bareSender(app);
  await atRate(pairs, options.rate, options.warmupS, bareSend);
  const bare = await atRate(pairs, options.rate, options.durationS, bareSend);
  console.log(`API p99 ${ms(api.latency.p99)} ms, ${n(api.sentPerS)}/s, ${api.sent - api.ok} failed; sendMessage p99 ${ms(bare.latency.p99)} ms`);
  return { gets, send: { kind: "send", api, bare } };
}

// ---------------------------------------------------------------------------------------------------------
// The report.

const n = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "–");
const ms = (x: number) => (Number.isFinite(x) ? (x < 10 ? x.toFixed(1) : Math.round(x).toLocaleString("en-US")) : "–");
const triple = (s: Stats) => `${ms(s.p50)} / ${ms(s.p95)} / ${ms(s.p99)}`;
const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(1)}×` : "–");

/** Each figure's median over the runs (counts: their sum). */
function medianStats(list: Stats[]): Stats {
  const m = (k: keyof Stats) => median(list.map((s) => s[k]));
  return { p50: m("p50"), p95: m("p95"), p99: m("p99"), perSecond: m("perSecond"), count: list.reduce((a, s) => a + s.count, 0) };
}

function medianEndpoint(list: EndpointStats[]): EndpointStats {
  const sum = (k: "non2xx" | "errors" | "timeouts") => list.reduce((a, s) => a + s[k], 0);
  return { ...medianStats(list), non2xx: sum("non2xx"), errors: sum("errors"), timeouts: sum("timeouts") };
}

function medianSend(list: SendStats[]): SendStats {
  const errors = new Map<string, number>();
  for (const s of list) for (const [k, v] of s.errors) errors.set(k, (errors.get(k) ?? 0) + v);
  return {
    latency: medianStats(list.map((s) => s.latency)),
    sentPerS: median(list.map((s) => s.sentPerS)),
    sent: list.reduce((a, s) => a + s.sent, 0),
    ok: list.reduce((a, s) => a + s.ok, 0),
    errors,
  };
}

function getVerdict(row: GetRow): string {
  if (!row.api) return `failed: ${row.apiError}`;
  const misses = [
    row.api.p95 > TARGET.p95Ms ? `p95 ${ms(row.api.p95)} ms > ${TARGET.p95Ms} ms` : null,
    row.api.p95 / row.bare.p95 > TARGET.ratio ? `${ratio(row.api.p95, row.bare.p95)} > ${TARGET.ratio}× the bare call` : null,
    row.api.non2xx + row.api.errors > 0 ? `${row.api.non2xx} non-2xx, ${row.api.errors} errors` : null,
  ].filter(Boolean);
  return misses.length ? `missed: ${misses.join("; ")}` : "met";
}

function sendVerdict(row: SendRow, rate: number): string {
  const failed = row.api.sent - row.api.ok;
  const misses = [
    row.api.latency.p99 > TARGET.sendP99Ms ? `p99 ${ms(row.api.latency.p99)} ms > ${TARGET.sendP99Ms} ms` : null,
    row.api.sentPerS < rate * 0.95 ? `${n(row.api.sentPerS)} sent/s < ${n(rate)}/s` : null,
    failed > 0 ? `${n(failed)} failed` : null,
  ].filter(Boolean);
  return misses.length ? `missed: ${misses.join("; ")}` : "met";
}

const errorText = (errors: Map<string, number>) =>
  errors.size
    ? [...errors]
        .map(([k, v]) => `${n(v)} ${k}`)
        .join(", ")
        .slice(0, 200)
    : "0";

function tableRows(gets: GetRow[], send: SendRow, rate: number): string[][] {
  return [
    ["Call", "API p50 / p95 / p99 ms", "API req/s", "Bare call", "Bare p50 / p95 / p99 ms", "Bare calls/s", "API ÷ bare", "Errors", "Target"],
    ...gets.map((row) => [
      row.call.name,
      row.api ? triple(row.api) : "–",
      row.api ? n(row.api.perSecond) : "–",
      row.call.bareName,
      triple(row.bare),
      n(row.bare.perSecond),
      row.api ? `${ratio(row.api.p95, row.bare.p95)} (p95)` : "–",
      row.api ? (row.api.non2xx + row.api.errors ? `${n(row.api.non2xx)} non-2xx, ${n(row.api.errors)} errors` : "0") : "–",
      getVerdict(row),
    ]),
    [
      `POST /api/v1/messages/send at ${n(rate)}/s`,
      triple(send.api.latency),
      n(send.api.sentPerS),
      `sendMessage at ${n(rate)}/s`,
      triple(send.bare.latency),
      n(send.bare.sentPerS),
      `${ratio(send.api.latency.p99, send.bare.latency.p99)} (p99)`,
      send.bare.errors.size ? `${errorText(send.api.errors)}; bare: ${errorText(send.bare.errors)}` : errorText(send.api.errors),
      sendVerdict(send, rate),
    ],
  ];
}

/** The median over the runs of each call, and each call's worst run (highest p95; p99 for the send). */
function summariseRuns(runs: Run[]) {
  const medianGets = runs[0]!.gets.map((first, i) => {
    const each = runs.map((r) => r.gets[i]!);
    const apis = each.map((r) => r.api).filter((a): a is EndpointStats => a !== null);
    return {
      ...first,
      api: apis.length === each.length ? medianEndpoint(apis) : null,
      apiError: each.find((r) => r.apiError)?.apiError ?? null,
      bare: medianStats(each.map((r) => r.bare)),
    };
  });
  const medianSendRow: SendRow = { kind: "send", api: medianSend(runs.map((r) => r.send.api)), bare: medianSend(runs.map((r) => r.send.bare)) };
  const worstGets = runs[0]!.gets.map((_, i) =>
    runs.map((r) => r.gets[i]!).reduce((worst, r) => (!r.api || (worst.api && r.api.p95 > worst.api.p95) ? r : worst)),
  );
  const worstSend = runs.map((r) => r.send).reduce((worst, r) => (r.api.latency.p99 > worst.api.latency.p99 ? r : worst));
  return { medianGets, medianSendRow, worstGets, worstSend };
}

async function main() {
  const options = readOptions();
  const url = databaseUrl(options.database);
  const env = { ...apiBenchEnv(url), PAGE_CACHE: options.cache ? "on" : "off" };
  Object.assign(process.env, env);
  const app = await loadApp();
  const facts = machine();
  const commit = commitOf();

  await prepareDatabase(app, url, options.database, options.keepData);
  const db = app.createDb(url, { min: 0, max: options.connections });
  let server: WebServer | null = null;
  const stopServer = async () => server?.stop();
  const onSignal = () => {
    stopping = true;
    void stopServer().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const { rows: version } = await db.raw<{ rows: { server_version: string }[] }>("SHOW server_version");
    const postgres = version[0]?.server_version ?? "?";
    console.log(`\nMachine: ${facts.cpu}, ${facts.memoryGb} GB, ${facts.os}; Node ${facts.node}; Postgres ${postgres}; commit ${commit}`);
    console.log(
      `Each measurement: ${options.connections} connections/workers, ${options.warmupS} s warm-up, ${options.durationS} s measured; ` +
        `micro-cache ${options.cache ? "on" : "off (PAGE_CACHE=off)"}; ` +
        `sends at ${n(options.rate)}/s from ${options.pairs} pairs; ${options.runs} run${options.runs > 1 ? "s" : ""}.`,
    );
    const loadBefore = loadAverage();
    const [one] = os.loadavg();
    const busy = (one ?? 0) > facts.cores * 0.5;
    console.log(`Load average before measuring: ${loadBefore}${busy ? " (busy: other work is running, figures will be noisy)" : ""}`);

    const started = performance.now();
    const pairs = await preparePairs(app, db, options.pairs);
    console.log(`${pairs.length * 2} members with app tokens, ${pairs.length} conversations, in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const calls = await buildGetCalls(app, db);

    ensureBuild(options.build);
    server = await startServer(env);
    console.log(`Web server (production build) at ${server.baseUrl}; warming it up…`);
    const tokens = options.visitor ? [] : pairs.flatMap((p) => p.members.map((m) => m.token));
    const warmPaths = calls.flatMap((c) => c.paths.slice(0, 20));
    await runAutocannon(getRequests(server.baseUrl, warmPaths, tokens, options.connections, Math.max(10, options.warmupS)), () => {});

    const runs: Run[] = [];
    for (let run = 1; run <= options.runs && !stopping; run++) runs.push(await measureRun(run, calls, pairs, server, app, options));
    const serverOutput = server.output();
    await stopServer();
    server = null;
    const integrity = await storedOnce(db);
    const loadAfter = loadAverage();

    const { medianGets, medianSendRow, worstGets, worstSend } = summariseRuns(runs);
    const medianRows = tableRows(medianGets, medianSendRow, options.rate);
    const worstRows = options.runs > 1 ? tableRows(worstGets, worstSend, options.rate) : null;
    const met = [...medianGets.map(getVerdict), sendVerdict(medianSendRow, options.rate)].filter((v) => v === "met").length;
    const integrityLine =
      `${integrity.ok ? "Every" : "NOT every"} acknowledged message was stored exactly once: ${n(integrity.acknowledged)} acknowledged ` +
      `(warm-ups and the bare operation's included), ${n(integrity.once)} stored once, ${n(integrity.missing)} missing, ${n(integrity.twice)} more than once; ` +
      `${n(integrity.unanswered)} stored whose send was not answered as stored.`;
    const targetLine =
      `${met} of ${medianRows.length - 1} calls met the target (GETs: p95 ≤ ${TARGET.p95Ms} ms and ≤ ${TARGET.ratio}× the bare call's p95; ` +
      `the send: p99 ≤ ${TARGET.sendP99Ms} ms at ${n(options.rate)}/s${options.runs > 1 ? `; medians of ${options.runs} runs` : ""}).`;
    console.log(`\n${options.runs > 1 ? `Median of ${options.runs} runs:\n` : ""}${plainTable(medianRows).join("\n")}`);
    if (worstRows) console.log(`\nWorst run of each call:\n${plainTable(worstRows).join("\n")}`);
    console.log(`\n${targetLine}\n${integrityLine}\nLoad average at the end: ${loadAfter}`);

    const failed = runs.some((r) => r.gets.some((g) => !g.api || g.api.non2xx + g.api.errors > 0)) || sendsFailed > 0 || !integrity.ok;
    if (failed) console.error(`\n--- last lines of the web server's output ---\n${serverOutput.slice(-3000)}`);

    if (options.docs) {
      const args = process.argv.slice(2).join(" ");
      const section = [
        DOCS_HEADING,
        "",
        `Commit ${commit} on ${facts.cpu}, ${facts.memoryGb} GB RAM, ${facts.os}; Node ${facts.node}, Postgres ${postgres}. ` +
          `Load average before: ${loadBefore}; at the end: ${loadAfter}.${busy ? " The machine was busy with other work when it started: the figures are noisy." : ""} ` +
          `Everything on this one machine at once: the web process (the compiled server, as \`npm start\` runs it), Postgres, Redis and the benchmark.`,
        "",
        "```",
        `npm run bench:api${args ? ` -- ${args}` : ""}`,
        "```",
        "",
        `${options.database} with 100,000 published gigs. Each GET with autocannon, ${options.connections} connections, ${options.warmupS} s warm-up and ` +
          `${options.durationS} s measured, ${options.visitor ? "without a token (a visitor)" : `each request with one of ${n(pairs.length * 2)} members' app tokens in turn`}, ` +
          `${options.cache ? "the catalog calls answered from the web process's micro-cache (ADR 042)" : "with PAGE_CACHE=off (every call runs its handler)"}; ` +
          `its bare model call right after, from ${options.connections} workers on a pool of the benchmark's own. ` +
          `The send: POST /api/v1/messages/send on schedule at ${n(options.rate)}/s (open loop, at most ${options.connections} connections) from ` +
          `${n(pairs.length * 2)} members of ${n(pairs.length)} pairs in turn, each message with a clientId of its own; then the operation (sendMessage) ` +
          `in the benchmark's process with the same members at the same rate. Latency: the send to its whole answer.` +
          (options.runs > 1 ? ` ${options.runs} runs in a row: the first table has each figure's median, the second each call's worst run.` : ""),
        "",
        ...(worstRows ? [`Median of ${options.runs} runs:`, ""] : []),
        ...markdownTable(medianRows),
        "",
        ...(worstRows ? ["Worst run of each call (highest p95; p99 for the send):", "", ...markdownTable(worstRows), ""] : []),
        targetLine,
        integrityLine,
        "",
      ].join("\n");
      const file = appendBenchmarkRun("api", section);
      console.log(`\nAppended this run to ${path.relative(process.cwd(), file)}.`);
    }
    if (failed) process.exitCode = 1;
  } finally {
    stopping = true;
    await stopServer();
    await db("sessions")
      .where({ kind: "app", device_name: DEVICE })
      .delete()
      .catch(() => {});
    await db.destroy();
    await app.close().catch(() => {});
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

main().then(
  // The operations called in this process may leave a timer or a connection behind: nothing else is to come.
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
