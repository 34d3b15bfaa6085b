/**
 * Chat benchmark: 1,000 connected sockets on this machine exchanging messages. How many messages a
 * second does the chat carry, and how long does a message take from one member's send to the other member's
 * page? Target: p99 delivery ≤ 100 ms at 200 messages a second with one web process and 400 with two, in every
 * run of a sitting (--runs 3).
 *
 *   npm run bench:chat [-- --duration 12] [--rates 100,200,300,400] [--max-seconds 10] [--window 100]
 *                         [--two-rates 200,400,600] [--one-server] [--marks read|delivered|none] [--runs 1]
 *                         [--statements] [--build] [--keep] [--no-docs] [--json <file>]
 *
 * 1. A throwaway Postgres database (soko_bench_chat_<random>, migrated) and Redis namespace (QUEUE_PREFIX
 *    bench_chat_<random>), dropped afterwards unless --keep. 500 pairs of members and a session each are
 *    bulk-inserted as the app writes them (session rows named by the token's SHA-256, as createSession does;
 *    no passwords: nobody signs in with one).
 * 2. The production build (the compiled server, NODE_ENV=production, as `npm start` runs it; built first when
 *    build/ is missing or with --build), and 1,000 socket.io clients in this process (WebSocket transport,
 *    each with its member's session cookie and the server's Origin). Each pair's first member opens the
 *    pair's conversation with `create_conversation`.
 * 3. Steps of --duration seconds at fixed rates (open loop: sends go out on schedule whether or not earlier
 *    ones were answered), spread over all 1,000 members (each sends well under the limit of 120 a minute),
 *    then a step as fast as acknowledgements allow (--window sends in flight). Each recipient behaves as the
 *    browser's chat does with the thread open (app/hooks/use-chat.ts): on `new_message` it emits `mark_read`
 *    up to that message (or mark_delivered, or nothing, with --marks). Measured per message, on one clock:
 *    delivery = the recipient's `new_message` − the send; ack = the sender's acknowledgement − the send;
 *    mark = the sender's `message_status_update` − the send (the full round trip of a read receipt).
 * 4. Unless --one-server, the same with two web processes sharing rooms through the Redis adapter: each
 *    pair's members on different processes. (With one process too, every push goes through Redis: operations
 *    publish with the socket.io emitter and the process's adapter hands them to its sockets.)
 * 5. With --runs N, each set of steps N times in a row; the table then shows each figure's median over the
 *    runs (max: the largest; errors: all of them) and every run's delivery p99: a target is met, and a rate
 *    counted as carried, only when it held in every run. The default run takes about three minutes.
 * 6. With --statements, what Postgres ran for each message at each step with one web process (pg_stat_statements,
 *    which `npm run services:start` loads): each statement's runs and time per message.
 * 7. Prints a table and appends it to docs/benchmarks/history/chat.md unless --no-docs; with --json, also writes
 *    each step's figures to that file (for bench:scale, which runs this with one web process and with a cluster).
 *
 * It is a report, not a test: a missed target still exits 0; errors (a process or socket that does not
 * start, sends refused, messages not delivered) exit 1. Everything it started is stopped on the way out,
 * on Ctrl-C too.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import knex, { type Knex } from "knex";
import { io as connect, type Socket } from "socket.io-client";
import { LOCAL_URLS } from "~/utils/local-services";
import { buildApp, root } from "./build";
import {
  commitOf,
  cpuSecondsByName,
  loadAverage,
  machine,
  machineCpuSeconds,
  markdownTable,
  median,
  nodePidOf,
  plainTable,
  spread,
  treeCpuSecondsOf,
  treeRssMbOf,
  appendBenchmarkRun,
  type Spread,
} from "./lib/bench";
import { parseProcessCount } from "~/utils/process-count";
import { startAppServer, waitUntil, type AppServer } from "./lib/servers";

const DOCS_HEADING = "## Chat: `npm run bench:chat`";
/** Per web process: 200 messages a second with one, 400 with two (the rate is per process). */
const TARGET = { rate: 200, p99Ms: 100 };
const targetRate = (servers: number) => TARGET.rate * servers;
/** CPU per message of the web process(es) and Postgres together, as the cost line measures it (ms). */
const CPU_TARGET_MS = 3;
/** How long to wait after a step's last send for its answers, deliveries and marks. */
const SETTLE_MS = 10_000;
const ACK_TIMEOUT_MS = 30_000;

// ---------------------------------------------------------------------------------------------------------
// Options.

