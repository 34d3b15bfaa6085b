/**
 * `npm start` after scripts/setup.mjs: migrates (loading demo data into an empty local database),
 * builds (Remix's bundle, and the web server and worker compiled to JavaScript), and runs the two side by side
 * until Ctrl-C, restarting either one that crashes (scripts/supervise.ts). `--dev` runs their TypeScript
 * through tsx, the web server with Vite's middleware instead of the build.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { LOCAL_URLS } from "~/utils/local-services";
import { MAX_PROCESSES, parseProcessCount } from "~/utils/process-count";
import { DEMO_ACCOUNTS, DEMO_PASSWORD } from "./lib/seed";
import { bin, buildApp, root } from "./build";
import { compiledProcess } from "./lib/servers";
import { supervise } from "./supervise";

/** The environment `npm start` gives the web server, the worker and the migrations. */
export function startEnv(source: Record<string, string | undefined>, { dev = false } = {}): NodeJS.ProcessEnv {
  const embedded = !source.DATABASE_URL;
  return {
    ...source,
    NODE_ENV: (source.NODE_ENV ?? (dev ? "development" : "production")) as NodeJS.ProcessEnv["NODE_ENV"],
    // This machine only, unless HOST says otherwise (HOST=0.0.0.0 to show the site to another device):
    // the demo accounts, and the outbox page's reset links, are not for the rest of the network.
    HOST: source.HOST ?? "127.0.0.1",
    // `--dev`: log lines for a person to read (pino-pretty); JSON lines otherwise (ADR 057).
    ...(dev ? { LOG_FORMAT: source.LOG_FORMAT ?? "pretty" } : {}),
    // The embedded services are a local machine, never production: serve over http, show demo data, and
    // show the mails the site "sent" (password-reset links) at /dev/outbox to this machine's browser,
    // while no SMTP server is set.
    ...(embedded
      ? {
          SEED_DEMO: source.SEED_DEMO ?? "1",
          ALLOW_HTTP: source.ALLOW_HTTP ?? "1",
          DEV_OUTBOX: source.DEV_OUTBOX ?? "1",
          // No MTN or Airtel credentials on a local machine: payments go to the sandbox, approved by hand.
          PAYMENTS_SANDBOX: source.PAYMENTS_SANDBOX ?? "1",
        }
      : {}),
    DATABASE_URL: source.DATABASE_URL ?? LOCAL_URLS.DATABASE_URL,
    REDIS_URL: source.REDIS_URL ?? LOCAL_URLS.REDIS_URL,
    CLICKHOUSE_URL: source.CLICKHOUSE_URL ?? LOCAL_URLS.CLICKHOUSE_URL,
  };
}

function main() {
  const dev = process.argv.includes("--dev");
  const env = startEnv(process.env, { dev });
  const port = env.PORT ?? "3000";
  const host = env.HOST === "127.0.0.1" || env.HOST === "0.0.0.0" || env.HOST === "::" ? "localhost" : env.HOST;

  // WEB_PROCESSES and WORKER_PROCESSES (ADR 059): each above 1 runs a cluster primary with that many children.
  const counts = { web: parseProcessCount(env.WEB_PROCESSES), worker: parseProcessCount(env.WORKER_PROCESSES) };
  for (const [name, count] of Object.entries(counts)) {
    if (count === null) {
      console.error(`[start] ${name === "web" ? "WEB_PROCESSES" : "WORKER_PROCESSES"} must be a whole number from 1 to ${MAX_PROCESSES}, or auto`);
      process.exit(1);
    }
  }
  if (dev && (counts.web !== 1 || counts.worker !== 1)) console.error("[start] --dev runs one web process and one worker (Vite reloads the one)");

  execFileSync(bin("tsx"), ["scripts/migrate.ts", "--seed"], { cwd: root, env, stdio: "inherit" });
  if (!dev && buildApp({ env }) !== 0) process.exit(1);

  // Production runs the compiled JavaScript with its memory settings (ADR 020); `--dev` runs the TypeScript
  // through tsx, with Vite's middleware in the web server.
  const programs = dev
    ? [
        { name: "web", command: bin("tsx"), args: ["server.ts"], env },
        { name: "worker", command: bin("tsx"), args: ["worker/index.ts"], env },
      ]
    : (["web", "worker"] as const).map((name) => ({ name, ...compiledProcess(name, env) }));
  const supervisor = supervise(programs, { cwd: root, env });

  // The sandbox stands in for MTN and Airtel: say so, or a tester waits for a phone prompt that never comes.
  const sandbox = /^\s*(1|true|yes|on)\s*$/i.test(env.PAYMENTS_SANDBOX ?? "");
  console.log(`
  Soko is starting.
    Marketplace:  http://${host}:${port}
    Admin portal: http://admin.${host}:${port}
  Demo logins (password "${DEMO_PASSWORD}"):
    admin       ${DEMO_ACCOUNTS.admin.email}
    client      ${DEMO_ACCOUNTS.client.email}
    freelancer  ${DEMO_ACCOUNTS.freelancer.email}
  Processes: ${dev ? "1 web, 1 worker" : `${counts.web} web, ${counts.worker} worker${counts.worker === 1 ? "" : "s"}`} (WEB_PROCESSES, WORKER_PROCESSES; SIGHUP to a cluster's primary restarts its processes one at a time).
${sandbox ? "  Payments: sandbox (approve or decline at /dev/pay/<reference>, linked from each order's payment page).\n" : ""}  A process that crashes is restarted. Ctrl-C stops the web processes and the workers;
  \`npm run services:stop\` stops the databases.
`);

  const stop = () => {
    console.error("[start] stopping the web server and the worker");
    void supervisor.stop("SIGTERM").then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) main();
