/**
 * A job the worker runs on a schedule (a BullMQ job scheduler): however many workers run, one of them runs
 * each round; a restart neither doubles nor loses the schedule; the first round runs as soon as the
 * schedule is first registered. Rounds run one at a time. The work itself is an operation, idempotent, so a
 * round a killed worker left half done is simply done again by the next.
 */
import { Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Env } from "../app/server/env.server";
import { maskUrlCredentials } from "../app/utils/mask-url";

export type Scheduled = { queue: Queue; worker: Worker; close: () => Promise<void> };

export async function startScheduledJob(
  env: Env,
  redis: Redis,
  job: { queue: string; scheduler: string; everyMs: number; label: string; keep?: number; run: () => Promise<unknown>; onClose?: () => Promise<void> },
): Promise<Scheduled> {
  const queue = new Queue(job.queue, { connection: redis, prefix: env.QUEUE_PREFIX });
  const worker = new Worker(job.queue, job.run, { connection: redis, prefix: env.QUEUE_PREFIX, concurrency: 1 });
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
