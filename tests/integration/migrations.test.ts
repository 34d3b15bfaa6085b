import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickHouseOptions, createClickHouse } from "~/analytics/clickhouse.server";
import { getEnv } from "~/server/env.server";
import { migrateClickHouse, migratePostgres, splitStatements } from "../../scripts/lib/migrate";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createCategory, createUser } from "../support/factories";

describe("Postgres migrations", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.drop());

  it("are already applied to the template and a second run applies nothing", async () => {
    expect(await migratePostgres(t.db)).toEqual([]);
    const tables = await t.db("information_schema.tables").where({ table_schema: "public" }).pluck("table_name");
    expect(tables).toEqual(expect.arrayContaining(["users", "sessions", "categories", "gigs", "gig_packages", "gig_images"]));
  });

  it("refuse a gig title over 80 characters and a delivery option outside its tier", async () => {
    const user = await createUser(t.db, { role: "freelancer", password: null });
    const category = await createCategory(t.db, { slug: "c1", name: "C1" });
    // Rows written directly, past the model: the constraints themselves are under test.
    const gig = { seller_id: user.id, category_id: category.id, title: "x".repeat(80) };
    const [ok] = await t.db("gigs").insert(gig).returning("id");
    await expect(t.db("gigs").insert({ ...gig, title: "x".repeat(81) })).rejects.toThrow(/check constraint/);
    const pkg = { gig_id: ok.id, name: "Basic", price_ugx: 75_000 };
    await expect(t.db("gig_packages").insert({ ...pkg, tier: "basic", delivery_days: 21 })).rejects.toThrow(/check constraint/);
    await expect(t.db("gig_packages").insert({ ...pkg, tier: "premium", delivery_days: 3 })).rejects.toThrow(/check constraint/);
    await t.db("gig_packages").insert({ ...pkg, tier: "basic", delivery_days: 14 });
    expect(await t.db("gig_packages").where({ gig_id: ok.id }).pluck("delivery_days")).toEqual([14]);
  });

  it("refuse a registration role outside client, freelancer and admin, and a duplicate email in any case", async () => {
    const base = { name: "A", role: "client" };
    await t.db("users").insert({ ...base, username: "dup_a", email: "Dup@Example.test" });
    await expect(t.db("users").insert({ ...base, username: "dup_b", email: "dup@example.TEST" })).rejects.toThrow(/users_email_key/);
    await expect(t.db("users").insert({ ...base, role: "root", username: "dup_c", email: "c@example.test" })).rejects.toThrow(/check constraint/);
  });
});

describe("ClickHouse migrations", () => {
  const env = getEnv();
  const database = `soko_mig_${process.pid}_${Date.now()}`;
  const admin = createClickHouse(clickHouseOptions(env, "default"));
  let dir: string;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "ch-migrations-"));
    await fs.writeFile(
      path.join(dir, "001_first.sql"),
      `-- a comment line\nCREATE TABLE IF NOT EXISTS {database}.t1 (id UInt32) ENGINE = MergeTree ORDER BY id;\n` +
        `INSERT INTO {database}.t1 VALUES (1), (2);\n`,
    );
    await fs.writeFile(
      path.join(dir, "002_second.sql"),
      `CREATE TABLE IF NOT EXISTS {database}.t2 (name LowCardinality(String), at DateTime('UTC')) ENGINE = MergeTree ORDER BY at`,
    );
  });
  afterAll(async () => {
    await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await admin.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function count(table: string) {
    const rows = await (await admin.query({ query: `SELECT count() AS n FROM ${database}.${table}`, format: "JSONEachRow" })).json<{ n: number }>();
    return Number(rows[0]?.n);
  }

  it("apply each file once, in name order, into the named database", async () => {
    const options = clickHouseOptions(env, database);
    expect(await migrateClickHouse(options, dir)).toEqual(["001_first.sql", "002_second.sql"]);
    expect(await count("t1")).toBe(2);
    expect(await migrateClickHouse(options, dir)).toEqual([]);
    // Had 001 run twice, its INSERT would have doubled the rows.
    expect(await count("t1")).toBe(2);
    expect(await count("schema_migrations")).toBe(2);
  });

  it("refuse an unsafe database name", async () => {
    await expect(migrateClickHouse(clickHouseOptions(env, "x; DROP"), dir)).rejects.toThrow(/bad ClickHouse database name/);
  });

  it("split statements, dropping comment lines, and refuse a ';' inside a string", () => {
    expect(splitStatements("-- c\nSELECT 1;\n\nSELECT 2;")).toEqual(["SELECT 1", "SELECT 2"]);
    expect(() => splitStatements("SELECT 'a;b'")).toThrow(/inside a string/);
  });
});
