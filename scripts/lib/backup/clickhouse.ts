/**
 * ClickHouse in a backup. 18.16 has no BACKUP command, so every table of the analytics database is written as
 * its own CREATE statement (SHOW CREATE TABLE) and its rows as TabSeparated, gzipped: the text format both
 * 18.16 and current servers read back exactly (floats are printed in their shortest exact form, aggregate
 * states as escaped bytes), and one row per line, so the rows in the file are counted as it is written.
 *
 * Each table's dump is one SELECT, which reads the parts the table had when it started. `rollup_builds` is
 * dumped before the derived tables it points into: a build made during the backup names a version the dump may
 * lack, but the version the dumped rollup_builds names is still there (the builder keeps the one before).
 * A materialized view is re-created after the tables; its hidden `.inner.` table is made by that statement, and
 * its rows are then loaded like any table's.
 */
import { Readable, Transform } from "node:stream";
import { createGunzip, createGzip } from "node:zlib";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { ClickHouseOptions } from "~/analytics/clickhouse.server";
import type { ClickHouseTable, Part } from "./manifest";
import { safeRelative, writePart } from "./manifest";

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const quote = (name: string) => `\`${name.replace(/\\/g, "\\\\").replace(/`/g, "\\`")}\``;
const VIEW_ENGINES = new Set(["View", "MaterializedView"]);
/** Dumped first, in this order (see the module's header); then the rest by name. */
const FIRST = ["schema_migrations", "rollup_builds"];

/** One request to the HTTP interface: the query in the body (or the URL, when the body is data to insert). */
async function request(options: ClickHouseOptions, query: string, body?: Readable) {
  const url = new URL(options.url);
  url.searchParams.set("database", "default");
  if (body) url.searchParams.set("query", query);
  // Dates as the dump wrote them: best_effort (our servers' profile) reads the zero DateTime as 2000-01-01.
  url.searchParams.set("date_time_input_format", "basic");
  const auth = Buffer.from(`${options.username ?? "default"}:${options.password ?? ""}`).toString("base64");
  const res = await fetch(url, {
    method: "POST",
    headers: { Authorization: `Basic ${auth}` },
    body: body ? (Readable.toWeb(body) as ReadableStream) : query,
    duplex: "half",
  } as RequestInit);
  if (!res.ok) throw new Error(`ClickHouse: ${(await res.text()).trim().slice(0, 500)}`);
  return res;
}

async function rowsOf<T>(options: ClickHouseOptions, query: string, schema: z.ZodType<T>): Promise<T[]> {
  const text = await (await request(options, `${query} FORMAT JSONEachRow`)).text();
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => schema.parse(JSON.parse(line)));
}

async function command(options: ClickHouseOptions, query: string) {
  await (await request(options, query)).arrayBuffer();
}

export async function clickHouseVersion(options: ClickHouseOptions) {
  return (await rowsOf(options, `SELECT version() AS v`, z.object({ v: z.string() })))[0]!.v;
}

/** The database's tables with their engines; none for a database that does not exist. */
export async function clickHouseTables(options: ClickHouseOptions, database = options.database) {
  return rowsOf(
    options,
    `SELECT name, engine FROM system.tables WHERE database = '${database.replace(/'/g, "")}' ORDER BY name`,
    z.object({ name: z.string(), engine: z.string() }),
  );
}

