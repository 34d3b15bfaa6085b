/**
 * The project's own Postgres, Redis and ClickHouse, run from data folders under .data/ on their own
 * ports (the zero-configuration default; docs/decisions/002-embedded-services.md).
 *
 *   tsx scripts/services.ts start|stop|status
 *
 * A service already answering on its port is reused, whichever checkout started it. A service whose URL is set in the environment (DATABASE_URL, REDIS_URL, CLICKHOUSE_URL) is not
 * started: that server is used as it is. A missing Debian package is installed with apt-get when we
 * are root; otherwise we say exactly what to install and stop.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { LOCAL_PORTS } from "../app/utils/local-services";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dataDir = path.resolve(process.env.SOKO_DATA_DIR ?? path.join(root, ".data"));
const isRoot = process.getuid?.() === 0;

type Service = "postgres" | "redis" | "clickhouse";
const URL_VARS: Record<Service, string> = {
  postgres: "DATABASE_URL",
  redis: "REDIS_URL",
  clickhouse: "CLICKHOUSE_URL",
};

function log(message: string) {
  console.log(`[services] ${message}`);
}

// ---------------------------------------------------------------------------------------------
// Debian packages

function findPostgresBin(): string | undefined {
  const base = "/usr/lib/postgresql";
  if (!fs.existsSync(base)) return undefined;
  const versions = fs
    .readdirSync(base)
    .filter((v) => fs.existsSync(path.join(base, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(base, versions[0], "bin") : undefined;
}

function hasCommand(name: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" }).status === 0;
}

const PACKAGES: Record<string, () => boolean> = {
  postgresql: () => findPostgresBin() !== undefined,
  "redis-server": () => hasCommand("redis-server"),
  "clickhouse-server": () => fs.existsSync("/usr/bin/clickhouse") || hasCommand("clickhouse-server"),
  // bench:reports times the raw queries with the server's own native client.
  "clickhouse-client": () => hasCommand("clickhouse-client"),
  chromium: () => fs.existsSync("/usr/bin/chromium"),
  "docker-compose": () => hasCommand("docker-compose"),
};

/** Installs the Debian packages that are missing, or explains how and exits. */
export function ensurePackages(names: string[]) {
  const missing = names.filter((n) => !PACKAGES[n]?.());
  if (missing.length === 0) return;
  const command = `apt-get update && apt-get install -y --no-install-recommends ${missing.join(" ")}`;
  if (!isRoot || !hasCommand("apt-get")) {
    console.error(
      `[services] Missing Debian packages: ${missing.join(", ")}.\n` +
        `Install them with:\n  sudo sh -c '${command}'\n` +
        `or set DATABASE_URL, REDIS_URL and CLICKHOUSE_URL to servers you run yourself.`,
    );
    process.exit(1);
  }
  log(`installing ${missing.join(", ")} with apt-get (once per machine)`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("sh", ["-c", command], { stdio: ["ignore", "inherit", "inherit"], env });
  const still = missing.filter((n) => !PACKAGES[n]?.());
  if (still.length) throw new Error(`apt-get finished but these are still missing: ${still.join(", ")}`);
}

// ---------------------------------------------------------------------------------------------
// Helpers

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${what} did not become ready within ${timeoutMs / 1000} s`);
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(file, "utf8").split("\n")[0]?.trim());
    if (!Number.isInteger(pid) || pid <= 0) return undefined;
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/** Runs a Postgres binary: as the postgres user when we are root (Postgres refuses root). */
function pgExec(bin: string, args: string[], opts: { stdio?: "inherit" | "ignore" | "pipe" } = {}) {
  const pgBin = findPostgresBin();
  if (!pgBin) throw new Error("postgresql is not installed");
  const full = path.join(pgBin, bin);
  const [cmd, cmdArgs] = isRoot ? ["runuser", ["-u", "postgres", "--", full, ...args]] : [full, args];
  return execFileSync(cmd, cmdArgs, { stdio: opts.stdio ?? "pipe", encoding: "utf8" });
}

// ---------------------------------------------------------------------------------------------
// Postgres

const pg = {
  dir: path.join(dataDir, "postgres"),
  get pidFile() {
    return path.join(this.dir, "postmaster.pid");
  },
  /** Whether a Postgres we can use answers on our port (ours, or another checkout's of this project). */
  answers() {
    const pgBin = findPostgresBin();
    if (!pgBin) return false;
    const result = spawnSync(
      path.join(pgBin, "psql"),
      ["-h", "127.0.0.1", "-p", String(LOCAL_PORTS.postgres), "-U", "postgres", "-d", "postgres", "-tAc", "SELECT 1"],
      { encoding: "utf8", timeout: 5000 },
    );
    return result.status === 0 && result.stdout.trim() === "1";
  },
  async start() {
    if (this.answers()) {
      log(`postgres already running on 127.0.0.1:${LOCAL_PORTS.postgres}`);
      return;
    }
    if (await portOpen(LOCAL_PORTS.postgres)) {
      throw new Error(`port ${LOCAL_PORTS.postgres} is taken by another program; stop it or set DATABASE_URL`);
    }
    fs.mkdirSync(dataDir, { recursive: true });
    if (!fs.existsSync(path.join(this.dir, "PG_VERSION"))) {
      log("initialising a Postgres cluster in .data/postgres");
      fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      if (isRoot) execFileSync("chown", ["-R", "postgres:postgres", this.dir]);
      pgExec("initdb", ["-D", this.dir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"]);
    }
    const logFile = path.join(dataDir, "postgres.log");
    if (isRoot) {
      fs.closeSync(fs.openSync(logFile, "a"));
      execFileSync("chown", ["postgres:postgres", logFile]);
    }
    log(`starting postgres on 127.0.0.1:${LOCAL_PORTS.postgres}`);
    pgExec("pg_ctl", [
      "-D",
      this.dir,
      "-l",
      logFile,
      "-w",
      "-t",
      "60",
      "-o",
      // TCP on loopback only; no Unix socket, so we never collide with a system cluster's socket. pg_stat_statements
      // is loaded but counts nothing (counting cost Postgres a tenth more per chat message) unless a database asks:
      // bench:chat --statements turns it on for its own throwaway database.
      `-p ${LOCAL_PORTS.postgres} -h 127.0.0.1 -k '' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=none`,
      "start",
    ]);
    await waitFor("postgres", () => portOpen(LOCAL_PORTS.postgres));
  },
  async ensureDatabase(name: string) {
    const psql = path.join(findPostgresBin()!, "psql");
    const args = ["-h", "127.0.0.1", "-p", String(LOCAL_PORTS.postgres), "-U", "postgres", "-d", "postgres", "-tAc"];
    const exists = execFileSync(psql, [...args, `SELECT 1 FROM pg_database WHERE datname = '${name}'`], {
      encoding: "utf8",
    }).trim();
    if (exists !== "1") {
      execFileSync(psql, [...args, `CREATE DATABASE "${name}"`]);
      log(`created database ${name}`);
    }
  },
  stop() {
    if (!readPid(this.pidFile)) return false;
    pgExec("pg_ctl", ["-D", this.dir, "-m", "fast", "-w", "stop"], { stdio: "ignore" });
    return true;
  },
};

// ---------------------------------------------------------------------------------------------
// Redis (append-only file on, so queued analytics jobs survive a restart)

/**
 * The redis-server command line of a server on 127.0.0.1:`port` keeping its files (append-only file,
 * log, pid file) in `dir`. `appendfsync` is "everysec" for `npm run services:*`; a test that restarts
 * Redis and must lose nothing asks for "always". `daemonize: false` keeps it in the foreground, for a
 * caller that spawns it and holds its pid.
 */
export function redisServerArgs({
  dir,
  port,
  pidFile,
  daemonize = true,
  appendfsync = "everysec",
}: {
  dir: string;
  port: number;
  pidFile: string;
  daemonize?: boolean;
  appendfsync?: "always" | "everysec" | "no";
}): string[] {
  return [
    "--daemonize",
    daemonize ? "yes" : "no",
    "--bind",
    "127.0.0.1",
    "--port",
    String(port),
    "--dir",
    dir,
    "--pidfile",
    pidFile,
    "--logfile",
    path.join(dir, "redis.log"),
    "--appendonly",
    "yes",
    "--appendfsync",
    appendfsync,
    "--save",
    "",
    // BullMQ needs keys never to be evicted.
    "--maxmemory-policy",
    "noeviction",
  ];
}

const redis = {
  dir: path.join(dataDir, "redis"),
  get pidFile() {
    return path.join(this.dir, "redis.pid");
  },
  answers() {
    const result = spawnSync("redis-cli", ["-h", "127.0.0.1", "-p", String(LOCAL_PORTS.redis), "ping"], {
      encoding: "utf8",
      timeout: 5000,
    });
    return result.status === 0 && result.stdout.trim() === "PONG";
  },
  async start() {
    if (this.answers()) {
      log(`redis already running on 127.0.0.1:${LOCAL_PORTS.redis}`);
      return;
    }
    if (await portOpen(LOCAL_PORTS.redis)) {
      throw new Error(`port ${LOCAL_PORTS.redis} is taken by another program; stop it or set REDIS_URL`);
    }
    fs.mkdirSync(this.dir, { recursive: true });
    log(`starting redis on 127.0.0.1:${LOCAL_PORTS.redis} (appendonly yes)`);
    execFileSync("redis-server", redisServerArgs({ dir: this.dir, port: LOCAL_PORTS.redis, pidFile: this.pidFile }));
    await waitFor("redis", () => portOpen(LOCAL_PORTS.redis));
  },
  stop() {
    const pid = readPid(this.pidFile);
    if (!pid) return false;
    process.kill(pid, "SIGTERM");
    return true;
  },
};

// ---------------------------------------------------------------------------------------------
// ClickHouse (Debian ships 18.16; docs/architecture.md says what it accepts)

/** The ClickHouse server binary and the arguments before `--config-file=…`. */
export function clickhouseBinary(): [string, string[]] {
  if (fs.existsSync("/usr/bin/clickhouse")) return ["/usr/bin/clickhouse", ["server"]];
  return ["clickhouse-server", []];
}

/**
 * Writes config.xml and users.xml for a ClickHouse server on 127.0.0.1:`httpPort` (HTTP) and `tcpPort`
 * (native) keeping everything (data, logs) under `dir`; start it with `--config-file=<dir>/config.xml`.
 * `max_threads` is the machine's CPU count: ClickHouse 18.16 defaults it to the *physical* cores it finds
 * through cpuid, which on some virtual machines is 1 of 2 (seen here: every report ran single-threaded,
 * 1.5–2× slower).
 */
export function writeClickHouseConfig(dir: string, httpPort: number, tcpPort: number) {
  for (const sub of ["data", "tmp", "user_files", "format_schemas"]) {
    fs.mkdirSync(path.join(dir, sub), { recursive: true });
  }
  const config = `<?xml version="1.0"?>
<yandex>
  <logger>
    <level>warning</level>
    <log>${dir}/clickhouse.log</log>
    <errorlog>${dir}/clickhouse.err.log</errorlog>
    <size>10M</size>
    <count>2</count>
  </logger>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <max_connections>512</max_connections>
  <keep_alive_timeout>30</keep_alive_timeout>
  <max_concurrent_queries>100</max_concurrent_queries>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
  <mark_cache_size>268435456</mark_cache_size>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <user_files_path>${dir}/user_files/</user_files_path>
  <format_schema_path>${dir}/format_schemas/</format_schema_path>
  <users_config>${dir}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
</yandex>
`;
  const users = `<?xml version="1.0"?>
<yandex>
  <profiles>
    <default>
      <max_memory_usage>4000000000</max_memory_usage>
      <max_threads>${os.availableParallelism()}</max_threads>
      <load_balancing>random</load_balancing>
      <allow_experimental_low_cardinality_type>1</allow_experimental_low_cardinality_type>
      <date_time_input_format>best_effort</date_time_input_format>
    </default>
  </profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas>
    <default>
      <interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval>
    </default>
  </quotas>
</yandex>
`;
  fs.writeFileSync(path.join(dir, "config.xml"), config);
  fs.writeFileSync(path.join(dir, "users.xml"), users);
}

const clickhouse = {
  dir: path.join(dataDir, "clickhouse"),
  get pidFile() {
    return path.join(this.dir, "clickhouse.pid");
  },
  async ping() {
    try {
      const res = await fetch(`http://127.0.0.1:${LOCAL_PORTS.clickhouseHttp}/ping`);
      return res.ok;
    } catch {
      return false;
    }
  },
  writeConfig() {
    writeClickHouseConfig(this.dir, LOCAL_PORTS.clickhouseHttp, LOCAL_PORTS.clickhouseTcp);
  },
  async start() {
    if (await this.ping()) {
      log(`clickhouse already running on 127.0.0.1:${LOCAL_PORTS.clickhouseHttp}`);
      return;
    }
    if (await portOpen(LOCAL_PORTS.clickhouseHttp)) {
      throw new Error(`port ${LOCAL_PORTS.clickhouseHttp} is taken by another program; stop it or set CLICKHOUSE_URL`);
    }
    this.writeConfig();
    log(`starting clickhouse on 127.0.0.1:${LOCAL_PORTS.clickhouseHttp}`);
    const [bin, pre] = clickhouseBinary();
    const out = fs.openSync(path.join(this.dir, "stdout.log"), "a");
    const child = spawn(bin, [...pre, `--config-file=${path.join(this.dir, "config.xml")}`], {
      cwd: this.dir,
      detached: true,
      stdio: ["ignore", out, out],
    });
    child.unref();
    fs.writeFileSync(this.pidFile, String(child.pid));
    await waitFor("clickhouse", () => this.ping(), 60_000);
  },
  stop() {
    const pid = readPid(this.pidFile);
    if (!pid) return false;
    process.kill(pid, "SIGTERM");
    return true;
  },
};

