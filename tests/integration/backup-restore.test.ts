/**
 * `npm run backup` and `npm run restore`, run as their commands against this file's own Postgres database,
 * ClickHouse database and upload directory: a marketplace with money in every state, messages, files and
 * analytics is backed up; the three are destroyed; a damaged copy of the backup restores nothing; the backup
 * restores into the empty services and every ledger balance, order, message, file and analytics row is as
 * before; a second restore is refused unless --force; and the same round trip goes through an S3 bucket.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import knex from "knex";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickHouseOptions, createClickHouse } from "~/analytics/clickhouse.server";
import { getEnv } from "~/server/env.server";
import { clickHouseSnapshot, filesSnapshot, makeAnalytics, makeMarketplace, postgresSnapshot } from "../support/backup-data";
import { createTestClickHouseDatabase } from "../support/databases";
import { balances, orderTestContext } from "../support/orders";

// This file's own upload directory, set before anything reads the environment.
const work = fs.mkdtempSync(path.join(os.tmpdir(), "soko-backup-test-"));
const uploads = path.join(work, "uploads");
process.env.UPLOAD_DIR = uploads;
const t = orderTestContext("backup", { parties: { seller: { name: "Okello James" } }, admin: true });

let chDatabase: string;
const clickhouse = () => createClickHouse(clickHouseOptions(getEnv(), "default"));
const before: {
  pg?: Awaited<ReturnType<typeof postgresSnapshot>>;
  ch?: Record<string, string[]>;
  files?: Record<string, string>;
  balances?: Record<string, number>;
} = {};
let backup: string;
const extraPg: string[] = [];
const extraCh: string[] = [];

const root = path.resolve(import.meta.dirname, "../..");
const tsx = path.join(root, "node_modules", ".bin", "tsx");

/** Runs a script of scripts/ as npm would, against the given services; never throws, returns its exit code. */
async function cli(
  script: "backup" | "restore",
  args: string[],
  env: { DATABASE_URL: string; CLICKHOUSE_DATABASE: string; UPLOAD_DIR: string; [k: string]: string },
) {
  try {
    const { stdout, stderr } = await promisify(execFile)(tsx, [`scripts/${script}.ts`, ...args], { cwd: root, env: { ...process.env, ...env } });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, out: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

const urlOf = (database: string) => {
  const u = new URL(t.url);
  u.pathname = `/${database}`;
  return u.toString();
};
const nameOf = (url: string) => new URL(url).pathname.slice(1);

async function adminSql(sql: string) {
  const admin = knex({ client: "pg", connection: urlOf("postgres"), pool: { min: 0, max: 1 } });
  try {
    return await admin.raw(sql);
  } finally {
    await admin.destroy();
  }
}

const databaseExists = async (name: string) => (await adminSql(`SELECT 1 FROM pg_database WHERE datname = '${name}'`)).rows.length > 0;
async function chTables(database: string) {
  const c = clickhouse();
  try {
    return await (await c.query({ query: `SELECT name FROM system.tables WHERE database = '${database}'`, format: "JSONEachRow" })).json<{ name: string }>();
  } finally {
    await c.close();
  }
}
async function chSnapshot(database: string) {
  const c = clickhouse();
  try {
    return await clickHouseSnapshot(c, database);
  } finally {
    await c.close();
  }
}

beforeAll(async () => {
  chDatabase = await createTestClickHouseDatabase("soko_bk");
  await makeMarketplace(t);
  const c = createClickHouse(clickHouseOptions(getEnv(), chDatabase));
  try {
    await makeAnalytics(c);
  } finally {
    await c.close();
  }
  before.pg = await postgresSnapshot(t.url);
  before.balances = await balances(t.db);
  before.ch = await chSnapshot(chDatabase);
  before.files = filesSnapshot(uploads);
}, 60_000);

afterAll(async () => {
  for (const name of extraPg) await adminSql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  const c = clickhouse();
  try {
    for (const name of [chDatabase, ...extraCh]) if (name) await c.command({ query: `DROP DATABASE IF EXISTS ${name}` });
  } finally {
    await c.close();
  }
  fs.rmSync(work, { recursive: true, force: true });
});

const services = () => ({ DATABASE_URL: t.url, CLICKHOUSE_DATABASE: chDatabase, UPLOAD_DIR: uploads });

describe("a backup", () => {
  it("holds what the services hold: the data is there to back up, in every state", async () => {
    const statuses = new Set(before.pg!.rows.orders!.map((r) => JSON.parse(r).status as string));
    expect([...statuses].sort()).toEqual(["cancelled", "completed", "delivered", "in_progress", "pending_payment"]);
    expect(before.pg!.rows.disputes!.map((r) => JSON.parse(r).status as string).sort()).toEqual(["open", "resolved"]);
    expect(before.pg!.rows.messages!.length).toBe(2);
    expect(before.pg!.rows.payouts!.length).toBeGreaterThanOrEqual(3);
    expect(Object.values(before.balances!).filter((v) => v !== 0).length).toBeGreaterThan(4);
    expect(Object.keys(before.files!).length).toBe(3);
    for (const table of ["sessions", "pageviews", "actions", "errors", "conversions", "user_actions", "session_hours", "page_days", "rollup_builds"]) {
      expect(before.ch![table]!.length, table).toBeGreaterThan(0);
    }
  });

  it("is written by npm run backup, into a folder of its own with a manifest whose rows and checksums match", async () => {
    const dir = path.join(work, "backups");
    const run = await cli("backup", ["--to", dir], services());
    expect(run.code, run.out).toBe(0);
    const [name, ...others] = fs.readdirSync(dir);
    expect(others).toEqual([]);
    expect(name).toMatch(/^soko-\d{8}T\d{6}Z$/);
    backup = path.join(dir, name!);
    const manifest = JSON.parse(fs.readFileSync(path.join(backup, "manifest.json"), "utf8"));
    expect(manifest.postgres.migrations.count).toBe(before.pg!.rows.knex_migrations!.length);
    for (const [table, rows] of Object.entries(before.pg!.rows)) expect(manifest.postgres.rows[table], table).toBe(rows.length);
    for (const table of manifest.clickhouse.tables) expect(table.rows, table.name).toBe(before.ch![table.name]!.length);
    expect(manifest.files.count).toBe(3);
    const paths = manifest.parts.map((p: { path: string }) => p.path);
    expect(paths).toContain("postgres.dump");
    for (const key of Object.keys(before.files!)) expect(paths).toContain(`files/${key}`);
  });
});

describe("a restore", () => {
  beforeAll(async () => {
    // The machine is lost: the database, the analytics and the files are gone.
    await adminSql(`DROP DATABASE ${nameOf(t.url)} WITH (FORCE)`);
    const c = clickhouse();
    await c.command({ query: `DROP DATABASE ${chDatabase}` });
    await c.close();
    fs.rmSync(uploads, { recursive: true, force: true });
  });

  it("of a damaged backup restores nothing, and says which part is damaged", async () => {
    const damaged = path.join(work, "damaged");
    fs.cpSync(backup, damaged, { recursive: true });
    const [fileKey] = Object.keys(before.files!);
    const file = path.join(damaged, "files", fileKey!);
    const bytes = fs.readFileSync(file);
    const middle = bytes.length >> 1;
    bytes.writeUInt8(bytes.readUInt8(middle) ^ 0xff, middle);
    fs.writeFileSync(file, bytes);
    const run = await cli("restore", [damaged], services());
    expect(run.code).toBe(1);
    expect(run.out).toContain(`files/${fileKey}: sha256 differs`);
    expect(await databaseExists(nameOf(t.url))).toBe(false);
    expect(await chTables(chDatabase)).toEqual([]);
    expect(fs.existsSync(uploads)).toBe(false);
  });

  it("into empty services brings back every balance, order, message, file and analytics row", async () => {
    const run = await cli("restore", [backup], services());
    expect(run.code, run.out).toBe(0);
    expect(run.out).toMatch(/postgres \d+ rows in \d+ tables, clickhouse \d+ rows in \d+ tables, 3 files/);
    const restored = knex({ client: "pg", connection: t.url, pool: { min: 0, max: 1 } });
    try {
      expect(await balances(restored)).toEqual(before.balances);
    } finally {
      await restored.destroy();
    }
    const after = await postgresSnapshot(t.url);
    expect(after.rows.ledger_entries).toEqual(before.pg!.rows.ledger_entries);
    expect(after.rows.orders).toEqual(before.pg!.rows.orders);
    expect(after.rows.messages).toEqual(before.pg!.rows.messages);
    expect(after).toEqual(before.pg);
    expect(await chSnapshot(chDatabase)).toEqual(before.ch);
    expect(filesSnapshot(uploads)).toEqual(before.files);
  });

  it("is refused while the services hold data, and with --force replaces it", async () => {
    const refused = await cli("restore", [backup], services());
    expect(refused.code).toBe(1);
    expect(refused.out).toContain("Postgres, ClickHouse, the file store already hold data; nothing was restored");
    const forced = await cli("restore", [backup, "--force"], services());
    expect(forced.code, forced.out).toBe(0);
    expect(await postgresSnapshot(t.url)).toEqual(before.pg);
    expect(await chSnapshot(chDatabase)).toEqual(before.ch);
  });
});

describe("through an S3 bucket", () => {
  let s3: S3rver;
  let s3Env: Record<string, string>;
  beforeAll(async () => {
    s3 = new S3rver({
      port: 0,
      address: "127.0.0.1",
      silent: true,
      directory: path.join(work, "s3"),
      configureBuckets: [{ name: "soko-backups", configs: [] }],
    });
    const { port } = await s3.run();
    s3Env = {
      BACKUP_S3_ENDPOINT: `http://127.0.0.1:${port}`,
      BACKUP_S3_REGION: "us-east-1",
      BACKUP_S3_ACCESS_KEY_ID: "S3RVER",
      BACKUP_S3_SECRET_ACCESS_KEY: "S3RVER",
    };
  });
  afterAll(async () => {
    await s3?.close();
  });

  it("backs up to s3://bucket/prefix and restores from it into other empty services", async () => {
    const run = await cli("backup", ["--to", "s3://soko-backups/nightly"], { ...services(), ...s3Env });
    expect(run.code, run.out).toBe(0);
    const location = /\[backup\] (s3:\/\/\S+):/.exec(run.out)?.[1];
    expect(location).toMatch(/^s3:\/\/soko-backups\/nightly\/soko-\d{8}T\d{6}Z$/);
    const pgName = `${nameOf(t.url)}_s3`;
    const chName = `${chDatabase}_s3`;
    extraPg.push(pgName);
    extraCh.push(chName);
    const target = { DATABASE_URL: urlOf(pgName), CLICKHOUSE_DATABASE: chName, UPLOAD_DIR: path.join(work, "uploads-s3"), ...s3Env };
    const restored = await cli("restore", [location!], target);
    expect(restored.code, restored.out).toBe(0);
    expect(await postgresSnapshot(target.DATABASE_URL)).toEqual(before.pg);
    expect(await chSnapshot(chName)).toEqual(before.ch);
    expect(filesSnapshot(target.UPLOAD_DIR)).toEqual(before.files);
  });
});
