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
 * The work itself is runHousekeeping, a plain function of a database and a directory.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Knex } from "knex";
import { createDb } from "../app/utils/db.server";
import type { Env } from "../app/utils/env.server";
import { maskUrlCredentials } from "../app/utils/mask-url";
import { deleteImageFrom, imageOfFile, uploadDir } from "../app/utils/storage.server";

export const HOUSEKEEPING_QUEUE = "housekeeping";
export const HOUSEKEEPING_SCHEDULER = "housekeeping-hourly";
export const HOUSEKEEPING_EVERY_MS = 60 * 60_000;
/** How long an upload may go unused, a stray file lie about, a spent reset link be kept. */
export const KEEP_UNUSED_MS = 24 * 60 * 60_000;
/** Rows removed per statement, so that a large backlog never holds long locks. */
const BATCH = 1000;

export type HousekeepingResult = { uploads: number; strayFiles: number; sessions: number; passwordResets: number };
const LABELS: Record<keyof HousekeepingResult, string> = {
  uploads: "unused uploads",
  strayFiles: "stray files",
  sessions: "expired sessions",
  passwordResets: "spent reset links",
};

/** Deletes by `select` (a query of ids/keys, at most BATCH) until nothing is left; the keys deleted. */
async function deleteInBatches(db: Knex, table: string, column: string, select: (db: Knex) => Knex.QueryBuilder): Promise<string[]> {
  const deleted: string[] = [];
  for (;;) {
    const keys: string[] = await db(table)
      .whereIn(column, select(db).limit(BATCH))
      .delete()
      .returning(column)
      .then((rows: Record<string, string>[]) => rows.map((row) => row[column]!));
    deleted.push(...keys);
    if (keys.length < BATCH) return deleted;
  }
}

/** Of these image keys, the ones a row still names: an upload, a gig's image, a profile picture. */
async function referencedKeys(db: Knex, keys: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < keys.length; i += BATCH) {
    const { rows } = await db.raw<{ rows: { key: string }[] }>(
      `SELECT k AS key FROM unnest(?::text[]) AS k
       WHERE EXISTS (SELECT 1 FROM uploads u WHERE u.storage_key = k)
          OR EXISTS (SELECT 1 FROM gig_images i WHERE i.storage_key = k)
          OR EXISTS (SELECT 1 FROM users s WHERE s.avatar_key = k)`,
      [keys.slice(i, i + BATCH)],
    );
    for (const row of rows) found.add(row.key);
  }
  return found;
}

/** Image files in `dir` last written before `before`, by key ([] when the directory does not exist yet). */
async function oldImageFiles(dir: string, before: Date): Promise<Map<string, string[]>> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return new Map();
    throw error;
  }
  const byKey = new Map<string, string[]>();
  for (const name of names) {
    const image = imageOfFile(name);
    if (!image) continue; // never ours: left alone
    const stat = await fs.stat(path.join(dir, name)).catch(() => null);
    if (!stat?.isFile() || stat.mtime >= before) continue;
    byKey.set(image.key, [...(byKey.get(image.key) ?? []), name]);
  }
  return byKey;
}

/** One round of housekeeping against this database and upload directory; what it removed. */
export async function runHousekeeping({ db, uploadDir, now = new Date() }: { db: Knex; uploadDir: string; now?: Date }): Promise<HousekeepingResult> {
  const dayAgo = new Date(now.getTime() - KEEP_UNUSED_MS);

  // Rows first, files after: a crash in between leaves files no row names, which the next step removes
  // a day later. The row is deleted only if, in the same statement, nothing uses it.
  const unused = await deleteInBatches(db, "uploads", "storage_key", (q) =>
    q("uploads as u")
      .select("u.storage_key")
      .where("u.created_at", "<", dayAgo)
      .whereNotExists((sub) => sub.select(q.raw("1")).from("gig_images as i").whereRaw("i.storage_key = u.storage_key"))
      .whereNotExists((sub) => sub.select(q.raw("1")).from("users as s").whereRaw("s.avatar_key = u.storage_key")),
  );
  for (const key of unused) await deleteImageFrom(uploadDir, key);

  const old = await oldImageFiles(uploadDir, dayAgo);
  const named = await referencedKeys(db, [...old.keys()]);
  let strayFiles = 0;
  for (const [key, names] of old) {
    if (named.has(key)) continue;
    for (const name of names) await fs.rm(path.join(uploadDir, name), { force: true });
    strayFiles += names.length;
  }

  const sessions = await deleteInBatches(db, "sessions", "id", (q) => q("sessions").select("id").where("expires_at", "<", now));
  const passwordResets = await deleteInBatches(db, "password_resets", "id", (q) =>
    q("password_resets")
      .select("id")
      .where("expires_at", "<", dayAgo)
      .orWhere("used_at", "<", dayAgo),
  );

  return { uploads: unused.length, strayFiles, sessions: sessions.length, passwordResets: passwordResets.length };
}

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
      const result = await runHousekeeping({ db, uploadDir: dir });
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
