/**
 * A job the worker runs on a schedule (a BullMQ job scheduler): however many workers run, one of them runs
 * each round; a restart neither doubles nor loses the schedule; the first round runs as soon as the
 * schedule is first registered. Rounds run one at a time, across every worker: BullMQ adds a round's successor
 * when the round starts, so a round longer than the period would otherwise overlap the next one on another
 * worker; a lease in Redis (held while the round runs, renewed, released by its holder only) makes the next one
 * skip instead. The work itself is an operation, idempotent, so a round a killed worker left half done is simply
 * done again by the next (its lease lapses after ROUND_LEASE_MS).
 */
import { randomUUID } from "node:crypto";
import { Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Env } from "../app/server/env.server";
import { log } from "../app/server/log.server";
import { jobDuration, jobRuns } from "../app/server/metrics.server";
import { maskUrlCredentials } from "../app/utils/mask-url";

/**
 * One round, with one log line (job, outcome, duration, what it counted) and its metrics (ADR 057). A failed
 * round is thrown on to BullMQ; the next round tries again (a database error may quote a URL: masked).
 */
async function measuredRun(label: string, run: () => Promise<unknown>): Promise<unknown> {
  const started = performance.now();
  try {
    const done = await run();
    const ms = performance.now() - started;
    jobRuns.inc({ job: label, outcome: "ok" });
    jobDuration.observe({ job: label }, ms / 1000);
    log.info({ job: label, outcome: "ok", ms: Math.round(ms), counts: countsOf(done) }, `[${label}] round done`);
    return done;
  } catch (error) {
    jobRuns.inc({ job: label, outcome: "failed" });
    log.error(
      { job: label, outcome: "failed", ms: Math.round(performance.now() - started), err: error },
      maskUrlCredentials(`[${label}] failed: ${(error as Error).message}`),
    );
    throw error;
  }
}

/** The numbers in what a round returned (`{ payments: 2, cleared: 0 }`), for its log line; nothing else it holds. */
function countsOf(done: unknown): Record<string, number> | undefined {
  if (!done || typeof done !== "object") return undefined;
  const counts = Object.entries(done).filter((entry): entry is [string, number] => typeof entry[1] === "number");
  return counts.length ? Object.fromEntries(counts) : undefined;
}

export type Scheduled = { queue: Queue; worker: Worker; close: () => Promise<void> };

/** How long a round's lease lasts unless renewed (every third of it while the round runs). */
export const ROUND_LEASE_MS = 60_000;
/** Renews or releases a lease only for the holder whose token it still is. */
const RENEW = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) end return 0`;
const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0`;

/** Runs `run` holding the round's lease; returns `{ skipped }` when another worker's round still holds it. */
export async function oneRoundAtATime<T>(redis: Redis, key: string, run: () => Promise<T>): Promise<T | { skipped: "previous round still running" }> {
  const token = randomUUID();
  if ((await redis.set(key, token, "PX", ROUND_LEASE_MS, "NX")) !== "OK") return { skipped: "previous round still running" };
  const renew = setInterval(() => void redis.eval(RENEW, 1, key, token, ROUND_LEASE_MS).catch(() => undefined), ROUND_LEASE_MS / 3);
  try {
    return await run();
  } finally {
    clearInterval(renew);
    await redis.eval(RELEASE, 1, key, token).catch(() => undefined);
  }
}

export async function startScheduledJob(
  env: Env,
  redis: Redis,
  job: { queue: string; scheduler: string; everyMs: number; label: string; keep?: number; run: () => Promise<unknown>; onClose?: () => Promise<void> },
): Promise<Scheduled> {
  const queue = new Queue(job.queue, { connection: redis, prefix: env.QUEUE_PREFIX });
  const lease = `${env.QUEUE_PREFIX}:${job.queue}:round`;
  const worker = new Worker(job.queue, () => oneRoundAtATime(redis, lease, () => measuredRun(job.label, job.run)), {
    connection: redis,
    prefix: env.QUEUE_PREFIX,
    concurrency: 1,
  });
  worker.on("error", (error) => log.error({ err: error }, maskUrlCredentials(`[${job.label}] ${error.message}`)));
  const close = async () => {
    await worker.close();
    await queue.close();
    await job.onClose?.();
  };
  try {
    await queue.upsertJobScheduler(
      job.scheduler,
      { every: job.everyMs },
      { name: job.label, opts: { removeOnComplete: { count: job.keep ?? 24 }, removeOnFail: { count: 100 } } },
    );
  } catch (error) {
    await close();
    throw error;
  }
  return { queue, worker, close };
}
