import type { ClickHouseClient } from "@clickhouse/client";
import type { Redis } from "ioredis";
import { clickHouseOptions, createClickHouse } from "../app/analytics/clickhouse.server";
import type { Env } from "../app/server/env.server";
import { maskUrlCredentials } from "../app/utils/mask-url";
import { createRedis } from "../app/server/redis.server";
import { backgroundJobs, describeSchedule, startJobs } from "./jobs.server";
import { log } from "../app/server/log.server";

export type RunningWorker = {
  redis: Redis;
  clickhouse: ClickHouseClient;
  close: () => Promise<void>;
};

/** Connects to Redis and ClickHouse, checks both answer, starts every job of worker/jobs.server.ts, and says so. */
export async function startWorker(env: Env): Promise<RunningWorker> {
  // BullMQ workers block on their connection: it must not give up on a request. No auto-pipelining: BullMQ
  // sends its commands one at a time and waits for each, so ioredis would build a pipeline for nearly every
  // command (ADR 036).
  const redis = createRedis(env.REDIS_URL, { maxRetriesPerRequest: null, enableAutoPipelining: false });
  const clickhouse = createClickHouse(clickHouseOptions(env));
  const jobs = backgroundJobs(env);
  let running: Awaited<ReturnType<typeof startJobs>>;
  try {
    const [pong, ping] = await Promise.all([redis.ping(), clickhouse.ping()]);
    if (pong !== "PONG") throw new Error(`Redis answered ${pong}`);
    if (!ping.success) throw new Error(`ClickHouse did not answer: ${String(ping.error)}`);
    running = await startJobs(jobs, { env, redis, clickhouse });
  } catch (error) {
    redis.disconnect();
    await clickhouse.close();
    throw error;
  }
  // The URLs may carry passwords (redis://:password@host): masked, like every URL we log.
  log.info(
    maskUrlCredentials(
      `[worker] ready (redis ${env.REDIS_URL}, clickhouse ${env.CLICKHOUSE_URL}/${env.CLICKHOUSE_DATABASE}, ` +
        `batches of ${env.INGEST_BATCH_ROWS} rows or ${env.INGEST_BATCH_MS} ms; ` +
        `${jobs.map((job) => `${job.name} ${describeSchedule(job.schedule)}`).join(", ")})`,
    ),
  );
  return {
    redis,
    clickhouse,
    close: async () => {
      // Every job lets the work in hand finish (the ingest inserts what it holds) before the connections go.
      await running.close();
      await redis.quit().catch(() => redis.disconnect());
      await clickhouse.close();
    },
  };
}
