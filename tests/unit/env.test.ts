import { describe, expect, it } from "vitest";
import { parseEnv } from "~/server/env.server";
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

  it("reads TRUST_PROXY as Express documents it: booleans, a hop count, or addresses", () => {
    expect(parseEnv({}).TRUST_PROXY).toBe(false);
    expect(parseEnv({ TRUST_PROXY: "true" }).TRUST_PROXY).toBe(true);
    expect(parseEnv({ TRUST_PROXY: "false" }).TRUST_PROXY).toBe(false);
    expect(parseEnv({ TRUST_PROXY: "1" }).TRUST_PROXY).toBe(1);
    expect(parseEnv({ TRUST_PROXY: "2" }).TRUST_PROXY).toBe(2);
    expect(parseEnv({ TRUST_PROXY: "loopback, 10.0.0.0/8, fd00::/8" }).TRUST_PROXY).toEqual(["loopback", "10.0.0.0/8", "fd00::/8"]);
    expect(() => parseEnv({ TRUST_PROXY: "yes please" })).toThrow(/TRUST_PROXY/);
    expect(() => parseEnv({ TRUST_PROXY: "10.0.0.0/99" })).toThrow(/TRUST_PROXY/);
  });

  it("reads every flag through one booleanish rule: ALLOW_HTTP=0 is off", () => {
    expect(parseEnv({ NODE_ENV: "development", ALLOW_HTTP: "0" }).ALLOW_HTTP).toBe(false);
    expect(parseEnv({ ALLOW_HTTP: "false" }).ALLOW_HTTP).toBe(false);
    expect(parseEnv({ ALLOW_HTTP: "" }).ALLOW_HTTP).toBe(false);
    expect(parseEnv({ ALLOW_HTTP: "TRUE" }).ALLOW_HTTP).toBe(true);
    expect(parseEnv({ DEV_OUTBOX: "0" }).DEV_OUTBOX).toBe(false);
    expect(() => parseEnv({ ALLOW_HTTP: "maybe" })).toThrow(/ALLOW_HTTP/);
    const prod = { NODE_ENV: "production", DATABASE_URL: "postgres://db/x", REDIS_URL: "redis://r:6379", CLICKHOUSE_URL: "http://ch:8123" };
    expect(parseEnv({ ...prod, ALLOW_HTTP: "0" }).isHttps).toBe(true);
    expect(parseEnv({ ...prod, ALLOW_HTTP: "1" }).isHttps).toBe(false);
    expect(parseEnv({ ...prod }).isHttps).toBe(true);
  });

  it("checks ANALYTICS_RATE_LIMIT and SMTP_URL", () => {
    expect(parseEnv({}).ANALYTICS_RATE_LIMIT).toBe(600);
    expect(parseEnv({}).CATALOG_RATE_LIMIT).toBe(300);
    expect(() => parseEnv({ CATALOG_RATE_LIMIT: "lots" })).toThrow(/CATALOG_RATE_LIMIT/);
    expect(parseEnv({ ANALYTICS_RATE_LIMIT: "25" }).ANALYTICS_RATE_LIMIT).toBe(25);
    expect(() => parseEnv({ ANALYTICS_RATE_LIMIT: "0" })).toThrow(/ANALYTICS_RATE_LIMIT/);
    expect(() => parseEnv({ SMTP_URL: "http://mail" })).toThrow(/SMTP_URL/);
    expect(parseEnv({ SMTP_URL: "smtp://u:p@127.0.0.1:2525" }).SMTP_URL).toBe("smtp://u:p@127.0.0.1:2525");
    // An empty value (a compose file passing ${SMTP_URL} through unset) is unset, not a bad URL.
    expect(parseEnv({ SMTP_URL: "", PUBLIC_URL: " " }).SMTP_URL).toBeUndefined();
    expect(parseEnv({ DATABASE_URL: "" }).DATABASE_URL).toBe(LOCAL_URLS.DATABASE_URL);
  });

  it("reads ALLOWED_HOSTS as bare host names, normalized, and stops at anything else", () => {
    expect(parseEnv({}).ALLOWED_HOSTS).toEqual([]);
    expect(parseEnv({ ALLOWED_HOSTS: "" }).ALLOWED_HOSTS).toEqual([]);
    expect(parseEnv({ ALLOWED_HOSTS: " Soko.Example , 192.0.2.10,[2001:DB8::1], shop.soko.example. ," }).ALLOWED_HOSTS).toEqual([
      "soko.example",
      "192.0.2.10",
      "[2001:db8::1]",
      "shop.soko.example",
    ]);
    for (const bad of [
      "https://soko.example",
      "soko.example:8080",
      "soko.example/shop",
      "*.soko.example",
      "2001:db8::1",
      "user@soko.example",
      "soko example",
    ]) {
      expect(() => parseEnv({ ALLOWED_HOSTS: `ok.example,${bad}` }), bad).toThrow(/ALLOWED_HOSTS: ".*" is not a host name/);
    }
  });
});
