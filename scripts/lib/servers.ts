/**
 * Processes of ours that tests and benchmarks start: a free port, a child process (the web server, the worker,
 * a benchmark's bare endpoint) whose output is kept and which is stopped by its own pid, and the web server
 * and worker as production runs them (compiled JavaScript, `compiledProcess`), the web server ready once
 * /healthz answers 200. One copy for tests/support/test-server.ts, the benchmarks and `npm start`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseProcessCount } from "~/utils/process-count";
import { compiledCluster, compiledServer, compiledWorker, ensureCompiled } from "./compile";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** A TCP port free on 127.0.0.1 at this moment (the kernel's choice). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export type Child = {
  name: string;
  child: ChildProcess;
  /** The last 20,000 characters it wrote to stdout and stderr. */
  output: () => string;
  exited: () => boolean;
  /** Its exit code (null when a signal ended it), once it has exited. */
  exit: Promise<number | null>;
  /** SIGTERM, then SIGKILL if it has not exited after the grace period. */
  stop: () => Promise<void>;
};

export type ChildOptions = {
  /** How long stop() waits after SIGTERM before SIGKILL. */
  stopGraceMs?: number;
  /**
   * In a process group of its own, signalled as a group: a SIGKILL reaches whatever it started too. (Left
   * out, the child shares ours, and a Ctrl-C in the terminal stops it too.)
   */
  processGroup?: boolean;
  /** Where it runs (the project's root unless given: another checkout, for an A/B). */
  cwd?: string;
};

/**
 * Runs `node --import tsx <args>` from the project's root with process.env and `env`: one process, which gets
 * our signals itself. (The `tsx` command runs node as its child and relays a signal only if the child answers
 * within 30 ms; a child busy for longer, as on a loaded machine, is killed and the command exits 143.)
 */
export function startTsx(name: string, args: string[], env: Record<string, string>, options: ChildOptions = {}): Child {
  return startChild(name, process.execPath, ["--import", "tsx", ...args], env, options);
}

/** Runs `command <args>` from the project's root with process.env and `env`. */
export function startChild(name: string, command: string, args: string[], env: Record<string, string>, options: ChildOptions = {}): Child {
  const { stopGraceMs = 10_000, processGroup = false, cwd = root } = options;
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: processGroup,
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const signal = (sig: NodeJS.Signals) => {
    if (child.pid === undefined || exited()) return;
    try {
      process.kill(processGroup ? -child.pid : child.pid, sig);
    } catch {
      // already gone
    }
  };
  return {
    name,
    child,
    output: () => output,
    exited,
    exit,
    stop: async () => {
      if (exited()) return;
      const killer = setTimeout(() => signal("SIGKILL"), stopGraceMs);
      signal("SIGTERM");
      await exit;
      clearTimeout(killer);
    },
  };
}

