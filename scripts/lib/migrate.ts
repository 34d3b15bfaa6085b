import fs from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Knex } from "knex";
import { z } from "zod";
import type { ClickHouseClient } from "@clickhouse/client";
import { createClickHouse, type ClickHouseOptions } from "~/analytics/clickhouse.server";

const migrationsRoot = path.resolve(process.cwd(), "migrations");

/**
 * Knex's migrations read from a folder, imported by our own code rather than knex's loader, so the
 * TypeScript files load wherever this module runs (tsx in scripts and the server, Vite in tests).
 */
class FolderMigrationSource implements Knex.MigrationSource<string> {
  constructor(private readonly directory: string) {}
  async getMigrations() {
    return (await fs.readdir(this.directory)).filter((f) => /^\d+_[\w-]+\.ts$/.test(f)).sort();
  }
  getMigrationName(migration: string) {
    return migration;
  }
  getMigration(migration: string): Promise<Knex.Migration> {
    return import(/* @vite-ignore */ pathToFileURL(path.join(this.directory, migration)).href);
  }
}

/** Applies the knex migrations in migrations/; running it again changes nothing. */
export async function migratePostgres(db: Knex, directory = migrationsRoot) {
  const [, applied] = (await db.migrate.latest({
    migrationSource: new FolderMigrationSource(directory),
    tableName: "knex_migrations",
  })) as [number, string[]];
  return applied;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Splits a DDL file into statements. Our DDL has no semicolons inside strings, and this runner refuses
 * files that would need a real SQL parser (a ';' within quotes), so a silent mis-split cannot happen.
 */
export function splitStatements(sql: string): string[] {
  const withoutComments = sql
    .split("\n")
    .filter((line) => !line.trim().startsWith("--"))
    .join("\n");
  if (/'[^'\n]*;[^'\n]*'/.test(withoutComments)) {
    throw new Error("ClickHouse migrations may not contain ';' inside a string literal");
  }
  return withoutComments
    .split(";")
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Applies migrations/clickhouse/*.sql in name order, once each. The applied names live in
 * {database}.schema_migrations; statements should also be idempotent (IF NOT EXISTS) so a run that
 * died half-way can simply run again. `{database}` in a file is replaced by the target database.
 */
export async function migrateClickHouse(options: ClickHouseOptions, directory = path.join(migrationsRoot, "clickhouse")) {
  if (!IDENTIFIER.test(options.database)) throw new Error(`bad ClickHouse database name: ${options.database}`);
  // An hour per statement: a migration may copy a table (004 re-keys every event table).
  const admin = createClickHouse({ ...options, database: "default" }, { requestTimeoutMs: 60 * 60_000 });
  try {
    return await applyClickHouseMigrations(admin, options.database, directory);
  } finally {
    await admin.close();
  }
}

/**
 * The work of migrateClickHouse through a client the caller made (the schema test's current ClickHouse,
 * chDB, is reached through a client of its own); names are qualified with `database` throughout.
 */
export async function applyClickHouseMigrations(admin: ClickHouseClient, database: string, directory = path.join(migrationsRoot, "clickhouse")) {
  if (!IDENTIFIER.test(database)) throw new Error(`bad ClickHouse database name: ${database}`);
  const options = { database };
  await admin.command({ query: `CREATE DATABASE IF NOT EXISTS ${options.database}` });
  await admin.command({
    query: `CREATE TABLE IF NOT EXISTS ${options.database}.schema_migrations
            (name String, applied_at DateTime DEFAULT now()) ENGINE = MergeTree ORDER BY name`,
  });
  const rows = await (await admin.query({ query: `SELECT name FROM ${options.database}.schema_migrations`, format: "JSONEachRow" })).json<{ name: string }>();
  const done = new Set(
    z
      .array(z.object({ name: z.string() }))
      .parse(rows)
      .map((r) => r.name),
  );

  const files = (await fs.readdir(directory).catch(() => [] as string[])).filter((f) => f.endsWith(".sql")).sort();
  const applied: string[] = [];
  for (const file of files) {
    if (done.has(file)) continue;
    const sql = (await fs.readFile(path.join(directory, file), "utf8")).replaceAll("{database}", options.database);
    for (const statement of splitStatements(sql)) {
      await admin.command({ query: statement });
    }
    await admin.insert({
      table: `${options.database}.schema_migrations`,
      values: [{ name: file }],
      format: "JSONEachRow",
    });
    applied.push(file);
  }
  return applied;
}
