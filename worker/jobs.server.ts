/**
 * Every background activity of the worker, in one list (ADR 037): what it does, when it runs, what happens
 * when it fails. worker.server.ts starts them in this order and closes them all on SIGTERM. Three ways to
 * run, each kept where it fits:
 * - `stream`: the ingest consumer reads the Redis stream the web processes append to, all the time;
 * - `drain`: a loop over a Postgres outbox table (rows written in the same transaction as the change that
 *   made them), taking what is due, and looking again `pollMs` after a round that found nothing;
 * - `every`: a BullMQ job scheduler; however many workers run, one of them runs each round;
 * - `each-worker`: a timer in every worker (the gauges each worker's metrics show).
 */
import type { ClickHouseClient } from "@clickhouse/client";
import type { Redis } from "ioredis";
import type { Env } from "../app/server/env.server";
import type { Backoff } from "../app/utils/backoff";
import { startEffects } from "./effects-runner.server";
import { GAUGES_EVERY_MS, startGauges } from "./gauges-job.server";
import { HOUSEKEEPING_EVERY_MS, startHousekeeping } from "./housekeeping-job.server";
import { startIngest } from "./ingest-consumer.server";
import { LEVELS_EVERY_MS, startLevels } from "./levels-job.server";
import { startMailDelivery } from "./mail-sender.server";
import { startOrderTimers } from "./order-timers-job.server";
import { ROLLUPS_EVERY_MS, startRollups } from "./rollups-job.server";

export type Schedule = { kind: "stream" } | { kind: "drain"; pollMs: number } | { kind: "every"; everyMs: number } | { kind: "each-worker"; everyMs: number };

/**
 * `backoff`: the failed item is tried again after a doubling pause (app/utils/backoff.ts), `maxAttempts`
 * times at most (unbounded without), then kept with its error (`givenUpTo` says where). `next-round`: a
 * round that fails is logged and the next round does it again (every round's work is idempotent).
 */
export type RetryPolicy = { kind: "backoff"; policy: Backoff & { maxAttempts?: number }; givenUpTo: string } | { kind: "next-round" };

export type Running = { close: () => Promise<void> };
export type Services = { env: Env; redis: Redis; clickhouse: ClickHouseClient };

export type BackgroundJob = {
  name: string;
  /** What it does, in a line (for the reader and the ready log). */
  does: string;
  schedule: Schedule;
  retry: RetryPolicy;
  /** Starts it; null when it has nothing to do in this environment (mail without SMTP_URL). */
  start: (services: Services) => Promise<Running | null>;
};

export function backgroundJobs(env: Env): BackgroundJob[] {
  const effectsRetry = { initialMs: 1_000, maxMs: 10 * 60_000, maxAttempts: 12 };
  const mailRetry = { initialMs: 30_000, maxMs: 60 * 60_000, maxAttempts: 10, jitter: 0.2 };
  return [
    {
      name: "ingest",
      does: "the analytics stream → ClickHouse, in batches (ingest-consumer.server.ts)",
      schedule: { kind: "stream" },
      // An INSERT that fails for another reason than its data is retried as long as it takes; an entry that
      // fails for good (its data, or ten workers died holding it) goes to the dead letters.
      retry: { kind: "backoff", policy: { initialMs: 200, maxMs: 10_000, jitter: 0.2 }, givenUpTo: "the dead letters" },
      start: ({ env, redis, clickhouse }) => startIngest(env, { redis, clickhouse }),
    },
    {
      name: "housekeeping",
      does: "unused uploads, stray files, expired sessions and spent reset links (housekeeping-job.server.ts)",
      schedule: { kind: "every", everyMs: HOUSEKEEPING_EVERY_MS },
      retry: { kind: "next-round" },
      start: ({ env, redis }) => startHousekeeping(env, redis, { everyMs: HOUSEKEEPING_EVERY_MS }),
    },
    {
      name: "order-timers",
      does: "payment and payout polls, unpaid-order expiry, auto-complete and clearance (order-timers-job.server.ts)",
      schedule: { kind: "every", everyMs: env.ORDER_TIMERS_EVERY_MS },
      retry: { kind: "next-round" },
      start: ({ env, redis }) => startOrderTimers(env, redis, { everyMs: env.ORDER_TIMERS_EVERY_MS }),
    },
    {
      name: "rollups",
      does: "the reports' derived tables (rollups-job.server.ts)",
      schedule: { kind: "every", everyMs: ROLLUPS_EVERY_MS },
      retry: { kind: "next-round" },
      start: ({ env, redis, clickhouse }) => startRollups(env, redis, clickhouse, { everyMs: ROLLUPS_EVERY_MS }),
    },
    {
      name: "seller-levels",
      does: "every seller's level and response time measured again (levels-job.server.ts)",
      schedule: { kind: "every", everyMs: LEVELS_EVERY_MS },
      retry: { kind: "next-round" },
      start: ({ env, redis }) => startLevels(env, redis, { everyMs: LEVELS_EVERY_MS }),
    },
    {
      name: "mail",
      does: "the mail outbox table → SMTP_URL (mail-sender.server.ts); without SMTP_URL, mail stays in the table",
      schedule: { kind: "drain", pollMs: 2_000 },
      // A permanent refusal (5xx) is not retried; nor is mail older than a day.
      retry: { kind: "backoff", policy: mailRetry, givenUpTo: "the outbox row (its error kept)" },
      start: async ({ env }) =>
        startMailDelivery(env, { pollMs: 2_000, retryInitialMs: mailRetry.initialMs, retryMaxMs: mailRetry.maxMs, maxAttempts: mailRetry.maxAttempts }),
    },
    {
      name: "effects",
      does: "the operations' after-commit effects: file deletions, conversions, message mail, level recomputations (effects-runner.server.ts)",
      schedule: { kind: "drain", pollMs: 500 },
      retry: { kind: "backoff", policy: effectsRetry, givenUpTo: "the effects row (its error kept)" },
      start: async ({ env }) =>
        startEffects(env, { pollMs: 500, retryInitialMs: effectsRetry.initialMs, retryMaxMs: effectsRetry.maxMs, maxAttempts: effectsRetry.maxAttempts }),
    },
    {
      name: "gauges",
      does: "payments stuck, work waiting and the ingest's lag, for the metrics (gauges-job.server.ts)",
      schedule: { kind: "each-worker", everyMs: GAUGES_EVERY_MS },
      retry: { kind: "next-round" },
      start: async ({ env, redis }) => startGauges(env, redis),
    },
  ];
}

/**
 * Starts the jobs in order; if one cannot start, closes those already started and throws. `close` closes them
 * all at once (each lets the work in hand finish: a batch inserted, a mail sent, a round done).
 */
export async function startJobs(jobs: BackgroundJob[], services: Services): Promise<Running> {
  const running: Running[] = [];
  const close = async () => {
    await Promise.all(running.map((job) => job.close()));
  };
  try {
    for (const job of jobs) {
      const started = await job.start(services);
      if (started) running.push(started);
    }
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
  return { close };
}

/** The schedule of a job, in words (for the ready log). */
export function describeSchedule(schedule: Schedule): string {
  if (schedule.kind === "stream") return "reads its stream";
  if (schedule.kind === "drain") return `drains its table (every ${schedule.pollMs} ms when idle)`;
  if (schedule.kind === "each-worker") return `every ${schedule.everyMs / 1000} s in each worker`;
  return `every ${schedule.everyMs / 1000} s`;
}
