/**
 * The worker process: every background activity of worker/jobs.server.ts (the analytics ingest, the mail
 * outbox, the after-commit effects, the order timers, housekeeping and the reports' rollups). On SIGTERM/SIGINT
 * it stops taking work, finishes what it holds (the ingest inserts its batch), and exits; what it could not
 * finish is taken again by the next worker (ADR 037).
 */
// The environment is checked before anything else runs; a bad one stops here with every problem listed.
import { env } from "../app/server/checked-env.server";
import cluster from "node:cluster";
import { maskUrlCredentials } from "../app/utils/mask-url";
import { onShutdown } from "../app/server/process.server";
import { tellPrimary } from "../app/server/cluster/sticky.server";
import { startWorker } from "./worker.server";
import { log } from "../app/server/log.server";
import { startMetricsServer } from "../app/server/metrics.server";

const starting = startWorker(env).then((worker) => {
  // Under a cluster primary (WORKER_PROCESSES > 1, ADR 059), a rolling restart waits for this before stopping the old one.
  tellPrimary({ type: "soko:ready" });
  return worker;
});
starting.catch((error: Error) => {
  log.error(maskUrlCredentials(`[worker] could not start: ${error.message}`));
  process.exit(1);
});

// Listening for SIGTERM from the first moment: a stop that comes while the worker is still connecting waits
// for it to be up, then closes it like any other stop (rather than Node's default: exit 143 at once).
onShutdown("worker", async () => (await starting).close(), { forceAfterMs: 15_000 });

// Metrics on their own port (ADR 057; it holds no process open); a cluster's primary serves its children's instead.
if (cluster.isPrimary) void startMetricsServer({ port: env.WORKER_METRICS_PORT, host: env.METRICS_HOST });
