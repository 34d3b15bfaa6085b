import { describe, expect, it } from "vitest";
import { parseEnv } from "~/utils/env.server";
import { LOCAL_URLS } from "~/utils/local-services";

describe("environment", () => {
  it("falls back to the embedded services outside production", () => {
    const env = parseEnv({ NODE_ENV: "development" });
    expect(env.DATABASE_URL).toBe(LOCAL_URLS.DATABASE_URL);
    expect(env.REDIS_URL).toBe(LOCAL_URLS.REDIS_URL);
    expect(env.CLICKHOUSE_URL).toBe(LOCAL_URLS.CLICKHOUSE_URL);
    expect(env.PORT).toBe(3000);
    expect(env.ADMIN_HOST_PREFIX).toBe("admin.");
  });

  it("requires every service URL in production and lists each missing one", () => {
    expect(() => parseEnv({ NODE_ENV: "production", REDIS_URL: "redis://r:6379" })).toThrow(
      /DATABASE_URL: DATABASE_URL is required in production\n\s+CLICKHOUSE_URL/,
    );
  });

  it("rejects a malformed port or database name", () => {
    expect(() => parseEnv({ PORT: "eighty" })).toThrow(/PORT/);
    expect(() => parseEnv({ CLICKHOUSE_DATABASE: "soko; DROP TABLE x" })).toThrow(/CLICKHOUSE_DATABASE/);
  });
});
