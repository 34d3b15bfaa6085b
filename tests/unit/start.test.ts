import { describe, expect, it } from "vitest";
import { parseEnv } from "~/server/env.server";
import { startEnv } from "../../scripts/start";

describe("npm start's environment (scripts/start.ts)", () => {
  it("has the web server listen on 127.0.0.1 only, unless HOST says otherwise", () => {
    expect(startEnv({}).HOST).toBe("127.0.0.1");
    expect(startEnv({}, { dev: true }).HOST).toBe("127.0.0.1");
    expect(startEnv({ DATABASE_URL: "postgres://soko@db.example:5432/soko" }).HOST).toBe("127.0.0.1");
    expect(startEnv({ HOST: "0.0.0.0" }).HOST).toBe("0.0.0.0");
    // What server.ts then reads from it.
    expect(parseEnv(startEnv({})).HOST).toBe("127.0.0.1");
  });

  it("shows /dev/outbox, demo data and plain http with the embedded services only", () => {
    expect(startEnv({})).toMatchObject({ NODE_ENV: "production", DEV_OUTBOX: "1", SEED_DEMO: "1", ALLOW_HTTP: "1" });
    const own = startEnv({ DATABASE_URL: "postgres://soko@db.example:5432/soko" });
    expect(own.DEV_OUTBOX).toBeUndefined();
    expect(own.SEED_DEMO).toBeUndefined();
    expect(own.ALLOW_HTTP).toBeUndefined();
  });

  it("writes readable log lines under --dev and JSON lines otherwise, unless LOG_FORMAT says", () => {
    expect(parseEnv(startEnv({}, { dev: true })).LOG_FORMAT).toBe("pretty");
    expect(parseEnv(startEnv({})).LOG_FORMAT).toBe("json");
    expect(parseEnv(startEnv({ LOG_FORMAT: "json" }, { dev: true })).LOG_FORMAT).toBe("json");
  });
});
