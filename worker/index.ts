/**
 * The worker process: consumes the analytics queue into ClickHouse and runs the timed jobs (order
 * auto-complete, clearance, payment polls). Those arrive with their issues; today it connects to Redis
 * and ClickHouse, reports ready, and shuts down cleanly.
 */
import { parseEnv } from "../app/utils/env.server";

let env: ReturnType<typeof parseEnv>;
try {
  env = parseEnv(process.env);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

import { startWorker } from "./worker.server";

const worker = await startWorker(env).catch((error: Error) => {
  console.error(`[worker] could not start: ${error.message}`);
  process.exit(1);
});

let closing = false;
async function shutdown(signal: string) {
  if (closing) return;
  closing = true;
  console.log(`[worker] ${signal}: closing`);
  const force = setTimeout(() => process.exit(1), 15_000);
  force.unref();
  await worker.close();
  console.log("[worker] closed");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
