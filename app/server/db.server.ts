import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import knex, { type Knex } from "knex";
import pg from "pg";
import { getEnv } from "./env.server";
import { watchDbPool } from "./metrics.server";

// bigint (int8) columns hold money in UGX and ids; every value we store fits in a JS number
// (Number.MAX_SAFE_INTEGER is ~9e15; our cap on a price is 1e8), so parse them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export type Db = Knex | Knex.Transaction;

type QueryObject = { sql: string; options?: Record<string, unknown> };
type PgClientClass = new (config: Knex.Config) => { _query(connection: unknown, obj: QueryObject): Promise<unknown> };
const PgClient = createRequire(import.meta.url)("knex/lib/dialects/postgres/index.js") as PgClientClass;

/** Statement names by SQL text: `soko_` and the text's hash, so one text is one statement on every connection. */
const statementNames = new Map<string, string>();
const MAX_STATEMENT_NAMES = 1_000;

function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (!name) {
    name = `soko_${createHash("sha1").update(sql).digest("hex").slice(0, 24)}`;
    if (statementNames.size < MAX_STATEMENT_NAMES) statementNames.set(sql, name);
  }
  return name;
}

/** knex's Postgres client, running the queries marked with prepared() as named statements. */
class Client extends PgClient {
  _query(connection: unknown, obj: QueryObject) {
    if (obj.options?.prepare) {
      const { prepare: _, ...options } = obj.options;
      obj.options = { ...options, name: statementName(obj.sql) };
    }
    return super._query(connection, obj);
  }
}

/**
 * Runs a query as a named prepared statement (ADR 023): each connection parses it once, and Postgres plans it
 * once for all values after its fifth run (a generic plan, when that costs no more than planning for the
 * values) instead of parsing and planning on every run, which was a third of Postgres's work on a chat message.
 * For the hot paths (a session's lookup on every request and socket event, a message's send and marks) and
 * queries of a fixed shape: each distinct SQL text becomes a statement kept by every connection that ran it.
 * Name the columns (no `*`): a prepared statement whose result columns change under it (a migration adding a
 * column) fails with "cached plan must not change result type" until the connection ends.
 */
export function prepared<Q extends Knex.ChainableInterface>(query: Q): Q {
  return query.options({ prepare: true });
}

/** A statement's text with its `:name` parameters numbered, and the names in order. */
type Numbered = { text: string; names: string[] };
const numbered = new Map<string, Numbered>();

/** `:name` parameters as `$1`, `$2`... (a name used twice is one parameter; `::type` casts and `'a:b'` are left alone). */
export function numberParameters(sql: string): Numbered {
  let found = numbered.get(sql);
  if (!found) {
    const names: string[] = [];
    const text = sql.replace(/(?<![:\w]):([A-Za-z_]\w*)/g, (_, name: string) => {
      const at = names.indexOf(name);
      return `$${at === -1 ? names.push(name) : at + 1}`;
    });
    found = { text, names };
    if (numbered.size < MAX_STATEMENT_NAMES) numbered.set(sql, found);
  }
  return found;
}

type Connections = { acquireConnection(): Promise<pg.Client>; releaseConnection(connection: pg.Client): Promise<unknown> };

/**
 * Runs a statement of fixed text with `:name` parameters as a named prepared statement, straight on a connection
 * of the pool (or the transaction's, when `db` is one): for the statements a chat message runs (its send and the
 * recipient's read mark), where building and binding the text through knex was a tenth of the web process's CPU
 * per message (ADR 016). Returns the rows.
 */
export async function runStatement<Row = Record<string, unknown>>(db: Db, sql: string, params: Record<string, unknown>): Promise<Row[]> {
  const { text, names } = numberParameters(sql);
  const values = names.map((name) => {
    if (!(name in params)) throw new Error(`runStatement: no value for :${name}`);
    return params[name];
  });
  const connections = db.client as Connections;
  const connection = await connections.acquireConnection();
  try {
    return (await connection.query({ name: statementName(text), text, values })).rows as Row[];
  } finally {
    await connections.releaseConnection(connection);
  }
}

export function createDb(connectionString: string, pool: Knex.PoolConfig = { min: 0, max: 10 }): Knex {
  const db = knex({ client: Client as unknown as typeof knex.Client, connection: connectionString, pool });
  // Its connections in use, free and awaited are summed into the process's metrics (ADR 057).
  watchDbPool(db);
  return db;
}

declare global {
  // Kept across dev-server reloads so we do not open a new pool on every edit.
  // eslint-disable-next-line no-var
  var __sokoDb: Knex | undefined;
}

/** The one knex instance of this process. */
export function getDb(): Knex {
  globalThis.__sokoDb ??= createDb(getEnv().DATABASE_URL);
  return globalThis.__sokoDb;
}

export async function closeDb() {
  const db = globalThis.__sokoDb;
  globalThis.__sokoDb = undefined;
  await db?.destroy();
}
