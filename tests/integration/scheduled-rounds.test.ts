/**
 * Scheduled rounds across several workers (worker/scheduled.server.ts, ADR 059): a round that outlasts its
 * period is never run twice at once, by two workers sharing the schedule.
 */
import { afterAll, describe, expect, it } from "vitest";
import { getEnv } from "~/server/env.server";
import { createRedis } from "~/server/redis.server";
import { startScheduledJob, type Scheduled } from "../../worker/scheduled.server";
import { ownQueuePrefix } from "../support/orders";

ownQueuePrefix("rounds");

describe("a scheduled round on two workers", () => {
  const env = getEnv();
  const redis = [0, 1].map(() => createRedis(env.REDIS_URL, { maxRetriesPerRequest: null, enableAutoPipelining: false }));
  const jobs: Scheduled[] = [];

  afterAll(async () => {
    await Promise.all(jobs.map((j) => j.close()));
    const keys = await redis[0]!.keys(`${env.QUEUE_PREFIX}*`);
    if (keys.length) await redis[0]!.del(...keys);
    await Promise.all(redis.map((r) => r.quit()));
  });

  it("runs one round at a time however long it takes, and goes on running rounds", { timeout: 30_000 }, async () => {
    let running = 0;
    let most = 0;
    let rounds = 0;
    const run = async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 700));
      running--;
      rounds++;
      return {};
    };
    // Two workers of one schedule, every 150 ms, each round taking 700 ms.
    for (const connection of redis) {
      jobs.push(await startScheduledJob(env, connection, { queue: "rounds-test", scheduler: "rounds-test-every", everyMs: 150, label: "rounds", run }));
    }
    await new Promise((r) => setTimeout(r, 4_000));
    expect(most).toBe(1);
    expect(rounds).toBeGreaterThanOrEqual(3);
  });
});