type Marks = "read" | "delivered" | "none";
type Options = {
  members: number;
  durationS: number;
  rates: number[];
  twoRates: number[];
  maxSeconds: number;
  window: number;
  runs: number;
  twoServers: boolean;
  marks: Marks;
  build: boolean;
  keep: boolean;
  docs: boolean;
  /** Where to write the figures as JSON (null: nowhere). */
  json: string | null;
  /** Postgres's statements per message (pg_stat_statements) for each step with one web process. */
  statements: boolean;
};

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      members: { type: "string", default: "1000" },
      duration: { type: "string", default: "12" },
      rates: { type: "string", default: "100,200,300,400" },
      "two-rates": { type: "string", default: "200,400,600" },
      "max-seconds": { type: "string", default: "10" },
      window: { type: "string", default: "100" },
      runs: { type: "string", default: "1" },
      "one-server": { type: "boolean", default: false },
      marks: { type: "string", default: "read" },
      build: { type: "boolean", default: false },
      keep: { type: "boolean", default: false },
      "no-docs": { type: "boolean", default: false },
      json: { type: "string" },
      statements: { type: "boolean", default: false },
    },
  });
  const positive = (name: string, raw: string) => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got "${raw}"`);
    return n;
  };
  const list = (name: string, raw: string) =>
    raw
      .split(",")
      .filter(Boolean)
      .map((r) => positive(name, r));
  const members = Math.round(positive("members", values.members));
  if (members % 2) throw new Error("--members must be even (they chat in pairs)");
  if (!["read", "delivered", "none"].includes(values.marks)) throw new Error(`--marks must be read, delivered or none, got "${values.marks}"`);
  return {
    members,
    durationS: positive("duration", values.duration),
    rates: list("rates", values.rates),
    twoRates: list("two-rates", values["two-rates"]),
    maxSeconds: positive("max-seconds", values["max-seconds"]),
    window: Math.round(positive("window", values.window)),
    runs: Math.round(positive("runs", values.runs)),
    twoServers: !values["one-server"],
    marks: values.marks as Marks,
    build: values.build,
    keep: values.keep,
    docs: !values["no-docs"],
    json: values.json ?? null,
    statements: values.statements,
  };
}

// ---------------------------------------------------------------------------------------------------------
// What this run starts, and stops again on the way out.

const tag = randomBytes(4).toString("hex");
const DATABASE = `soko_bench_chat_${tag}`;
const PREFIX = `bench_chat_${tag}`;
const urls = {
  DATABASE_URL: process.env.DATABASE_URL ?? LOCAL_URLS.DATABASE_URL,
  REDIS_URL: process.env.REDIS_URL ?? LOCAL_URLS.REDIS_URL,
  CLICKHOUSE_URL: process.env.CLICKHOUSE_URL ?? LOCAL_URLS.CLICKHOUSE_URL,
};

function databaseUrl(database: string) {
  const url = new URL(urls.DATABASE_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withAdmin<T>(fn: (admin: Knex) => Promise<T>): Promise<T> {
  const admin = knex({ client: "pg", connection: databaseUrl("postgres"), pool: { min: 0, max: 1 } });
  try {
    return await fn(admin);
  } finally {
    await admin.destroy();
  }
}

const servers: AppServer[] = [];
const clients: Client[] = [];
let databaseCreated = false;
let cleaning: Promise<void> | null = null;
/** Set on Ctrl-C: the step under way stops sending, and nothing new starts. */
let stopping = false;

function cleanup(keep: boolean): Promise<void> {
  stopping = true;
  cleaning ??= (async () => {
    for (const c of clients) c.socket.disconnect();
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    if (keep) {
      console.log(`\nKept: database ${DATABASE}, Redis keys ${PREFIX}:*`);
      return;
    }
    const redis = new Redis(urls.REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", `${PREFIX}:*`, "COUNT", 1000);
        cursor = next;
        if (keys.length) await redis.del(...keys);
      } while (cursor !== "0");
    } finally {
      redis.disconnect();
    }
    if (databaseCreated) await withAdmin((admin) => admin.raw(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`));
  })();
  return cleaning;
}

// ---------------------------------------------------------------------------------------------------------
// Members and sessions, bulk-inserted.

type MemberRow = { id: number; token: string };

