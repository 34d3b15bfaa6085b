/**
 * The worker process: consumes the analytics queue into ClickHouse in batches (ingest-consumer.server.ts) and runs
 * the timed jobs (housekeeping, and the order timers: payment and payout polls, auto-complete, clearance). On
 * SIGTERM/SIGINT it stops taking jobs, inserts what it holds, and exits; a job it could not finish goes
 * back to the queue (or, if the process is killed, is run again by the next worker once its lock expires).
 */
// The environment is checked before anything else runs; a bad one stops here with every problem listed.
import { env } from "../app/server/checked-env.server";
import { maskUrlCredentials } from "../app/utils/mask-url";
import { onShutdown } from "../app/server/process.server";
import { startWorker } from "./worker.server";

const starting = startWorker(env).catch((error: Error) => {
  console.error(maskUrlCredentials(`[worker] could not start: ${error.message}`));
  process.exit(1);
});

// Listening for SIGTERM from the first moment: a stop that comes while the worker is still connecting waits
// for it to be up, then closes it like any other stop (rather than Node's default: exit 143 at once).
onShutdown("worker", async () => (await starting).close(), { forceAfterMs: 15_000 });
