/**
 * Test databases: one migrated template per run, and a fresh copy of it for each test file
 * (CREATE DATABASE … TEMPLATE is a file copy, tens of milliseconds), so files never see each other's rows.
 */
import { createHash, randomBytes } from "node:crypto";
import knex, { type Knex } from "knex";
import { clickHouseOptions } from "~/analytics/clickhouse.server";
import { createDb } from "~/server/db.server";
import { getEnv } from "~/server/env.server";
import { migrateClickHouse, migratePostgres } from "../../scripts/lib/migrate";

/**
 * One template per checkout (named from its path, or SOKO_TEST_TEMPLATE), so two checkouts testing at
 * once against the same Postgres never drop or migrate each other's template.
 */
export const TEMPLATE_DB = process.env.SOKO_TEST_TEMPLATE ?? `soko_tpl_${createHash("sha256").update(process.cwd()).digest("hex").slice(0, 10)}`;

function serverUrl(database: string) {
  const url = new URL(getEnv().DATABASE_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withAdmin<T>(fn: (admin: Knex) => Promise<T>): Promise<T> {
  const admin = knex({ client: "pg", connection: serverUrl("postgres"), pool: { min: 0, max: 1 } });
  try {
    return await fn(admin);
  } finally {
    await admin.destroy();
  }
}

/** The run's own migrated ClickHouse database (tests/support/global-setup.ts), named like the template. */
export const RUN_CLICKHOUSE_DB = TEMPLATE_DB.replace(/^soko_tpl_/, "soko_run_");

/** Drops and re-creates the template database and migrates it. Runs once per test run. */
export async function prepareTemplate() {
  await withAdmin(async (admin) => {
    await admin.raw(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
    await admin.raw(`CREATE DATABASE ${TEMPLATE_DB}`);
  });
  const db = createDb(serverUrl(TEMPLATE_DB), { min: 0, max: 1 });
  try {
    await migratePostgres(db);
  } finally {
    await db.destroy();
  }
}

export type TestDatabase = { db: Knex; url: string; name: string; drop: () => Promise<void> };

/** A new database, a copy of `template` or (null) empty. */
async function newDatabase(prefix: string, template: string | null): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  await withAdmin((admin) => admin.raw(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`));
  const url = serverUrl(name);
  const db = createDb(url, { min: 0, max: 5 });
  return {
    db,
    url,
    name,
    drop: async () => {
      await db.destroy();
      await withAdmin((admin) => admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** A new database copied from the migrated template, for one test file. */
export const createTestDatabase = (prefix = "soko_t") => newDatabase(prefix, TEMPLATE_DB);

/**
 * A new database with nothing in it, not even the migrations (as a new deployment's is), for a test of what
 * migrating alone makes.
 */
export const createEmptyDatabase = (prefix = "soko_empty") => newDatabase(prefix, null);

/** A fresh ClickHouse database with our migrations applied, for one test file or server. */
export async function createTestClickHouseDatabase(prefix = "soko_t") {
  const env = getEnv();
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  await migrateClickHouse(clickHouseOptions(env, name));
  return name;
}
