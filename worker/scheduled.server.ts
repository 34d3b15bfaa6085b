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
import { maskUrlCredentials } from "../app/utils/mask-url";

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
  const worker = new Worker(job.queue, () => oneRoundAtATime(redis, lease, job.run), { connection: redis, prefix: env.QUEUE_PREFIX, concurrency: 1 });
  // The next round tries again; say why this one failed (a database error may quote a URL).
  worker.on("failed", (_job, error) => console.error(maskUrlCredentials(`[${job.label}] failed: ${error.message}`)));
  worker.on("error", (error) => console.error(maskUrlCredentials(`[${job.label}] ${error.message}`)));
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
