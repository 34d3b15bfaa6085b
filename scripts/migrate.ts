/**
 * Migrates Postgres and ClickHouse and, into an empty database, loads the demo data.
 *   tsx scripts/migrate.ts [--seed]
 * Demo data is loaded only with --seed, never when NODE_ENV=production unless SEED_DEMO=1.
 */
import { migrateClickHouse, migratePostgres } from "./lib/migrate";
import { clickHouseOptions } from "~/analytics/clickhouse.server";
import { closeDb, getDb } from "~/server/db.server";
import { getEnv } from "~/server/env.server";
import { maskUrlCredentials } from "~/utils/mask-url";
import { closeLimitRedis } from "~/server/rate-limit.server";
import { closeRedis } from "~/server/redis.server";
import { isDatabaseEmpty, seedDemoData } from "./lib/seed";

const env = getEnv();
const db = getDb();
try {
  const pgApplied = await migratePostgres(db);
  console.log(`[migrate] postgres: ${pgApplied.length ? pgApplied.join(", ") : "up to date"}`);
  const chApplied = await migrateClickHouse(clickHouseOptions(env));
  console.log(`[migrate] clickhouse: ${chApplied.length ? chApplied.join(", ") : "up to date"}`);

  const allowed = env.SEED_DEMO ?? !env.isProduction;
  if (process.argv.includes("--seed") && allowed && (await isDatabaseEmpty(db))) {
    const started = Date.now();
    await seedDemoData(db);
    console.log(`[migrate] loaded demo data into the empty database (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
} catch (error) {
  console.error(maskUrlCredentials(`[migrate] ${(error as Error).message}`));
  process.exitCode = 1;
} finally {
  await closeDb();
  // The seed acts through the operations, which count rate limits in Redis and publish live events through
  // it (a message's push): close those connections too, or the process never ends.
  await closeLimitRedis();
  await closeRedis();
}
