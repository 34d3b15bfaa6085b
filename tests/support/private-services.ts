/**
 * A Redis and a ClickHouse of a test's own: started from data folders the test chooses, on free ports,
 * stopped and started again by the pid the test holds. For tests that must take a service down (the
 * analytics no-loss test); everyone else uses the shared services of `npm run services:start`, which
 * these never touch. The command lines and configuration are those of scripts/services.ts.
 *
 * Each server runs in the foreground as a child of the test process. Whatever happens to the test, a
 * server still running when the process exits is killed by its pid (see `running` below).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { clickhouseBinary, redisServerArgs, writeClickHouseConfig } from "../../scripts/services";
import { freePort } from "./test-server";

export type PrivateService = {
  /** The URL for REDIS_URL or CLICKHOUSE_URL. */
  url: string;
  port: number;
  /** Where the server keeps its files; a restart keeps them. */
  dir: string;
  /** The pid of the running server, or null while it is stopped. */
  pid: () => number | null;
  /** Starts the server (again, on the same port and files) and resolves once it answers. */
  start: () => Promise<void>;
  /** Sends `signal` to the server's pid and resolves once it has exited (SIGKILL after `killAfterMs`). */
  stop: (signal?: NodeJS.Signals, killAfterMs?: number) => Promise<void>;
};

/** Servers this process started and has not seen exit: killed by pid if the process exits first. */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) {
    try {
      if (child.pid) process.kill(child.pid, "SIGKILL");
    } catch {
      /* already gone */
    }
  }
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitUntil(what: string, check: () => Promise<boolean>, child: ChildProcess, timeoutMs: number, log: string) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${what} exited while starting (${child.exitCode ?? child.signalCode}); see ${log}:\n${tail(log)}`);
    }
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`${what} did not answer within ${timeoutMs / 1000} s; see ${log}:\n${tail(log)}`);
    await sleep(50);
  }
}

function tail(file: string, lines = 20) {
  try {
    return fs.readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

/** One server process: spawned in the foreground, its pid held, stopped by that pid. */
function managedServer({
  name,
  command,
  args,
  cwd,
  log,
  ready,
  startTimeoutMs,
}: {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  log: string;
  ready: () => Promise<boolean>;
  startTimeoutMs: number;
}) {
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();

  return {
    pid: () => (child && child.exitCode === null && child.signalCode === null ? (child.pid ?? null) : null),
    async start() {
      if (child && child.exitCode === null && child.signalCode === null) throw new Error(`${name} is already running`);
      const out = fs.openSync(log, "a");
      const started = spawn(command, args, { cwd, stdio: ["ignore", out, out] });
      fs.closeSync(out);
      child = started;
      running.add(started);
      exited = new Promise<void>((resolve) => {
        started.once("exit", () => {
          running.delete(started);
          resolve();
        });
        started.once("error", () => {
          running.delete(started);
          resolve();
        });
      });
      await waitUntil(name, ready, started, startTimeoutMs, log);
    },
    async stop(signal: NodeJS.Signals = "SIGTERM", killAfterMs = 15_000) {
      const current = child;
      if (!current?.pid || current.exitCode !== null || current.signalCode !== null) return;
      process.kill(current.pid, signal);
      const timer = setTimeout(() => {
        try {
          process.kill(current.pid!, "SIGKILL");
        } catch {
          /* gone meanwhile */
        }
      }, killAfterMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** True when a Redis on the port answers PING with PONG (not LOADING while it reads its append-only file). */
function redisPong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    let answer = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (d) => {
      answer += d.toString();
      if (answer.includes("\r\n")) done(answer.startsWith("+PONG"));
    });
  });
}

/**
 * A Redis of the caller's own in `dir`: append-only file on and fsynced at every write, so a job Redis
 * has acknowledged survives a stop and start (as `npm run services:start` runs it, but "always" instead of
 * "everysec", which could lose the last second on a crash).
 */
export async function startPrivateRedis(dir: string): Promise<PrivateService> {
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const server = managedServer({
    name: `private redis on :${port}`,
    command: "redis-server",
    args: redisServerArgs({ dir, port, pidFile: path.join(dir, "redis.pid"), daemonize: false, appendfsync: "always" }),
    cwd: dir,
    log: path.join(dir, "redis.log"),
    ready: () => redisPong(port),
    startTimeoutMs: 30_000,
  });
  await server.start();
  return { url: `redis://127.0.0.1:${port}`, port, dir, ...server };
}

/** A ClickHouse of the caller's own in `dir`, configured as scripts/services.ts configures the shared one. */
export async function startPrivateClickHouse(dir: string): Promise<PrivateService> {
  fs.mkdirSync(dir, { recursive: true });
  const httpPort = await freePort();
  let tcpPort = await freePort();
  while (tcpPort === httpPort) tcpPort = await freePort();
  writeClickHouseConfig(dir, httpPort, tcpPort);
  const [bin, pre] = clickhouseBinary();
  const url = `http://127.0.0.1:${httpPort}`;
  const server = managedServer({
    name: `private clickhouse on :${httpPort}`,
    command: bin,
    args: [...pre, `--config-file=${path.join(dir, "config.xml")}`],
    cwd: dir,
    log: path.join(dir, "stdout.log"),
    ready: async () => {
      try {
        return (await fetch(`${url}/ping`, { signal: AbortSignal.timeout(1000) })).ok;
      } catch {
        return false;
      }
    },
    startTimeoutMs: 60_000,
  });
  await server.start();
  return { url, port: httpPort, dir, ...server };
}