// ---------------------------------------------------------------------------------------------

function managed(service: Service): boolean {
  return !process.env[URL_VARS[service]];
}

export async function startServices(options: { browser?: boolean } = {}) {
  const needed: string[] = [];
  if (managed("postgres")) needed.push("postgresql");
  if (managed("redis")) needed.push("redis-server");
  if (managed("clickhouse")) needed.push("clickhouse-server");
  // The test suite's extras: a browser for the end-to-end specs, and `docker-compose config` to check the
  // compose file (no Docker engine is needed for that).
  if (options.browser) needed.push("chromium", "docker-compose");
  ensurePackages(needed);

  // Start the three side by side: ClickHouse takes the longest.
  await Promise.all([
    managed("postgres") ? pg.start().then(() => pg.ensureDatabase("soko")) : Promise.resolve(log(`postgres: using DATABASE_URL, starting nothing`)),
    managed("redis") ? redis.start() : Promise.resolve(log(`redis: using REDIS_URL, starting nothing`)),
    managed("clickhouse") ? clickhouse.start() : Promise.resolve(log(`clickhouse: using CLICKHOUSE_URL, starting nothing`)),
  ]);
}

export async function stopServices() {
  const stopped = [pg.stop() && "postgres", redis.stop() && "redis", clickhouse.stop() && "clickhouse"].filter(Boolean);
  log(stopped.length ? `stopped ${stopped.join(", ")}` : "nothing was running");
}

export async function servicesStatus() {
  return {
    postgres: pg.answers(),
    redis: redis.answers(),
    clickhouse: await clickhouse.ping(),
    pids: {
      postgres: readPid(pg.pidFile),
      redis: readPid(redis.pidFile),
      clickhouse: readPid(clickhouse.pidFile),
    },
    dataDir,
    host: os.hostname(),
  };
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const command = process.argv[2] ?? "status";
  try {
    if (command === "start") await startServices({ browser: process.argv.includes("--browser") });
    else if (command === "stop") await stopServices();
    else if (command === "status") console.log(JSON.stringify(await servicesStatus(), null, 2));
    else {
      console.error("usage: tsx scripts/services.ts start [--browser] | stop | status");
      process.exit(2);
    }
  } catch (error) {
    console.error(`[services] ${(error as Error).message}`);
    process.exit(1);
  }
}
