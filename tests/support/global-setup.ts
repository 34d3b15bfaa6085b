import { randomBytes } from "node:crypto";
import { createClickHouse, clickHouseOptions } from "~/analytics/clickhouse.server";
import { getEnv } from "~/server/env.server";
import { migrateClickHouse } from "../../scripts/lib/migrate";
import { ensureChdb } from "./clickhouse-engines";
import { RUN_CLICKHOUSE_DB, prepareTemplate } from "./databases";

/**
 * Once per test run: a freshly migrated template database that test files copy, and a migrated ClickHouse
 * database for the run. A test server started without a ClickHouse database of its own reads that one, never
 * the developer's `soko` (which a fresh machine, CI, does not even have until `npm start` migrates it).
 * Workers start after this and inherit the environment.
 */
export default async function setup() {
  // Rate limits and upload quotas are counted in Redis by member id under QUEUE_PREFIX, and every test
  // database numbers its members from 1: each run counts under its own prefix (a file may still take its
  // own, ownQueuePrefix), so other runs' uploads today never count against this run's members.
  process.env.QUEUE_PREFIX = `t_run_${process.pid}_${randomBytes(3).toString("hex")}`;
  // The servers and workers tests start serve no metrics (two at once would want the same port), unless a
  // test asks for them on a port of its own (tests/integration/logs-and-metrics.test.ts).
  process.env.METRICS_PORT = "off";
  process.env.WORKER_METRICS_PORT = "off";
  ensureChdb();
  await prepareTemplate();
  const options = clickHouseOptions(getEnv(), RUN_CLICKHOUSE_DB);
  const clickhouse = createClickHouse(clickHouseOptions(getEnv(), "default"));
  try {
    await clickhouse.command({ query: `DROP DATABASE IF EXISTS ${RUN_CLICKHOUSE_DB}` });
  } finally {
    await clickhouse.close();
  }
  await migrateClickHouse(options);
  process.env.CLICKHOUSE_DATABASE = RUN_CLICKHOUSE_DB;
}
