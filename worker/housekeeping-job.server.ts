/**
 * Housekeeping, once an hour (a scheduled job, worker/scheduled.server.ts):
 * - uploads no gig and no profile uses a day after they were made: their `uploads` row and their files. A
 *   seller uploads images while filling in the gig form and may leave without saving; those stay a day, so
 *   a form left open can still be saved;
 * - the requirement files of checkouts never paid, a day after the order was given up (delete_file effects);
 * - files in the file store (the disk or S3) more than a day old that no row names at all (a crash between writing an
 *   image or an attachment and recording it, or between deleting a row and its files);
 * - expired sessions, and password-reset links that expired or were used more than a day ago (kept that
 *   day so that following a spent link still says what happened to it).
 * The work itself is the runHousekeeping operation (app/operations/housekeeping.server.ts).
 */
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { Knex } from "knex";
import { createDb } from "../app/server/db.server";
import type { Env } from "../app/server/env.server";
import { runHousekeeping, type HousekeepingResult } from "../app/operations/housekeeping.server";
import { systemActor } from "../app/operations/core.server";
import { diskStore, fileStore, type FileStore } from "../app/server/files/file-store.server";
import { startScheduledJob } from "./scheduled.server";
import { failureMessage } from "../app/content/operation-messages";
import { log } from "../app/server/log.server";

const actor = systemActor("housekeeping");
const LABELS: Record<keyof HousekeepingResult, string> = {
  uploads: "unused uploads",
  unpaidOrderFiles: "files of unpaid checkouts",
  strayFiles: "stray files",
  sessions: "expired sessions",
  passwordResets: "spent reset links",
  effects: "finished effects",
  idempotencyKeys: "spent idempotency keys",
};

export const HOUSEKEEPING_QUEUE = "housekeeping";
export const HOUSEKEEPING_SCHEDULER = "housekeeping-hourly";
export const HOUSEKEEPING_EVERY_MS = 60 * 60_000;

export type Housekeeping = { queue: Queue; close: () => Promise<void> };

export type HousekeepingOptions = {
  /** The database to keep; by default a small pool of its own on DATABASE_URL. */
  db?: Knex;
  /** The file store to keep: by default the environment's (S3_BUCKET or UPLOAD_DIR); `uploadDir` names a disk store. */
  store?: FileStore;
  uploadDir?: string;
  /** How often a round runs (worker/jobs.server.ts); HOUSEKEEPING_EVERY_MS by default. */
  everyMs?: number;
};

/**
 * Registers the hourly schedule (idempotent: one scheduler by its id, however often a worker starts; the
 * first round runs as soon as it is first registered) and consumes its jobs, one at a time.
 */
export async function startHousekeeping(env: Env, redis: Redis, options: HousekeepingOptions = {}): Promise<Housekeeping> {
  const ownDb = options.db ? undefined : createDb(env.DATABASE_URL, { min: 0, max: 2 });
  const db = options.db ?? ownDb!;
  const store = options.store ?? (options.uploadDir ? diskStore(options.uploadDir) : fileStore(env));
  const { queue, close } = await startScheduledJob(env, redis, {
    queue: HOUSEKEEPING_QUEUE,
    scheduler: HOUSEKEEPING_SCHEDULER,
    everyMs: options.everyMs ?? HOUSEKEEPING_EVERY_MS,
    label: "housekeeping",
    run: async () => {
      const done = await runHousekeeping(actor, { store }, { db });
      if (!done.ok) throw new Error(`${done.error}: ${failureMessage(done)}`);
      const result = done.value;
      const removed = (Object.keys(result) as (keyof HousekeepingResult)[]).filter((what) => result[what] > 0);
      if (removed.length) log.info(`[housekeeping] removed ${removed.map((what) => `${result[what]} ${LABELS[what]}`).join(", ")}`);
      return result;
    },
    onClose: async () => {
      await ownDb?.destroy();
    },
  });
  return { queue, close };
}
