/**
 * `npm start` after scripts/setup.mjs: migrates (loading demo data into an empty local database),
 * builds, and runs the web server and the worker side by side until Ctrl-C. `--dev` runs the web
 * server with Vite's middleware instead of the build.
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { LOCAL_URLS } from "~/utils/local-services";
import { DEMO_ACCOUNTS, DEMO_PASSWORD } from "~/utils/seed.server";
import { bin, buildApp, root } from "./build";

const dev = process.argv.includes("--dev");
const embedded = !process.env.DATABASE_URL;

const env: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_ENV: process.env.NODE_ENV ?? (dev ? "development" : "production"),
  // The embedded services are a local machine, never production: serve over http, show demo data, and
  // show the mails the site "sent" (password-reset links) at /dev/outbox, since no SMTP server is set.
  ...(embedded
    ? { SEED_DEMO: process.env.SEED_DEMO ?? "1", ALLOW_HTTP: process.env.ALLOW_HTTP ?? "1", DEV_OUTBOX: process.env.DEV_OUTBOX ?? "1" }
    : {}),
  DATABASE_URL: process.env.DATABASE_URL ?? LOCAL_URLS.DATABASE_URL,
  REDIS_URL: process.env.REDIS_URL ?? LOCAL_URLS.REDIS_URL,
  CLICKHOUSE_URL: process.env.CLICKHOUSE_URL ?? LOCAL_URLS.CLICKHOUSE_URL,
};
const port = env.PORT ?? "3000";

execFileSync(bin("tsx"), ["scripts/migrate.ts", "--seed"], { cwd: root, env, stdio: "inherit" });
if (!dev && buildApp({ env }) !== 0) process.exit(1);

const children: ChildProcess[] = [
  spawn(bin("tsx"), ["server.ts"], { cwd: root, env, stdio: "inherit" }),
  spawn(bin("tsx"), ["worker/index.ts"], { cwd: root, env, stdio: "inherit" }),
];

console.log(`
  Soko is starting.
    Marketplace:  http://localhost:${port}
    Admin portal: http://admin.localhost:${port}
  Demo logins (password "${DEMO_PASSWORD}"):
    admin       ${DEMO_ACCOUNTS.admin.email}
    client      ${DEMO_ACCOUNTS.client.email}
    freelancer  ${DEMO_ACCOUNTS.freelancer.email}
  Ctrl-C stops the web server and the worker; \`npm run services:stop\` stops the databases.
`);

let stopping = false;
function stop(signal: NodeJS.Signals) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill(signal);
}
process.on("SIGINT", () => stop("SIGTERM"));
process.on("SIGTERM", () => stop("SIGTERM"));
for (const child of children) {
  child.on("exit", (code) => {
    // One process ending ends both: a half-running marketplace is worse than a stopped one.
    if (!stopping) {
      console.error(`[start] a process exited with code ${code}; stopping the other`);
      stop("SIGTERM");
    }
    if (children.every((c) => c.exitCode !== null || c.signalCode !== null)) process.exit(code ?? 0);
  });
}
