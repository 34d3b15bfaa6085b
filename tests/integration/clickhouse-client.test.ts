import { describe, expect, it } from "vitest";
import { getEnv, parseEnv } from "~/server/env.server";
import { clickHouseOptions, createClickHouse } from "~/analytics/clickhouse.server";

describe("the ClickHouse client factory", () => {
  it("makes every client of the configured server with its credentials, on the app's database or another", () => {
    const env = parseEnv({
      DATABASE_URL: "postgres://x@h/x",
      REDIS_URL: "redis://h",
      CLICKHOUSE_URL: "http://ch:8123",
      CLICKHOUSE_DATABASE: "soko_live",
      CLICKHOUSE_USER: "analyst",
      CLICKHOUSE_PASSWORD: "s3cret",
    });
    expect(clickHouseOptions(env)).toEqual({ url: "http://ch:8123", database: "soko_live", username: "analyst", password: "s3cret" });
    expect(clickHouseOptions(env, "soko_t_1")).toEqual({ url: "http://ch:8123", database: "soko_t_1", username: "analyst", password: "s3cret" });
  });

  it("sends our settings with every request, so a server without our profile reads dates and numbers the same", async () => {
    const client = createClickHouse(clickHouseOptions(getEnv(), "default"));
    try {
      const rows = await (
        await client.query({
          query: `SELECT name, value FROM system.settings WHERE name IN ('date_time_input_format', 'output_format_json_quote_64bit_integers') ORDER BY name`,
          format: "JSONEachRow",
        })
      ).json<{ name: string; value: string }>();
      expect(rows).toEqual([
        { name: "date_time_input_format", value: "best_effort" },
        { name: "output_format_json_quote_64bit_integers", value: "0" },
      ]);
      const [count] = await (await client.query({ query: "SELECT count() AS n FROM system.one", format: "JSONEachRow" })).json<{ n: unknown }>();
      expect(count).toEqual({ n: 1 });
    } finally {
      await client.close();
    }
  });
});
