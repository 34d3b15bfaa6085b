/**
 * The operator's gauges that only a query can tell (ADR 057), measured by every worker on its own timer (a
 * few counts on partial indexes): payments and payouts pending for longer than STUCK_AFTER_MS, effects and
 * mail waiting, the scheduled jobs' BullMQ rounds waiting, and how far the analytics ingest is behind.
 * Every worker shows the same figures; the dashboard takes their max.
 */
import { Queue } from "bullmq";
import type { Knex } from "knex";
import type { Redis } from "ioredis";
import { queueHealth } from "../app/analytics/pipeline-stats.server";
import { moneyStuck, workWaiting } from "../app/models/backlog.server";
import { createDb } from "../app/server/db.server";
import type { Env } from "../app/server/env.server";
import { log } from "../app/server/log.server";
import { ingestLag, ingestPending, paymentsStuck, queueDepth } from "../app/server/metrics.server";
import { maskUrlCredentials } from "../app/utils/mask-url";
import { HOUSEKEEPING_QUEUE } from "./housekeeping-job.server";
import { LEVELS_QUEUE } from "./levels-job.server";
import { ORDER_TIMERS_QUEUE } from "./order-timers-job.server";
import { ROLLUPS_QUEUE } from "./rollups-job.server";

export const GAUGES_EVERY_MS = 15_000;
/** A payment the payer has not approved in 15 minutes, or a payout still in transit, wants a look. */
export const STUCK_AFTER_MS = 15 * 60_000;

export async function measureGauges({ db, redis, prefix, queues }: { db: Knex; redis: Redis; prefix: string; queues: Queue[] }) {
  const [stuck, waiting, ingest, rounds] = await Promise.all([
    moneyStuck(db, STUCK_AFTER_MS),
    workWaiting(db),
    queueHealth(redis, prefix),
    Promise.all(queues.map((queue) => queue.getWaitingCount())),
  ]);
  paymentsStuck.set({ kind: "payment" }, stuck.payments);
  paymentsStuck.set({ kind: "payout" }, stuck.payouts);
  queueDepth.set({ queue: "effects" }, waiting.effects);
  queueDepth.set({ queue: "mail_outbox" }, waiting.mailOutbox);
  queueDepth.set(
    { queue: "bullmq" },
    rounds.reduce((a, b) => a + b, 0),
  );
  ingestPending.set(ingest.waiting + ingest.active);
  ingestLag.set(ingest.lagMs / 1000);
}

export function startGauges(env: Env, redis: Redis, { everyMs = GAUGES_EVERY_MS }: { everyMs?: number } = {}) {
  const db = createDb(env.DATABASE_URL, { min: 0, max: 1 });
  const queues = [ORDER_TIMERS_QUEUE, HOUSEKEEPING_QUEUE, ROLLUPS_QUEUE, LEVELS_QUEUE].map(
    (name) => new Queue(name, { connection: redis, prefix: env.QUEUE_PREFIX }),
  );
  let lastError = 0;
  const measure = () =>
    measureGauges({ db, redis, prefix: env.QUEUE_PREFIX, queues }).catch((error: Error) => {
      // Said at most once a minute while the database or Redis is away.
      if (Date.now() - lastError < 60_000) return;
      lastError = Date.now();
      log.warn(maskUrlCredentials(`[gauges] could not measure: ${error.message}`));
    });
  let round = measure();
  const timer = setInterval(() => {
    round = measure();
  }, everyMs);
  timer.unref();
  return {
    close: async () => {
      clearInterval(timer);
      await round;
      await Promise.all(queues.map((queue) => queue.close()));
      await db.destroy();
    },
  };
}