async function createMembers(db: Knex, count: number, hashToken: (token: string) => string): Promise<MemberRow[]> {
  const rows: MemberRow[] = [];
  const expiresAt = new Date(Date.now() + 12 * 60 * 60 * 1000);
  for (let from = 0; from < count; from += 500) {
    const batch = Array.from({ length: Math.min(500, count - from) }, (_, i) => {
      const n = from + i;
      const role = n % 2 === 0 ? "client" : "freelancer";
      return {
        name: `Bench ${role} ${n}`,
        username: `bench_${n}`,
        email: `bench.${n}@example.ug`,
        password_hash: null,
        role,
        status: "active",
        level: role === "freelancer" ? "new" : "member",
      };
    });
    const ids: { id: string | number }[] = await db("users").insert(batch).returning("id");
    const sessions = ids.map(({ id }) => ({ id: Number(id), token: randomBytes(32).toString("base64url") }));
    await db("sessions").insert(
      sessions.map((s) => ({ id: hashToken(s.token), user_id: s.id, expires_at: expiresAt, persistent: false, user_agent: "bench-chat" })),
    );
    rows.push(...sessions);
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------------------
// Sockets, and what each message went through.

type Step = {
  label: string;
  servers: number;
  /** Messages a second asked for; null for the as-fast-as-acks-allow step. */
  rate: number | null;
  sent: Tracked[];
  sendStart: number;
  sendEnd: number;
  errors: Map<string, number>;
  markErrors: number;
  /** CPU used over the step, as a share of one core: the web process(es), this process, Postgres, Redis, the whole machine. */
  webCpu: number;
  benchCpu: number;
  postgresCpu: number;
  redisCpu: number;
  machineCpu: number;
  loopP99: number;
  rssMb: number[];
  /** What Postgres ran during the step (--statements), most time first. */
  statements: Statement[];
};

/** A statement as pg_stat_statements counted it over a step: its text, runs, rows, and time planning and executing. */
type Statement = { query: string; calls: number; rows: number; ms: number };

type Tracked = { step: Step; sentAt: number; id?: number; ackAt?: number; deliveredAt?: number; markedAt?: number; failed?: string };

type Client = { index: number; userId: number; socket: Socket };

const byClientId = new Map<string, Tracked>();
const byMessageId = new Map<number, Tracked>();
/** Marks that came before the message's acknowledgement (its id still unknown then). */
const earlyMarks = new Map<number, number>();

const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

function openSocket(server: AppServer, member: MemberRow, index: number, marks: Marks): Promise<Client> {
  const socket = connect(server.baseUrl, {
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
    timeout: 20_000,
    extraHeaders: { origin: server.baseUrl, cookie: `soko_session=${member.token}` },
  });
  const client: Client = { index, userId: member.id, socket };
  const markEvent = marks === "read" ? "mark_read" : "mark_delivered";
  socket.on("new_message", ({ message }: { message: { id: number; senderId: number; clientId: string | null; conversationId: string } }) => {
    if (message.senderId === member.id) return;
    const tracked = message.clientId ? byClientId.get(message.clientId) : undefined;
    if (tracked && tracked.deliveredAt === undefined) tracked.deliveredAt = performance.now();
    if (marks === "none") return;
    socket
      .timeout(ACK_TIMEOUT_MS)
      .emit(markEvent, { conversationId: message.conversationId, upTo: message.id }, (error: Error | null, answer?: { ok: boolean }) => {
        if ((error || !answer?.ok) && tracked) tracked.step.markErrors++;
      });
  });
  socket.on("message_status_update", ({ ids, status }: { ids: number[]; status: string }) => {
    if (status !== marks) return;
    const now = performance.now();
    for (const id of ids) {
      const tracked = byMessageId.get(id);
      if (tracked) tracked.markedAt ??= now;
      else earlyMarks.set(id, now);
    }
  });
  return new Promise((resolve, reject) => {
    socket.once("connect", () => resolve(client));
    socket.once("connect_error", (error) => reject(new Error(`socket of member ${member.id} refused: ${error.message}`)));
  });
}

/** Runs `fn` over `items` with at most `limit` at a time. */
async function pool<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

/** Sockets for every member: with two servers, each pair's first member on the first and second on the second. */
async function connectAll(members: MemberRow[], on: AppServer[], marks: Marks): Promise<void> {
  for (const c of clients.splice(0)) c.socket.disconnect();
  if (stopping) throw new Error("stopped");
  const started = performance.now();
  const opened = await pool(members, 50, (m, i) => openSocket(on[i % on.length]!, m, i, marks));
  clients.push(...opened);
  console.log(
    `  ${opened.length.toLocaleString("en-US")} sockets connected to ${on.length} web process${on.length > 1 ? "es" : ""} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

const BODIES = [
  "Hello, is the logo ready for review today?",
  "Yes, I will send the first draft this evening.",
  "Please make the colours a little brighter.",
  "Thank you, the new version looks very good.",
  "Can we add our slogan under the name?",
  "Sure, I have added it. Have a look at the file.",
];

let sequence = 0;
/** Sends answered ok over the whole run, warm-ups included: each must be stored exactly once. */
let acknowledged = 0;

/** Sends one message from member `from` to their pair; its answer and delivery are noted on the returned record. */
function send(step: Step, from: Client, conversationId: string): Promise<void> {
  const clientId = `${tag}-${++sequence}`;
  const tracked: Tracked = { step, sentAt: performance.now() };
  byClientId.set(clientId, tracked);
  step.sent.push(tracked);
  return new Promise((resolve) => {
    from.socket
      .timeout(ACK_TIMEOUT_MS)
      .emit(
        "send_message",
        { conversationId, body: BODIES[sequence % BODIES.length], clientId },
        (error: Error | null, answer?: { ok: boolean; error?: string; message?: { id: number } }) => {
          tracked.ackAt = performance.now();
          if (error) tracked.failed = "ack timeout";
          else if (!answer?.ok || !answer.message) tracked.failed = answer?.error ?? "refused";
          else {
            tracked.id = answer.message.id;
            acknowledged++;
            byMessageId.set(tracked.id, tracked);
            const early = earlyMarks.get(tracked.id);
            if (early !== undefined) {
              tracked.markedAt ??= early;
              earlyMarks.delete(tracked.id);
            }
          }
          if (tracked.failed) count(step.errors, tracked.failed);
          resolve();
        },
      );
  });
}

/** The k-th message of a run: pairs in turn, each pair's direction alternating, so every member sends alike. */
function sender(k: number, conversations: string[]): { from: Client; conversationId: string } {
  const pairs = conversations.length;
  const pair = k % pairs;
  const direction = Math.floor(k / pairs) % 2;
  return { from: clients[pair * 2 + direction]!, conversationId: conversations[pair]! };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** With `db` (--statements), Postgres's statements are counted over each step. */
type Meter = { pids: (number | null)[]; redis: Redis; db?: Knex };

/** pg_stat_statements of this database, most time first (its counters are reset before each step). */
async function statementsOf(db: Knex): Promise<Statement[]> {
  const { rows } = await db.raw<{ rows: { query: string; calls: string; rows: string; ms: number }[] }>(
    `SELECT query, calls, rows, total_exec_time + total_plan_time AS ms FROM pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY ms DESC`,
  );
  return rows.map((r) => ({ query: r.query.replace(/\s+/g, " ").trim(), calls: Number(r.calls), rows: Number(r.rows), ms: Number(r.ms) }));
}

async function redisCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info("cpu");
  return Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1]);
}

async function runStep(
  label: string,
  meter: Meter,
  conversations: string[],
  marks: Marks,
  how: { rate: number; seconds: number } | { window: number; seconds: number },
): Promise<Step> {
  const step: Step = {
    label,
    servers: meter.pids.length,
    rate: "rate" in how ? how.rate : null,
    sent: [],
    sendStart: 0,
    sendEnd: 0,
    errors: new Map(),
    markErrors: 0,
    webCpu: 0,
    benchCpu: 0,
    postgresCpu: 0,
    redisCpu: 0,
    machineCpu: 0,
    loopP99: 0,
    rssMb: [],
    statements: [],
  };
  if (meter.db) await meter.db.raw("SELECT pg_stat_statements_reset()");
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const webBefore = meter.pids.map(treeCpuSecondsOf);
  const benchBefore = process.cpuUsage();
  const [postgresBefore, redisBefore, machineBefore] = [cpuSecondsByName("postgres"), await redisCpuSeconds(meter.redis), machineCpuSeconds()];
  step.sendStart = performance.now();
  const end = step.sendStart + how.seconds * 1000;
  let k = 0;
  if ("rate" in how) {
    const total = Math.round(how.rate * how.seconds);
    while (k < total && !stopping) {
      const due = Math.min(total, Math.floor(((performance.now() - step.sendStart) / 1000) * how.rate) + 1);
      while (k < due) {
        const { from, conversationId } = sender(k++, conversations);
        void send(step, from, conversationId);
      }
      await sleep(Math.max(1, Math.min(20, 500 / how.rate)));
    }
  } else {
    // As fast as acknowledgements allow: `window` sends in flight, each answered one making room for the next.
    await Promise.all(
      Array.from({ length: how.window }, async () => {
        while (performance.now() < end && !stopping) {
          const { from, conversationId } = sender(k++, conversations);
          await send(step, from, conversationId);
        }
      }),
    );
  }
  step.sendEnd = performance.now();
  const done = (t: Tracked) =>
    t.failed !== undefined || (t.ackAt !== undefined && t.deliveredAt !== undefined && (marks === "none" || t.markedAt !== undefined));
  const settleBy = performance.now() + SETTLE_MS;
  while (performance.now() < settleBy && !stopping && !step.sent.every(done)) await sleep(20);
  const wall = (performance.now() - step.sendStart) / 1000;
  const webAfter = meter.pids.map(treeCpuSecondsOf);
  step.webCpu = webAfter.reduce<number>((sum, after, i) => sum + ((after ?? 0) - (webBefore[i] ?? 0)), 0) / wall;
  const bench = process.cpuUsage(benchBefore);
  step.benchCpu = (bench.user + bench.system) / 1e6 / wall;
  step.postgresCpu = (cpuSecondsByName("postgres") - postgresBefore) / wall;
  step.redisCpu = ((await redisCpuSeconds(meter.redis)) - redisBefore) / wall;
  step.machineCpu = ((machineCpuSeconds() ?? Number.NaN) - (machineBefore ?? Number.NaN)) / wall;
  loop.disable();
  step.loopP99 = loop.percentile(99) / 1e6;
  step.rssMb = meter.pids.map((pid) => treeRssMbOf(pid) ?? Number.NaN);
  if (meter.db) step.statements = (await statementsOf(meter.db)).filter((st) => !st.query.includes("pg_stat_statements"));
  for (const t of step.sent) {
    if (t.failed) continue;
    if (t.ackAt === undefined) count(step.errors, "no answer");
    else if (t.deliveredAt === undefined) count(step.errors, "not delivered");
    else if (marks !== "none" && t.markedAt === undefined) count(step.errors, `no ${marks} mark`);
  }
  return step;
}

// ---------------------------------------------------------------------------------------------------------
// The report.

type Figures = {
  step: Step;
  sentPerS: number;
  deliveredPerS: number;
  delivery: Spread;
  ack: Spread;
  mark: Spread;
  errors: number;
  /** Each run's own figures (one, unless --runs). */
  runs: Figures[];
};

function figuresOf(step: Step): Figures {
  const ok = step.sent.filter((t) => !t.failed && t.deliveredAt !== undefined);
  const sendSeconds = (step.sendEnd - step.sendStart) / 1000;
  const lastDelivery = Math.max(step.sendEnd, ...ok.map((t) => t.deliveredAt!));
  return {
    step,
    sentPerS: step.sent.length / sendSeconds,
    deliveredPerS: ok.length / ((lastDelivery - step.sendStart) / 1000),
    delivery: spread(ok.map((t) => t.deliveredAt! - t.sentAt)),
    ack: spread(step.sent.filter((t) => !t.failed && t.ackAt !== undefined).map((t) => t.ackAt! - t.sentAt)),
    mark: spread(ok.filter((t) => t.markedAt !== undefined).map((t) => t.markedAt! - t.sentAt)),
    errors: [...step.errors.values()].reduce((a, b) => a + b, 0) + step.markErrors,
    runs: [],
  };
}

/** One step's figures over several runs: the median of each (the largest max; every error). */
function medianFigures(list: Figures[]): Figures {
  if (list.length === 1) return { ...list[0]!, runs: list };
  const m = (f: (x: Figures) => number) => median(list.map(f));
  const over = (f: (x: Figures) => Spread): Spread => ({
    n: list.reduce((a, x) => a + f(x).n, 0),
    p50: m((x) => f(x).p50),
    p95: m((x) => f(x).p95),
    p99: m((x) => f(x).p99),
    max: Math.max(...list.map((x) => f(x).max)),
  });
  const errors = new Map<string, number>();
  for (const x of list) for (const [k, v] of x.step.errors) errors.set(k, (errors.get(k) ?? 0) + v);
  const first = list[0]!.step;
  const step: Step = {
    ...first,
    sent: [],
    errors,
    markErrors: list.reduce((a, x) => a + x.step.markErrors, 0),
    webCpu: m((x) => x.step.webCpu),
    benchCpu: m((x) => x.step.benchCpu),
    postgresCpu: m((x) => x.step.postgresCpu),
    redisCpu: m((x) => x.step.redisCpu),
    machineCpu: m((x) => x.step.machineCpu),
    loopP99: m((x) => x.step.loopP99),
    rssMb: list.at(-1)!.step.rssMb,
  };
  return {
    step,
    sentPerS: m((x) => x.sentPerS),
    deliveredPerS: m((x) => x.deliveredPerS),
    delivery: over((x) => x.delivery),
    ack: over((x) => x.ack),
    mark: over((x) => x.mark),
    errors: list.reduce((a, x) => a + x.errors, 0),
    runs: list,
  };
}

const n = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "–");
const ms = (x: number) => (Number.isFinite(x) ? (x < 10 ? x.toFixed(1) : Math.round(x).toLocaleString("en-US")) : "–");
const pct = (x: number) => (Number.isFinite(x) ? `${Math.round(x * 100)}%` : "–");

function tableRows(figures: Figures[], marks: Marks): string[][] {
  const markHead = marks === "none" ? [] : [`${marks} mark p50 / p99 ms`];
  return [
    [
      "Step",
      "Web processes",
      "Asked/s",
      "Sent/s",
      "Delivered/s",
      "Delivery p50 / p95 / p99 / max ms",
      "Delivery p99 ms of each run",
      "Ack p50 / p99 ms",
      ...markHead,
      "Errors",
      "CPU web / Postgres / Redis / bench / machine",
      "Web + Postgres ms per message, each run",
      "Bench loop p99 ms",
      "Web RSS MB",
    ],
    ...figures.map((f) => [
      f.step.label,
      String(f.step.servers),
      f.step.rate === null ? "max" : n(f.step.rate),
      n(f.sentPerS),
      n(f.deliveredPerS),
      `${ms(f.delivery.p50)} / ${ms(f.delivery.p95)} / ${ms(f.delivery.p99)} / ${ms(f.delivery.max)}`,
      f.runs.length > 1
        ? `${f.runs.map((r) => ms(r.delivery.p99)).join(" / ")} (worst ${ms(Math.max(...f.runs.map((r) => r.delivery.p99)))})`
        : ms(f.delivery.p99),
      `${ms(f.ack.p50)} / ${ms(f.ack.p99)}`,
      ...(marks === "none" ? [] : [`${ms(f.mark.p50)} / ${ms(f.mark.p99)}`]),
      f.errors
        ? `${n(f.errors)} (${[...f.step.errors]
            .map(([k, v]) => `${v} ${k}`)
            .concat(f.step.markErrors ? [`${f.step.markErrors} marks`] : [])
            .join(", ")})`
        : "0",
      [f.step.webCpu, f.step.postgresCpu, f.step.redisCpu, f.step.benchCpu, f.step.machineCpu].map(pct).join(" / "),
      f.runs.map((r) => ms(webAndPostgresMs(r))).join(" / "),
      ms(f.step.loopP99),
      f.step.rssMb.map((r) => n(r)).join(" + "),
    ]),
  ];
}

/** A fixed-rate step's run that held: p99 within the target, no error, and (nearly) every message delivered at the rate asked. */
const held = (f: Figures) => f.step.rate !== null && f.delivery.p99 <= TARGET.p99Ms && f.errors === 0 && f.deliveredPerS >= f.step.rate * 0.95;

/**
 * The target (200 messages/s per web process with delivery p99 ≤ 100 ms) is met only when it held in every run
 * of the step; the most carried is the highest fixed rate that held in every run.
 */
function verdicts(figures: Figures[]) {
  const lines: string[] = [];
  const processes = (servers: number) => `${servers} web process${servers > 1 ? "es" : ""}`;
  for (const servers of [...new Set(figures.map((f) => f.step.servers))]) {
    const rate = targetRate(servers);
    const at = figures.find((f) => f.step.servers === servers && f.step.rate === rate);
    if (at) {
      const met = at.runs.every(held);
      const worst = at.runs.reduce((a, r) => (r.delivery.p99 > a.delivery.p99 ? r : a));
      lines.push(
        `${met ? "met" : "MISSED"}: delivery p99 ≤ ${TARGET.p99Ms} ms at ${n(rate)} messages/s with ${processes(servers)}, ` +
          `${at.runs.filter(held).length} of ${at.runs.length} run${at.runs.length > 1 ? "s" : ""} within it: p99 ${at.runs.map((r) => ms(r.delivery.p99)).join(" / ")} ms ` +
          `(worst run: p99 ${ms(worst.delivery.p99)} ms, p50 ${ms(worst.delivery.p50)} ms, ${n(worst.deliveredPerS)} delivered/s, ${worst.errors} errors)`,
      );
    }
    const within = figures.filter((f) => f.step.servers === servers && f.step.rate !== null && f.runs.every(held));
    const best = within.reduce<Figures | null>((a, f) => (a && a.step.rate! >= f.step.rate! ? a : f), null);
    const max = figures.find((f) => f.step.servers === servers && f.step.rate === null);
    lines.push(
      `Most carried with ${processes(servers)}: ` +
        (best
          ? `${n(best.step.rate!)} messages/s with delivery p99 ≤ ${TARGET.p99Ms} ms in every run (worst p99 ${ms(Math.max(...best.runs.map((r) => r.delivery.p99)))} ms)`
          : `no fixed rate held p99 ≤ ${TARGET.p99Ms} ms in every run`) +
        (max
          ? `; as fast as acknowledgements allow, ${n(max.deliveredPerS)} messages/s (delivery p50 ${ms(max.delivery.p50)} ms, p99 ${ms(max.delivery.p99)} ms).`
          : "."),
    );
  }
  return lines;
}

/**
 * Where the time goes: CPU per delivered message (median over the error-free fixed-rate steps with one web
 * process) for the web process, Postgres, Redis and this benchmark, and the rate the machine's cores allow at
 * that cost. Postgres and Redis are the project's shared services: other work on them counts too.
 */
/** A step's CPU per delivered message, web process(es) and Postgres together (ms). */
const webAndPostgresMs = (f: Figures) => ((f.step.webCpu + f.step.postgresCpu) / f.deliveredPerS) * 1000;

/**
 * The CPU target (≤ 3 ms per message, web and Postgres, one web process) in each run: the median over that run's
 * error-free fixed-rate steps, as the cost line takes it over the runs' medians. Met only if every run holds it.
 */
function cpuVerdict(figures: Figures[]): string | null {
  const steps = figures.filter((f) => f.step.rate !== null && f.step.servers === 1);
  const runs = Math.max(0, ...steps.map((f) => f.runs.length));
  const perRun = Array.from({ length: runs }, (_, r) =>
    median(
      steps
        .map((f) => f.runs[r])
        .filter((x): x is Figures => x !== undefined && x.errors === 0 && x.deliveredPerS > 0)
        .map(webAndPostgresMs),
    ),
  ).filter(Number.isFinite);
  if (!perRun.length) return null;
  const met = perRun.every((x) => x <= CPU_TARGET_MS);
  return (
    `${met ? "met" : "MISSED"}: CPU per message ≤ ${CPU_TARGET_MS} ms, web and Postgres together (the median over each run's error-free fixed-rate ` +
    `steps with one web process): ${perRun.map(ms).join(" / ")} ms (worst ${ms(Math.max(...perRun))} ms)`
  );
}

function costLine(figures: Figures[], cores: number) {
  const steady = figures.filter((f) => f.step.rate !== null && f.step.servers === 1 && f.errors === 0 && f.deliveredPerS > 0);
  const per = (share: (s: Step) => number) => median(steady.map((f) => (share(f.step) / f.deliveredPerS) * 1000));
  const web = per((s) => s.webCpu);
  const postgres = per((s) => s.postgresCpu);
  const redis = per((s) => s.redisCpu);
  const bench = per((s) => s.benchCpu);
  const machineMs = per((s) => s.machineCpu);
  const ours = web + postgres + redis + bench;
  return (
    `Where the time goes (median CPU per message over the error-free fixed-rate steps with one web process; a message here is a send, ` +
    `its pushes and the recipient's mark): web ${ms(web)} ms, Postgres ${ms(postgres)} ms, Redis ${ms(redis)} ms, the benchmark's clients ${ms(bench)} ms; ` +
    `${ms(ours)} ms in all, so ${cores} cores allow about ${n((cores * 1000) / ours)} messages/s. The whole machine was busy ${ms(machineMs)} ms per message ` +
    `(other work on this shared box included).`
  );
}

/**
 * What Postgres ran for each message at one step (--statements): each statement's runs and time per message sent,
 * most time first, as pg_stat_statements counted them (time planning and executing, not parsing or the protocol's
 * own work, which `CPU Postgres` includes).
 */
function statementRows(f: Figures): string[][] {
  const messages = f.step.sent.filter((t) => !t.failed).length || f.sentPerS * ((f.step.sendEnd - f.step.sendStart) / 1000);
  const total = f.step.statements.reduce((a, st) => a + st.ms, 0);
  const short = (q: string) => (q.length > 110 ? `${q.slice(0, 107)}...` : q);
  return [
    ["Statement", "Runs / message", "Rows / run", "ms / message", "Share"],
    ...f.step.statements
      .filter((st) => st.calls / messages >= 0.01)
      .map((st) => [
        short(st.query).replace(/\|/g, "\\|"),
        (st.calls / messages).toFixed(2),
        (st.rows / Math.max(1, st.calls)).toFixed(1),
        (st.ms / messages).toFixed(3),
        pct(st.ms / total),
      ]),
    ["All statements", (f.step.statements.reduce((a, st) => a + st.calls, 0) / messages).toFixed(2), "", (total / messages).toFixed(3), "100%"],
  ];
}

/** The figures as data (ms and per-second numbers as printed, CPU as a share of one core): --json's file. */
function writeJson(file: string, figures: Figures[], messages: { webProcesses: number; acknowledged: number; stored: number }) {
  const steps = figures.map((f) => ({
    label: f.step.label,
    servers: f.step.servers,
    rate: f.step.rate,
    sentPerS: f.sentPerS,
    deliveredPerS: f.deliveredPerS,
    delivery: f.delivery,
    ack: f.ack,
    mark: f.mark,
    errors: f.errors,
    cpu: { web: f.step.webCpu, postgres: f.step.postgresCpu, redis: f.step.redisCpu, bench: f.step.benchCpu, machine: f.step.machineCpu },
  }));
  fs.writeFileSync(file, `${JSON.stringify({ target: TARGET, steps, ...messages }, null, 2)}\n`);
}

// ---------------------------------------------------------------------------------------------------------

async function main() {
  const options = readOptions();
  /** Processes each web server of this run has: more than one when WEB_PROCESSES says so (a cluster). */
  const webProcesses = parseProcessCount(process.env.WEB_PROCESSES) ?? 1;
  const benchUrl = databaseUrl(DATABASE);
  Object.assign(process.env, { ...urls, DATABASE_URL: benchUrl, QUEUE_PREFIX: PREFIX, SEED_DEMO: "0" });
  const [{ migratePostgres }, { createDb }, { hashToken }] = await Promise.all([
    import("./lib/migrate"),
    import("~/server/db.server"),
    import("~/models/session.server"),
  ]);

  const onSignal = () => void cleanup(options.keep).finally(() => process.exit(130));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  const facts = machine();
  const load = loadAverage();
  const commit = commitOf();
  let db: Knex | null = null;
  let redis: Redis | null = null;
  try {
    redis = new Redis(urls.REDIS_URL, { maxRetriesPerRequest: 1 });
    if (options.build || !fs.existsSync(path.join(root, "build", "server", "index.js"))) {
      console.log("Building (remix vite:build)...");
      if (buildApp() !== 0) throw new Error("the build failed");
    }
    console.log(`Chat benchmark: database ${DATABASE}, Redis prefix ${PREFIX}; commit ${commit}; load average ${load}`);
    await withAdmin((admin) => admin.raw(`CREATE DATABASE ${DATABASE}`));
    databaseCreated = true;
    db = createDb(benchUrl, { min: 0, max: 2 });
    await migratePostgres(db);
    const { rows: version } = await db.raw<{ rows: { server_version: string }[] }>("SHOW server_version");
    // pg_stat_statements is loaded by `npm run services:start` (scripts/services.ts); a Postgres started otherwise may lack it.
    // It counts nothing unless asked (scripts/services.ts): this database's sessions, the web process's, are asked.
    if (options.statements) await db.raw(`ALTER DATABASE ${DATABASE} SET pg_stat_statements.track = 'top'`).catch(() => {});
    const counting =
      options.statements &&
      (await db
        .raw("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        .then(() => db!.raw("SELECT 1 FROM pg_stat_statements LIMIT 1").then(() => true))
        .catch((error: Error) => {
          console.warn(
            `  --statements: pg_stat_statements is not available (${error.message}); restart Postgres with \`npm run services:stop && npm run services:start\``,
          );
          return false;
        }));
    const members = await createMembers(db, options.members, hashToken);
    console.log(`  ${members.length.toLocaleString("en-US")} members with sessions`);

    const env = { ...urls, DATABASE_URL: benchUrl, QUEUE_PREFIX: PREFIX, SEED_DEMO: "0" };
    /** A web process of this run, stopped with the rest (at once, if Ctrl-C came while it started). */
    const startWeb = async (name: string) => {
      if (stopping) throw new Error("stopped");
      const server = await startAppServer(env, { name, host: "127.0.0.1", timeoutMs: 60_000, stopGraceMs: 20_000 });
      servers.push(server);
      // With WEB_PROCESSES above 1 (bench:scale) a cluster: /healthz answers once its first process is ready, and
      // sockets opened before the others are would all go to that one.
      if (webProcesses > 1) {
        const line = `${webProcesses} web processes ready`;
        await waitUntil(server, () => server.output().includes(line), line, 90_000);
      }
      if (stopping) {
        await server.stop();
        throw new Error("stopped");
      }
      return server;
    };
    const first = await startWeb("web 1");
    await connectAll(members, [first], options.marks);

    // One conversation per pair, opened by its first member.
    const started = performance.now();
    const conversations = await pool(
      Array.from({ length: members.length / 2 }, (_, p) => p),
      25,
      async (p) => {
        const answer = await clients[p * 2]!.socket.timeout(ACK_TIMEOUT_MS).emitWithAck("create_conversation", { userId: clients[p * 2 + 1]!.userId });
        if (!answer?.ok) throw new Error(`create_conversation failed: ${JSON.stringify(answer)}`);
        return answer.conversationId as string;
      },
    );
    console.log(`  ${conversations.length} conversations opened in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const steps: Step[] = [];
    const report = (step: Step, run: number) => {
      steps.push(step);
      const f = figuresOf(step);
      console.log(
        `  ${options.runs > 1 ? `run ${run}, ` : ""}${step.label}: ${n(f.deliveredPerS)} delivered/s, delivery p50 ${ms(f.delivery.p50)} ms, p99 ${ms(f.delivery.p99)} ms, errors ${f.errors}`,
      );
      return step;
    };
    const sweep = async (meter: Meter, rates: number[]) => {
      for (let run = 1; run <= options.runs && !stopping; run++) {
        for (const rate of rates) report(await runStep(`${rate}/s`, meter, conversations, options.marks, { rate, seconds: options.durationS }), run);
        report(await runStep("max", meter, conversations, options.marks, { window: options.window, seconds: options.maxSeconds }), run);
      }
    };

    console.log(
      `\nOne web process: warm-up (3 s at 50/s), then ${options.durationS} s per rate and ${options.maxSeconds} s as fast as acks allow (${options.window} in flight):`,
    );
    const one: Meter = { pids: [nodePidOf(first)], redis: redis!, db: counting ? db : undefined };
    await runStep("warm-up", one, conversations, options.marks, { rate: 50, seconds: 3 });
    await sweep(one, options.rates);

    if (options.twoServers) {
      const second = await startWeb("web 2");
      console.log(`\nTwo web processes (each pair split across them, every message through the Redis adapter):`);
      await connectAll(members, [first, second], options.marks);
      const two: Meter = { pids: [nodePidOf(first), nodePidOf(second)], redis: redis! };
      await runStep("warm-up", two, conversations, options.marks, { rate: 50, seconds: 2 });
      await sweep(two, options.twoRates);
    }

    // Each step's figures, over the runs when there were several, in the order the steps first ran.
    const groups = new Map<string, Figures[]>();
    for (const step of steps) {
      const key = `${step.servers}:${step.label}`;
      groups.set(key, [...(groups.get(key) ?? []), figuresOf(step)]);
    }
    const figures = [...groups.values()].map(medianFigures);
    const rows = tableRows(figures, options.marks);
    const cpu = cpuVerdict(figures);
    const targets = [...verdicts(figures), ...(cpu ? [cpu] : [])];
    const cost = costLine(figures, facts.cores);
    const stored = await db("messages").count<{ n: string }[]>("* as n");
    const storedCount = Number(stored[0]?.n);
    const integrity =
      `${storedCount === acknowledged ? "Every" : "NOT every"} acknowledged send was stored once: ${n(acknowledged)} acknowledged (${n(sequence)} sent, warm-ups included), ` +
      `${n(storedCount)} messages in the database.`;
    console.log(`\n${plainTable(rows).join("\n")}\n\n${targets.join("\n")}\n${cost}\n${integrity}`);
    const counted = figures.filter((f) => f.step.statements.length);
    for (const f of counted)
      console.log(`\nPostgres's statements per message at ${f.step.label} (one web process):\n${plainTable(statementRows(f)).join("\n")}`);
    if (options.json) writeJson(options.json, figures, { webProcesses, acknowledged, stored: storedCount });

    if (options.docs) {
      const date = new Date().toISOString().slice(0, 16).replace("T", " ");
      const args = process.argv.slice(2).join(" ");
      const section = [
        DOCS_HEADING,
        "",
        `Run ${date} UTC at commit ${commit} on ${facts.cpu}, ${facts.memoryGb} GB RAM, ${facts.os}; Node ${facts.node}, Postgres ${version[0]?.server_version ?? "?"}. ` +
          `Load average when it started: ${load}. Everything on this one machine at once: the web process(es) (the compiled server, as \`npm start\` runs it), ` +
          `Postgres, Redis, and the benchmark's ${n(options.members)} socket.io clients in one Node process.`,
        "",
        "```",
        `npm run bench:chat${args ? ` -- ${args}` : ""}`,
        "```",
        "",
        `${n(options.members)} members (${n(options.members / 2)} pairs, one conversation each), each with a WebSocket and its session cookie. ` +
          `Fixed-rate steps of ${options.durationS} s send on schedule (open loop) from every member in turn; "max" keeps ${options.window} sends in flight for ${options.maxSeconds} s. ` +
          `Each recipient answers \`new_message\` as the browser does with the thread open (\`${options.marks === "read" ? "mark_read" : options.marks === "delivered" ? "mark_delivered" : "nothing"}\`). ` +
          `Delivery = the recipient's \`new_message\` − the send; ack = the sender's acknowledgement − the send` +
          (options.marks === "none" ? "" : `; ${options.marks} mark = the sender's \`message_status_update\` − the send`) +
          `. Sent/s and delivered/s are over the step's sending time (delivered/s until its last delivery). CPU is a share of one core over the step ` +
          `(Postgres and Redis are shared with whatever else ran on them); "bench loop p99" is this process's event-loop delay, which every latency includes. ` +
          `With one web process too, every push goes through Redis (the operations publish with the socket.io emitter, the adapter delivers).` +
          (options.runs > 1
            ? ` Each figure is the median of ${options.runs} runs in a row on the same setup (max: the largest; errors: all runs'); "delivery p99 ms of each run" shows every run, and a target is met only when it held in all of them.`
            : ""),
        "",
        ...markdownTable(rows),
        "",
        `Target, and the most the machine carried:`,
        "",
        ...targets.map((t) => `- ${t}`),
        "",
        cost,
        integrity,
        "",
        ...counted.flatMap((f) => [
          `Postgres's statements per message at ${f.step.label} (one web process, pg_stat_statements):`,
          "",
          ...markdownTable(statementRows(f)),
          "",
        ]),
      ].join("\n");
      const file = appendBenchmarkRun("chat", section);
      console.log(`\nAppended this run to ${path.relative(process.cwd(), file)}.`);
    }
    if (figures.some((f) => f.errors > 0)) {
      console.error("\nSome sends failed or were not delivered: see the table.");
      process.exitCode = 1;
    }
  } catch (error) {
    for (const s of servers) console.error(`--- last output of ${s.name} ---\n${s.output().slice(-3000)}`);
    throw error;
  } finally {
    await db?.destroy();
    redis?.disconnect();
    await cleanup(options.keep);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
