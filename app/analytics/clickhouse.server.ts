import { createClient, type ClickHouseClient, type ClickHouseSettings } from "@clickhouse/client";
import { getEnv, type Env } from "~/server/env.server";

/**
 * Settings our SQL relies on. They are sent with every request too, so a production server without
 * our local profile (current ClickHouse) behaves like the embedded 18.16 one (docs/architecture.md).
 */
export const CLICKHOUSE_SETTINGS = {
  date_time_input_format: "best_effort",
  allow_experimental_low_cardinality_type: 1,
  output_format_json_quote_64bit_integers: 0,
} as const;

export type ClickHouseOptions = {
  url: string;
  database: string;
  username?: string;
  password?: string;
};

/**
 * The configured server (its URL and credentials) on the app's database, or on `database`: web, worker,
 * scripts and tests all make their clients from this, so none of them drops the credentials.
 */
export function clickHouseOptions(
  env: Pick<Env, "CLICKHOUSE_URL" | "CLICKHOUSE_DATABASE" | "CLICKHOUSE_USER" | "CLICKHOUSE_PASSWORD">,
  database: string = env.CLICKHOUSE_DATABASE,
): ClickHouseOptions {
  return { url: env.CLICKHOUSE_URL, database, username: env.CLICKHOUSE_USER, password: env.CLICKHOUSE_PASSWORD };
}

/**
 * The one way a ClickHouse client is made: our settings on every request, compressed answers, a 30 s timeout
 * (longer only for a script's bulk work, such as bench:reports loading 10M events).
 */
export function createClickHouse(
  { url, database, username, password }: ClickHouseOptions,
  { requestTimeoutMs = 30_000 }: { requestTimeoutMs?: number } = {},
): ClickHouseClient {
  return createClient({
    url,
    database,
    username: username ?? "default",
    password: password ?? "",
    // The client types settings for current servers; these three are accepted by 18.16 too.
    clickhouse_settings: CLICKHOUSE_SETTINGS as ClickHouseSettings,
    compression: { request: false, response: true },
    request_timeout: requestTimeoutMs,
  });
}

declare global {
  // eslint-disable-next-line no-var
  var __sokoClickHouse: ClickHouseClient | undefined;
}

/** The one ClickHouse client of this process, on the app's analytics database. */
export function getClickHouse(): ClickHouseClient {
  globalThis.__sokoClickHouse ??= createClickHouse(clickHouseOptions(getEnv()));
  return globalThis.__sokoClickHouse;
}

export async function closeClickHouse() {
  const client = globalThis.__sokoClickHouse;
  globalThis.__sokoClickHouse = undefined;
  await client?.close();
}
