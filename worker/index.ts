/**
 * The worker process: consumes the analytics queue into ClickHouse and runs the timed jobs (order
 * auto-complete, clearance, payment polls). Those arrive with their issues; today it connects to Redis
 * and ClickHouse, reports ready, and shuts down cleanly.
 */
import { loadEnvOrExit, onShutdown } from "../app/utils/process.server";

const env = loadEnvOrExit();

import { startWorker } from "./worker.server";

const worker = await startWorker(env).catch((error: Error) => {
  console.error(`[worker] could not start: ${error.message}`);
  process.exit(1);
});

onShutdown("worker", () => worker.close(), { forceAfterMs: 15_000 });
