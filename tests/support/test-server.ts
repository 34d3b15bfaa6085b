/**
 * Starts the built app (NODE_ENV=production, the same code `npm start` runs) as a child process on a
 * free port, against the databases a test chooses, and stops it again. The process handling is the
 * benchmarks' too (scripts/lib/servers.ts); this adds the test run's own services as the default.
 */
import { getEnv } from "~/server/env.server";
import { startAppServer, type AppServer } from "../../scripts/lib/servers";

export { freePort } from "../../scripts/lib/servers";

export type TestServer = AppServer;

export function startTestServer(env: Record<string, string>): Promise<TestServer> {
  const base = getEnv();
  // The page cache is off unless a test turns it on (tests/integration/page-cache.test.ts): many tests arrange
  // rows with SQL between two page loads, which no operation's drop of the cache would see.
  return startAppServer({ DATABASE_URL: base.DATABASE_URL, REDIS_URL: base.REDIS_URL, CLICKHOUSE_URL: base.CLICKHOUSE_URL, PAGE_CACHE: "off", ...env });
}
