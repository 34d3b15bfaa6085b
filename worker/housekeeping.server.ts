/**
 * Housekeeping, once an hour (a BullMQ job scheduler, so that however many workers run, one of them does it
 * each hour, and a restart neither doubles nor loses the schedule):
 * - uploads no gig and no profile uses a day after they were made: their `uploads` row and their files. A
 *   seller uploads images while filling in the gig form and may leave without saving; those stay a day, so
 *   a form left open can still be saved;
 * - files in the upload directory more than a day old that no row names at all (a crash between writing an
 *   image and recording it, or between deleting a row and its files);
 * - expired sessions, and password-reset links that expired or were used more than a day ago (kept that
 *   day so that following a spent link still says what happened to it).
 * The work itself is the runHousekeeping operation (app/operations/housekeeping.server.ts).
 */
import { Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Knex } from "knex";
import { createDb } from "../app/utils/db.server";
import type { Env } from "../app/utils/env.server";
import { maskUrlCredentials } from "../app/utils/mask-url";
import { runHousekeeping, type HousekeepingResult } from "../app/operations/housekeeping.server";
import { systemActor } from "../app/operations/core.server";
import { uploadDir } from "../app/utils/storage.server";

const actor = systemActor("housekeeping");
const LABELS: Record<keyof HousekeepingResult, string> = {
  uploads: "unused uploads",
  strayFiles: "stray files",
  sessions: "expired sessions",
  passwordResets: "spent reset links",
  effects: "finished effects",
};


export const HOUSEKEEPING_QUEUE = "housekeeping";
export const HOUSEKEEPING_SCHEDULER = "housekeeping-hourly";
export const HOUSEKEEPING_EVERY_MS = 60 * 60_000;

export type Housekeeping = { queue: Queue; close: () => Promise<void> };

export type HousekeepingOptions = {
  /** The database to keep; by default a small pool of its own on DATABASE_URL. */
  db?: Knex;
  uploadDir?: string;
};

/**
 * Registers the hourly schedule (idempotent: one scheduler by its id, however often a worker starts; the
 * first round runs as soon as it is first registered) and consumes its jobs, one at a time.
 */
export async function startHousekeeping(env: Env, redis: Redis, options: HousekeepingOptions = {}): Promise<Housekeeping> {
  const ownDb = options.db ? undefined : createDb(env.DATABASE_URL, { min: 0, max: 2 });
  const db = options.db ?? ownDb!;
  const dir = options.uploadDir ?? uploadDir(env);
  const queue = new Queue(HOUSEKEEPING_QUEUE, { connection: redis, prefix: env.QUEUE_PREFIX });
  const worker = new Worker(
    HOUSEKEEPING_QUEUE,
    async () => {
      const done = await runHousekeeping(actor, { uploadDir: dir }, { db });
      if (!done.ok) throw new Error(done.error);
      const result = done.value;
      const removed = (Object.keys(result) as (keyof HousekeepingResult)[]).filter((what) => result[what] > 0);
      if (removed.length) console.log(`[housekeeping] removed ${removed.map((what) => `${result[what]} ${LABELS[what]}`).join(", ")}`);
      return result;
    },
    { connection: redis, prefix: env.QUEUE_PREFIX, concurrency: 1 },
  );
  // The next hour tries again; say why this one failed (a database error may quote a URL).
  worker.on("failed", (_job, error) => console.error(maskUrlCredentials(`[housekeeping] failed: ${error.message}`)));
  worker.on("error", (error) => console.error(maskUrlCredentials(`[housekeeping] ${error.message}`)));
  try {
    await queue.upsertJobScheduler(
      HOUSEKEEPING_SCHEDULER,
      { every: HOUSEKEEPING_EVERY_MS },
      { name: "housekeeping", opts: { removeOnComplete: { count: 24 }, removeOnFail: { count: 100 } } },
    );
  } catch (error) {
    await worker.close();
    await queue.close();
    await ownDb?.destroy();
    throw error;
  }
  return {
    queue,
    close: async () => {
      await worker.close();
      await queue.close();
      await ownDb?.destroy();
    },
  };
}