function dumpOrder<T extends { name: string }>(tables: T[]) {
  const rank = (t: T) => (FIRST.includes(t.name) ? FIRST.indexOf(t.name) : FIRST.length);
  return [...tables].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

/** Writes every table of `options.database` under `clickhouse/` in `root`: its statement and its rows. */
export async function dumpClickHouse(
  options: ClickHouseOptions,
  root: string,
): Promise<{ tables: ClickHouseTable[]; parts: Part[]; lastMigration: string | null }> {
  const db = options.database;
  if (!IDENTIFIER.test(db)) throw new Error(`bad ClickHouse database name: ${db}`);
  const tables: ClickHouseTable[] = [];
  const parts: Part[] = [];
  for (const { name, engine } of dumpOrder(await clickHouseTables(options))) {
    const statement = (await rowsOf(options, `SHOW CREATE TABLE ${quote(db)}.${quote(name)}`, z.object({ statement: z.string() })))[0]?.statement;
    if (!statement) throw new Error(`ClickHouse gave no CREATE statement for ${name}`);
    const file = encodeURIComponent(name);
    const schema = await writePart(root, `clickhouse/${file}.sql`, Readable.from([statement]));
    parts.push(strip(schema));
    if (VIEW_ENGINES.has(engine)) {
      tables.push({ name, engine, schema: schema.path, data: null, rows: 0 });
      continue;
    }
    const res = await request(options, `SELECT * FROM ${quote(db)}.${quote(name)} FORMAT TabSeparated`);
    const end = tail();
    const data = await writePart(root, `clickhouse/${file}.tsv.gz`, Readable.fromWeb(res.body! as never), [end.stream, createGzip()]);
    // An error after the first rows cannot change the status any more: the server writes it at the end of the body.
    if (STREAM_ERROR.test(end.text())) throw new Error(`ClickHouse: the dump of ${name} broke off: ${end.text().slice(-300).trim()}`);
    parts.push(strip(data));
    tables.push({ name, engine, schema: schema.path, data: data.path, rows: data.lines });
  }
  const migrated = tables.some((t) => t.name === "schema_migrations")
    ? (await rowsOf(options, `SELECT max(name) AS last FROM ${quote(db)}.schema_migrations`, z.object({ last: z.string() })))[0]!.last || null
    : null;
  return { tables, parts, lastMigration: migrated };
}

/** How ClickHouse ends a body when a query fails after its answer began (18.16 and current servers). */
const STREAM_ERROR = /(?:^|\n)(?:Code: \d+[.,] (?:e\.displayText\(\) = )?DB::Exception|__exception__)/;

/** Passes bytes through and keeps the last few kilobytes of them. */
function tail(keep = 4096) {
  let last = Buffer.alloc(0);
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      last = Buffer.concat([last, chunk]);
      if (last.length > keep) last = last.subarray(last.length - keep);
      done(null, chunk);
    },
  });
  return { stream, text: () => last.toString("utf8") };
}

const strip = ({ path: p, bytes, sha256 }: Part): Part => ({ path: p, bytes, sha256 });

/** `statement` with its source database's name replaced by the target's, wherever it qualifies a name. */
export function retarget(statement: string, from: string, to: string) {
  const name = new RegExp(`(^|[^A-Za-z0-9_.\`])(\`?)${from}\\2\\.`, "g");
  return statement.replace(name, (_m, before: string, tick: string) => `${before}${tick}${to}${tick}.`);
}

/**
 * Re-creates the tables of a dump in `options.database` (made when missing; with `replace`, dropped first),
 * views after tables, then loads every table's rows. Returns the rows loaded per table.
 */
export async function restoreClickHouse(
  options: ClickHouseOptions,
  root: string,
  dump: { database: string; tables: ClickHouseTable[] },
  { replace = false } = {},
): Promise<Record<string, number>> {
  const db = options.database;
  if (!IDENTIFIER.test(db)) throw new Error(`bad ClickHouse database name: ${db}`);
  if (replace) await command(options, `DROP DATABASE IF EXISTS ${quote(db)}`);
  await command(options, `CREATE DATABASE IF NOT EXISTS ${quote(db)}`);
  const inner = (t: ClickHouseTable) => t.name.startsWith(".inner");
  const ordered = [...dump.tables.filter((t) => !inner(t) && !VIEW_ENGINES.has(t.engine)), ...dump.tables.filter((t) => VIEW_ENGINES.has(t.engine))];
  for (const table of ordered) {
    const statement = await fs.promises.readFile(path.join(root, safeRelative(table.schema)), "utf8");
    await command(options, retarget(statement, dump.database, db));
  }
  const loaded: Record<string, number> = {};
  for (const table of dump.tables) {
    if (!table.data) continue;
    const rows = fs.createReadStream(path.join(root, safeRelative(table.data))).pipe(createGunzip());
    await (await request(options, `INSERT INTO ${quote(db)}.${quote(table.name)} FORMAT TabSeparated`, rows)).arrayBuffer();
    loaded[table.name] = table.rows;
  }
  return loaded;
}
