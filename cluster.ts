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
import { log } from "./app/server/log.server";
import { startMetricsServer } from "./app/server/metrics.server";

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
  log: (line) => log.info(`[${name} primary] ${line}`),
})
  // The children's metrics, summed, on the port one process alone would serve them on (ADR 057).
  .then(() => startMetricsServer({ port: name === "web" ? env.METRICS_PORT : env.WORKER_METRICS_PORT, host: env.METRICS_HOST, cluster: true }))
  .catch((error: Error) => {
    log.error(`[${name} primary] could not start: ${error.message}`);
    process.exit(1);
  });
