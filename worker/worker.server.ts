import type { ClickHouseClient } from "@clickhouse/client";
import type { Redis } from "ioredis";
import { createClickHouse } from "../app/analytics/clickhouse.server";
import type { Env } from "../app/utils/env.server";
import { createRedis } from "../app/utils/redis.server";

export type RunningWorker = {
  redis: Redis;
  clickhouse: ClickHouseClient;
  close: () => Promise<void>;
};

/** Connects to Redis and ClickHouse, checks both answer, and says so. */
export async function startWorker(env: Env): Promise<RunningWorker> {
  // BullMQ workers block on their connection: it must not give up on a request (DESIGN.md §2).
  const redis = createRedis(env.REDIS_URL, { maxRetriesPerRequest: null });
  const clickhouse = createClickHouse({
    url: env.CLICKHOUSE_URL,
    database: env.CLICKHOUSE_DATABASE,
    username: env.CLICKHOUSE_USER,
    password: env.CLICKHOUSE_PASSWORD,
  });
  try {
    const [pong, ping] = await Promise.all([redis.ping(), clickhouse.ping()]);
    if (pong !== "PONG") throw new Error(`Redis answered ${pong}`);
    if (!ping.success) throw new Error(`ClickHouse did not answer: ${String(ping.error)}`);
  } catch (error) {
    redis.disconnect();
    await clickhouse.close();
    throw error;
  }
  console.log(`[worker] ready (redis ${env.REDIS_URL}, clickhouse ${env.CLICKHOUSE_URL}/${env.CLICKHOUSE_DATABASE})`);
  return {
    redis,
    clickhouse,
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
      await clickhouse.close();
    },
  };
}
