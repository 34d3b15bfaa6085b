import knex, { type Knex } from "knex";
import pg from "pg";
import { getEnv } from "./env.server";

// bigint (int8) columns hold money in UGX and ids; every value we store fits in a JS number
// (Number.MAX_SAFE_INTEGER is ~9e15; our cap on a price is 1e8), so parse them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export type Db = Knex | Knex.Transaction;

export function createDb(connectionString: string, pool: Knex.PoolConfig = { min: 0, max: 10 }): Knex {
  return knex({ client: "pg", connection: connectionString, pool });
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
