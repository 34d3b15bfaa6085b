import { parseEnv, type Env } from "./env.server";
import { log } from "./log.server";

/** For the top of a process's entry file: the parsed environment, or every problem listed and exit 1. */
export function loadEnvOrExit(): Env {
  try {
    return parseEnv(process.env);
  } catch (error) {
    // Plain text on stderr, not a log line: the logger's own settings (LOG_LEVEL) may be what is wrong, and
    // the list of problems reads best as it is.
    console.error((error as Error).message);
    process.exit(1);
  }
}

/**
 * Runs `close` once on SIGTERM or SIGINT, then exits 0; exits 1 if closing takes longer than `forceAfterMs`.
 * `name` prefixes the log lines ("[web] SIGTERM: closing", "[web] closed").
 */
export function onShutdown(name: string, close: () => Promise<unknown>, { forceAfterMs = 10_000 } = {}) {
  let closing = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    log.info(`[${name}] ${signal}: closing`);
    setTimeout(() => process.exit(1), forceAfterMs).unref();
    await close();
    log.info(`[${name}] closed`);
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}