/** Waits until `check` holds (a throw counts as not yet); fails, with the child's output, if it exits first or time runs out. */
export async function waitUntil(child: Child, check: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000, everyMs = 100) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exited()) throw new Error(`${child.name} exited before ${what}:\n${child.output()}`);
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return;
    if (Date.now() > deadline) throw new Error(`${child.name}: no ${what} within ${timeoutMs / 1000} s:\n${child.output()}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export type AppServer = Child & { port: number; baseUrl: string; adminUrl: string };

export type ProcessName = "web" | "worker";

/**
 * V8 flags of each production process (ADR 020). Left to itself, V8 on a machine with gigabytes free lets the
 * old generation grow to about four times what survived the last full collection before it collects again:
 * the web process, with 35-50 MB live, held 120-280 MB of V8 heap (most of it garbage) under load, and 350-500
 * MB RSS in all. Growing by 50% instead keeps the garbage in proportion to the live data (full collections of a
 * heap this size take tens of milliseconds, and come a few seconds apart under load); a young generation of
 * 2 × 4 MB rather than 2 × 16 MB, where each request's garbage dies, saves another 24 MB (4 rather than 8: the
 * same CPU per request in bench:memory, 11 MB less at its peak). The worker keeps 16 MB: it allocates a row per
 * event, and with 8 MB half its CPU went to collecting (bench:ingest). No hard limit: a process whose live data
 * outgrew one would crash instead of growing.
 */
const NODE_FLAGS: Record<ProcessName, string[]> = {
  web: ["--max-semi-space-size=16", "--heap-growing-percent=50"],
  worker: ["--max-semi-space-size=16", "--heap-growing-percent=50"],
};

/**
 * Node flags added to every web process (SOKO_WEB_NODE_FLAGS) or worker (SOKO_WORKER_NODE_FLAGS) started from
 * here, for profiling a benchmark's processes (node refuses --cpu-prof in NODE_OPTIONS): "--cpu-prof
 * --cpu-prof-dir=/tmp/prof" (a profile per process, written as it stops) or "--perf-basic-prof" (JavaScript
 * names for Linux perf). See docs/benchmarks.md.
 */
const extraFlags = (name: ProcessName) => (process.env[name === "web" ? "SOKO_WEB_NODE_FLAGS" : "SOKO_WORKER_NODE_FLAGS"] ?? "").split(" ").filter(Boolean);

/**
 * How production runs the web server or the worker: node on the compiled JavaScript (scripts/lib/compile.ts),
 * with the flags above, and glibc's malloc held to two arenas (by default it keeps up to eight per core for
 * the threads that allocate: zlib, libvips and DNS work on libuv's pool, each arena keeping the memory it
 * once needed). `npm start`, the end-to-end tests' server and the benchmarks start them from here; `env`
 * (the caller's) wins over these defaults.
 */
export function compiledProcess<Env extends Record<string, string | undefined>>(name: ProcessName, env: Env) {
  // More than one (WEB_PROCESSES, WORKER_PROCESSES): a cluster primary that runs them with the same flags (ADR 059).
  const variable = name === "web" ? "WEB_PROCESSES" : "WORKER_PROCESSES";
  const count = parseProcessCount(env[variable] ?? process.env[variable]);
  const entry = count !== null && count > 1 ? [compiledCluster, name] : [name === "web" ? compiledServer : compiledWorker];
  return {
    command: process.execPath,
    args: [...NODE_FLAGS[name], ...extraFlags(name), ...entry],
    /** The script and its arguments, without the flags. */
    entry,
    env: { MALLOC_ARENA_MAX: "2", ...env },
  };
}

/**
 * What runs a process: the compiled JavaScript as production does; the same without the memory settings
 * above (node's defaults, for A/B benchmarks); or its TypeScript under tsx (the way before ADR 020).
 */
export type Runtime = "compiled" | "compiled-defaults" | "tsx";

/** Starts the web server or the worker (compiling first if a source changed since build/processes/ was made). */
export async function startProcess(
  name: ProcessName,
  env: Record<string, string>,
  options: ChildOptions & { runtime?: Runtime; label?: string } = {},
): Promise<Child> {
  const { runtime = "compiled", label = name, ...childOptions } = options;
  if (runtime === "tsx") return startTsx(label, [name === "web" ? "server.ts" : "worker/index.ts"], env, childOptions);
  await ensureCompiled();
  const run = compiledProcess(name, env);
  if (runtime === "compiled-defaults") return startChild(label, run.command, run.entry, env, childOptions);
  return startChild(label, run.command, run.args, run.env, childOptions);
}

export type AppServerOptions = ChildOptions & {
  /** How long to wait for /healthz: 60 s unless said (seen taking 45 s with other suites on the same 2 cores). */
  timeoutMs?: number;
  /** The host name in baseUrl (browsers know admin.localhost, so tests use localhost). */
  host?: string;
  /** What its messages call it. */
  name?: string;
  /** Compiled JavaScript as production runs it (the default), or server.ts under tsx. */
  runtime?: Runtime;
};

/**
 * Starts the built app (the compiled server with NODE_ENV=production over plain http, as `npm start` runs it)
 * on a free port with `env` (which may override ALLOW_HTTP), and waits for GET /healthz to answer 200. Stops
 * it again and fails with its output if it exits or does not answer in time.
 */
export async function startAppServer(env: Record<string, string>, options: AppServerOptions = {}): Promise<AppServer> {
  const { timeoutMs = 60_000, host = "localhost", name = "web server", runtime, ...childOptions } = options;
  if (!fs.existsSync(path.join(root, "build", "server", "index.js"))) {
    throw new Error("build/ is missing: run `npm run build` (npm test does it) before the end-to-end tests");
  }
  const port = await freePort();
  const server = await startProcess("web", { NODE_ENV: "production", ALLOW_HTTP: "1", ...env, PORT: String(port) }, { ...childOptions, runtime, label: name });
  const baseUrl = `http://${host}:${port}`;
  try {
    const healthy = async () => (await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(2_000) })).status === 200;
    await waitUntil(server, healthy, "answer 200 to GET /healthz", timeoutMs);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { ...server, port, baseUrl, adminUrl: `http://admin.localhost:${port}` };
}
