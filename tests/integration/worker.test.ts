import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEnv } from "~/server/env.server";
import { startTsx, waitUntil } from "../../scripts/lib/servers";
import { createTestDatabase, type TestDatabase } from "../support/databases";

// A database and queues of its own: a worker carries out whatever effects, mail and queued events it finds,
// and the machine's own database (seeded by `npm start`) is not this test's to drain.
let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t?.drop());

function runWorker(env: Record<string, string>) {
  const worker = startTsx("worker", ["worker/index.ts"], { DATABASE_URL: t.url, QUEUE_PREFIX: `worker_test_${process.pid}`, ...env });
  const waitFor = (text: string) => waitUntil(worker, () => worker.output().includes(text), JSON.stringify(text), 20_000, 50);
  return { ...worker, exited: worker.exit, waitFor };
}

describe("worker process", () => {
  it("connects to Redis and ClickHouse, says it is ready, and closes on SIGTERM", async () => {
    const env = getEnv();
    const worker = runWorker({ REDIS_URL: env.REDIS_URL, CLICKHOUSE_URL: env.CLICKHOUSE_URL });
    await worker.waitFor("[worker] ready");
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    expect(worker.output()).toContain("[worker] closed");
  });

  it("never logs the password of a service URL", async () => {
    const env = getEnv();
    // Our Redis's default user takes any password, so the worker starts and prints its ready line.
    const url = new URL(env.REDIS_URL);
    url.username = "default";
    url.password = "worker-secret-pw";
    const worker = runWorker({ REDIS_URL: url.toString(), CLICKHOUSE_URL: env.CLICKHOUSE_URL });
    await worker.waitFor("[worker] ready");
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    expect(worker.output()).toContain(`redis redis://default:***@${url.host}`);
    expect(worker.output()).not.toContain("worker-secret-pw");
  });

  it("refuses to start when ClickHouse cannot be reached, saying why", async () => {
    const worker = runWorker({ CLICKHOUSE_URL: "http://127.0.0.1:9" });
    expect(await worker.exited).toBe(1);
    expect(worker.output()).toContain("[worker] could not start");
  });

  it("refuses an invalid environment before doing anything", async () => {
    const worker = runWorker({ REDIS_URL: "not a url" });
    expect(await worker.exited).toBe(1);
    expect(worker.output()).toMatch(/Invalid environment:\n\s+REDIS_URL/);
  });
});
