/**
 * Postgres in a backup: pg_dump in its custom format, taken in a snapshot this module exports and holds open,
 * so the rows counted for the manifest and the migration level are those of the very same snapshot the dump
 * reads. Restored with pg_restore in one transaction: a restore that fails leaves the database as it was.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import knex, { type Knex } from "knex";
import { maskUrlCredentials } from "~/utils/mask-url";

const run = promisify(execFile);

/**
 * A Postgres client program: from PG_BIN_DIR, else the newest under /usr/lib/postgresql (Debian's layout, as
 * scripts/services.ts finds it; pg_dump must be at least the server's version), else the PATH.
 */
export function pgTool(name: "pg_dump" | "pg_restore"): string {
  if (process.env.PG_BIN_DIR) return path.join(process.env.PG_BIN_DIR, name);
  const base = "/usr/lib/postgresql";
  const versions = fs.existsSync(base)
    ? fs
        .readdirSync(base)
        .filter((v) => fs.existsSync(path.join(base, v, "bin", name)))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return versions[0] ? path.join(base, versions[0], "bin", name) : name;
}

function connect(url: string) {
  return knex({ client: "pg", connection: url, pool: { min: 0, max: 1 } });
}

/**
 * Runs a client program on the database at `url` (none for --version). The password goes in PGPASSWORD, not in
 * the arguments every user of the machine can read; an error message (which may quote the URL) is masked.
 */
async function tool(name: "pg_dump" | "pg_restore", args: string[], url?: string) {
  const env = { ...process.env };
  if (url) {
    const u = new URL(url);
    if (u.password) env.PGPASSWORD = decodeURIComponent(u.password);
    u.password = "";
    args = [...args, `--dbname=${u.toString()}`];
  }
  try {
    return await run(pgTool(name), args, { maxBuffer: 16 * 1024 * 1024, env });
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string };
    throw new Error(maskUrlCredentials(`${name} failed: ${stderr?.trim() || message}`));
  }
}

export type PostgresDump = {
  serverVersion: string;
  pgDump: string;
  database: string;
  migrations: { count: number; last: string | null };
  rows: Record<string, number>;
};

/** Every table of the public schema with its rows, counted in the transaction's snapshot. */
async function countRows(trx: Knex.Transaction) {
  const tables: string[] = (await trx.raw(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`)).rows.map(
    (r: { tablename: string }) => r.tablename,
  );
  const rows: Record<string, number> = {};
  for (const table of tables) {
    rows[table] = Number((await trx.raw(`SELECT count(*)::bigint AS n FROM ??`, [table])).rows[0].n);
  }
  return rows;
}

/** Dumps the database at `url` into `file` (custom format), and describes the snapshot it read. */
export async function dumpPostgres(url: string, file: string): Promise<PostgresDump> {
  const db = connect(url);
  try {
    const pgDump = (await tool("pg_dump", ["--version"])).stdout.trim();
    return await db.transaction(
      async (trx) => {
        const snapshot: string = (await trx.raw(`SELECT pg_export_snapshot() AS s`)).rows[0].s;
        const [, facts] = await Promise.all([
          tool("pg_dump", ["--format=custom", "--no-owner", "--no-privileges", `--snapshot=${snapshot}`, `--file=${file}`], url),
          (async () => {
            const info = (await trx.raw(`SELECT current_setting('server_version') AS v, current_database() AS d`)).rows[0];
            const hasMigrations = (await trx.raw(`SELECT to_regclass('public.knex_migrations') IS NOT NULL AS t`)).rows[0].t;
            const migrations = hasMigrations
              ? (await trx.raw(`SELECT count(*)::int AS count, max(name) AS last FROM knex_migrations`)).rows[0]
              : { count: 0, last: null };
            return { serverVersion: String(info.v), database: String(info.d), migrations, rows: await countRows(trx) };
          })(),
        ]);
        return { ...facts, pgDump, migrations: { count: Number(facts.migrations.count), last: facts.migrations.last ?? null } };
      },
      { isolationLevel: "repeatable read", readOnly: true },
    );
  } finally {
    await db.destroy();
  }
}

/** The database named in `url` and a connection to the server's maintenance database `postgres`. */
function maintenanceUrl(url: string) {
  const u = new URL(url);
  const database = decodeURIComponent(u.pathname.replace(/^\//, ""));
  u.pathname = "/postgres";
  return { database, admin: u.toString() };
}

/** Tables of the public schema (none in an empty database); null when the database does not exist. */
export async function postgresTables(url: string): Promise<number | null> {
  const { database, admin } = maintenanceUrl(url);
  const a = connect(admin);
  try {
    const exists = (await a.raw(`SELECT 1 FROM pg_database WHERE datname = ?`, [database])).rows.length > 0;
    if (!exists) return null;
  } finally {
    await a.destroy();
  }
  const db = connect(url);
  try {
    return Number((await db.raw(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`)).rows[0].n);
  } finally {
    await db.destroy();
  }
}

/**
 * Restores `file` into the database at `url`: made when missing; with `replace`, its public schema is dropped
 * first (what --force asks for). pg_restore runs in one transaction and stops at the first error.
 */
export async function restorePostgres(url: string, file: string, { replace = false } = {}) {
  const tables = await postgresTables(url);
  if (tables === null) {
    const { database, admin } = maintenanceUrl(url);
    const a = connect(admin);
    try {
      await a.raw(`CREATE DATABASE ??`, [database]);
    } finally {
      await a.destroy();
    }
  } else if (tables > 0 && replace) {
    const db = connect(url);
    try {
      await db.raw(`DROP SCHEMA public CASCADE; CREATE SCHEMA public`);
    } finally {
      await db.destroy();
    }
  }
  await tool("pg_restore", ["--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction", file], url);
}

/** Rows per table after a restore, to print beside the manifest's. */
export async function postgresRows(url: string): Promise<Record<string, number>> {
  const db = connect(url);
  try {
    return await db.transaction((trx) => countRows(trx), { isolationLevel: "repeatable read", readOnly: true });
  } finally {
    await db.destroy();
  }
}
