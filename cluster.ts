/**
 * `node build/processes/cluster.js web|worker`: the primary of WEB_PROCESSES web processes or WORKER_PROCESSES
 * workers (ADR 059). It checks the environment as the children will, forks them (each runs the compiled
 * server.js or worker.js with this process's Node flags) and keeps them running; see
 * app/server/cluster/primary.server.ts. A count of 1 needs no primary: scripts/lib/servers.ts then runs the
 * process itself.
 */
import { env } from "./app/server/checked-env.server";
import { fileURLToPath } from "node:url";
import { startPrimary } from "./app/server/cluster/primary.server";

const name = process.argv[2];
if (name !== "web" && name !== "worker") {
  console.error("usage: cluster.js web|worker");
  process.exit(2);
}
// Beside this file once compiled (build/processes/): import.meta.url is rewritten to this source's URL.
const exec = fileURLToPath(new URL(`build/processes/${name === "web" ? "server" : "worker"}.js`, import.meta.url));

startPrimary({
  name,
  count: name === "web" ? env.WEB_PROCESSES : env.WORKER_PROCESSES,
  exec,
  execArgv: process.execArgv,
  listen: name === "web" ? { port: env.PORT, host: env.HOST } : undefined,
}).catch((error: Error) => {
  console.error(`[${name} primary] could not start: ${error.message}`);
  process.exit(1);
});
