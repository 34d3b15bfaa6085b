import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { LOCAL_URLS } from "~/utils/local-services";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const tsx = path.join(root, "node_modules", ".bin", "tsx");

async function services(args: string[], env: Record<string, string | undefined> = {}) {
  const clean = { ...process.env, ...env };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete clean[key];
  const { stdout } = await run(tsx, ["scripts/services.ts", ...args], { cwd: root, env: clean });
  return stdout;
}

const noUrls = { DATABASE_URL: undefined, REDIS_URL: undefined, CLICKHOUSE_URL: undefined };

describe("scripts/services.ts (the embedded Postgres, Redis and ClickHouse)", () => {
  it("reuses what is already running: a second start changes no process", async () => {
    const before = JSON.parse(await services(["status"], noUrls));
    expect(before).toMatchObject({ postgres: true, redis: true, clickhouse: true });
    const out = await services(["start"], noUrls);
    expect(out).toContain("postgres already running");
    expect(out).toContain("redis already running");
    expect(out).toContain("clickhouse already running");
    const after = JSON.parse(await services(["status"], noUrls));
    expect(after.pids).toEqual(before.pids);
  });

  it("keeps Redis's append-only file on", async () => {
    const { Redis } = await import("ioredis");
    const redis = new Redis(LOCAL_URLS.REDIS_URL);
    try {
      expect(await redis.config("GET", "appendonly")).toEqual(["appendonly", "yes"]);
    } finally {
      redis.disconnect();
    }
  });

  it("starts nothing when the URLs are set", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-data-"));
    try {
      const out = await services(["start"], { ...LOCAL_URLS, SOKO_DATA_DIR: dataDir });
      expect(out).toContain("postgres: using DATABASE_URL, starting nothing");
      expect(out).toContain("redis: using REDIS_URL, starting nothing");
      expect(out).toContain("clickhouse: using CLICKHOUSE_URL, starting nothing");
      expect(fs.readdirSync(dataDir)).toEqual([]);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
