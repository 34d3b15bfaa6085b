import type { ClickHouseClient } from "@clickhouse/client";
import type { Redis } from "ioredis";
import { clickHouseOptions, createClickHouse } from "../app/analytics/clickhouse.server";
import { INGEST_QUEUE } from "../app/analytics/events";
import { ingestStreamKey } from "../app/analytics/ingest-stream.server";
import type { Env } from "../app/server/env.server";
import { maskUrlCredentials } from "../app/utils/mask-url";
import { createRedis } from "../app/server/redis.server";
import { startEffects } from "./effects-runner.server";
import { startHousekeeping, type Housekeeping } from "./housekeeping-job.server";
import { startIngest, type Ingest } from "./ingest-consumer.server";
import { startRollups } from "./rollups-job.server";
import { startMailDelivery } from "./mail-sender.server";
import { startOrderTimers } from "./order-timers-job.server";
import type { Scheduled } from "./scheduled.server";

export type RunningWorker = {
  redis: Redis;
  clickhouse: ClickHouseClient;
  ingest: Ingest;
  close: () => Promise<void>;
};

/** Connects to Redis and ClickHouse, checks both answer, starts the consumers, and says so. */
export async function startWorker(env: Env): Promise<RunningWorker> {
  // BullMQ workers block on their connection: it must not give up on a request (maxRetriesPerRequest: null). No
  // auto-pipelining: BullMQ sends its commands one at a time and waits for each, so ioredis would build a
  // pipeline for nearly every command, copying BullMQ's ~50 Lua commands into each; without it the worker spent
  // 46 µs of CPU per single-event tracking request in bench:ingest instead of 71 (ADR 021).
  const redis = createRedis(env.REDIS_URL, { maxRetriesPerRequest: null, enableAutoPipelining: false });
  const clickhouse = createClickHouse(clickHouseOptions(env));
  let ingest: Ingest;
  let housekeeping: Housekeeping;
  let orderTimers: Scheduled;
  let rollups: Scheduled;
  try {
    const [pong, ping] = await Promise.all([redis.ping(), clickhouse.ping()]);
    if (pong !== "PONG") throw new Error(`Redis answered ${pong}`);
    if (!ping.success) throw new Error(`ClickHouse did not answer: ${String(ping.error)}`);
    // The analytics stream (and queue) → ClickHouse, in batches (worker/ingest-consumer.server.ts).
    ingest = await startIngest(env, { redis, clickhouse });
    // Unused uploads, stray files, expired sessions and spent reset links, hourly (worker/housekeeping-job.server.ts).
    housekeeping = await startHousekeeping(env, redis);
    // Payment and payout polls, unpaid-order expiry, auto-complete and clearance (worker/order-timers-job.server.ts).
    orderTimers = await startOrderTimers(env, redis);
    // The reports' derived tables, every minute (worker/rollups-job.server.ts).
    rollups = await startRollups(env, redis, clickhouse);
  } catch (error) {
    redis.disconnect();
    await clickhouse.close();
    throw error;
  }
  // The URLs may carry passwords (redis://:password@host): masked, like every URL we log.
  console.log(
    maskUrlCredentials(
      `[worker] ready (redis ${env.REDIS_URL}, clickhouse ${env.CLICKHOUSE_URL}/${env.CLICKHOUSE_DATABASE}, ` +
        `stream ${ingestStreamKey(env.QUEUE_PREFIX)} and queue ${env.QUEUE_PREFIX}:${INGEST_QUEUE}, batches of ${env.INGEST_BATCH_ROWS} rows or ${env.INGEST_BATCH_MS} ms)`,
    ),
  );
  // The outbox table → SMTP_URL (worker/mail-sender.server.ts); without SMTP_URL, mail stays in the table.
  const mail = startMailDelivery(env);
  // The operations layer's after-commit effects (worker/effects-runner.server.ts): file deletions, conversions.
  const effects = startEffects(env);
  return {
    redis,
    clickhouse,
    ingest,
    close: async () => {
      // Stop taking jobs and insert what is buffered before the connections go.
      await Promise.all([ingest.close(), mail?.close(), housekeeping.close(), orderTimers.close(), rollups.close(), effects.close()]);
      await redis.quit().catch(() => redis.disconnect());
      await clickhouse.close();
    },
  };
}
