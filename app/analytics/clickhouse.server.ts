import { createClient, type ClickHouseClient, type ClickHouseSettings } from "@clickhouse/client";
import { getEnv } from "~/utils/env.server";

/**
 * Settings our SQL relies on. They are sent with every request too, so a production server without
 * our local profile (current ClickHouse) behaves like the embedded 18.16 one (DESIGN.md §2).
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

export function createClickHouse({ url, database, username, password }: ClickHouseOptions): ClickHouseClient {
  return createClient({
    url,
    database,
    username: username ?? "default",
    password: password ?? "",
    // The client types settings for current servers; these three are accepted by 18.16 too.
    clickhouse_settings: CLICKHOUSE_SETTINGS as ClickHouseSettings,
    compression: { request: false, response: true },
    request_timeout: 30_000,
  });
}

declare global {
  // eslint-disable-next-line no-var
  var __sokoClickHouse: ClickHouseClient | undefined;
}

/** The one ClickHouse client of this process, on the app's analytics database. */
export function getClickHouse(): ClickHouseClient {
  const env = getEnv();
  globalThis.__sokoClickHouse ??= createClickHouse({
    url: env.CLICKHOUSE_URL,
    database: env.CLICKHOUSE_DATABASE,
    username: env.CLICKHOUSE_USER,
    password: env.CLICKHOUSE_PASSWORD,
  });
  return globalThis.__sokoClickHouse;
}

export async function closeClickHouse() {
  const client = globalThis.__sokoClickHouse;
  globalThis.__sokoClickHouse = undefined;
  await client?.close();
}
