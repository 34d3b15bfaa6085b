/**
 * The ClickHouse servers the report tests run on: the embedded 18.16 server (a fresh database), and a current
 * ClickHouse (chDB's engine, 26.x) inside the test process, behind @clickhouse/client as the server is. Each
 * report suite runs three ways: 18.16 straight from the events (nothing built), 18.16 after the builder
 * (rollups.server.ts) has built the derived tables, and the current ClickHouse after the builder.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createClient, type ClickHouseClient } from "@clickhouse/client";
import { clickHouseOptions, createClickHouse } from "~/analytics/clickhouse.server";
import { getEnv } from "~/server/env.server";
import { applyClickHouseMigrations } from "../../scripts/lib/migrate";
import { createTestClickHouseDatabase } from "./databases";

/**
 * chDB (npm `chdb`, ClickHouse's engine as a library) is installed for the tests by the unit project's global
 * setup into .data/chdb, not as a dependency: it names a library package per platform, and only the
 * linux-x64 one is published to the registry, so a lock file listing it is one `npm ci` refuses elsewhere.
 */
export const CHDB_VERSION = "3.4.0";
export const CHDB_DIR = path.resolve(".data", "chdb");
const CHDB_CONNECTION = path.join(CHDB_DIR, "node_modules", "chdb", "dist", "connection", "index.js");

/** Installs chDB into .data/chdb when it is missing (once per machine; about 550 MB). */
export function ensureChdb() {
  const installed = path.join(CHDB_DIR, "node_modules", "chdb", "package.json");
  if (fs.existsSync(installed) && JSON.parse(fs.readFileSync(installed, "utf8")).version === CHDB_VERSION) return;
  fs.mkdirSync(CHDB_DIR, { recursive: true });
  fs.writeFileSync(path.join(CHDB_DIR, "package.json"), JSON.stringify({ name: "soko-test-chdb", private: true }));
  console.log(`[test] installing chdb ${CHDB_VERSION} into .data/chdb (a current ClickHouse for the schema tests)`);
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--no-save", `chdb@${CHDB_VERSION}`], { cwd: CHDB_DIR, stdio: ["ignore", "inherit", "inherit"] });
}

export type Engine = { client: ClickHouseClient; admin: ClickHouseClient; database: string; close: () => Promise<void> };

export async function embedded(): Promise<Engine> {
  const env = getEnv();
  // A fresh database (soko_rep_<random>) with migrations/clickhouse applied.
  const database = await createTestClickHouseDatabase("soko_rep");
  const admin = createClickHouse(clickHouseOptions(env, "default"));
  const client = createClickHouse(clickHouseOptions(env, database));
  return {
    client,
    admin,
    database,
    close: async () => {
      await client.close();
      await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
      await admin.close();
    },
  };
}

/**
 * A current ClickHouse (26.7, chDB's engine) inside this process, behind @clickhouse/client like the server:
 * the same migrations, the same report code. chDB has no per-client database, so the session USEs it.
 */
export async function current(): Promise<Engine> {
  const { createChdbConnection } = (await import(pathToFileURL(CHDB_CONNECTION).href)) as {
    createChdbConnection: (options: { path: string }) => NonNullable<Parameters<typeof createClient>[0]>["connection"];
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-chdb-"));
  const client = createClient({ connection: createChdbConnection({ path: dir }) });
  const database = "soko_rep";
  await applyClickHouseMigrations(client, database);
  await client.command({ query: `USE ${database}` });
  return {
    client,
    admin: client,
    database,
    close: async () => {
      await client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const ENGINES = [
  { name: "ClickHouse 18.16, from the events", engine: embedded, build: false },
  { name: "ClickHouse 18.16, from the derived tables", engine: embedded, build: true },
  { name: "current ClickHouse (chDB), from the derived tables", engine: current, build: true },
];
