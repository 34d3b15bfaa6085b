/**
 * Housekeeping's work (ADR 012: the worker writes only through operations): what no gig or profile uses
 * any more, spent sessions and reset links. The platform alone may run it (worker/housekeeping.server.ts
 * schedules it hourly):
 * - uploads no gig and no profile uses a day after they were made: their `uploads` row and their files. A
 *   seller uploads images while filling in the gig form and may leave without saving; those stay a day, so
 *   a form left open can still be saved;
 * - files in the upload directory more than a day old that no row names at all (a crash between writing an
 *   image and recording it, or between deleting a row and its files);
 * - expired sessions, and password-reset links that expired or were used more than a day ago (kept that
 *   day so that following a spent link still says what happened to it).
 */
import fs from "node:fs/promises";
import path from "node:path";
import type { Knex } from "knex";
import { forbidden, ok, type Actor, type Result } from "~/operations/core.server";
import { getDb } from "~/utils/db.server";
import { deleteImageFrom, imageOfFile } from "~/utils/storage.server";

/** How long an upload may go unused, a stray file lie about, a spent reset link be kept. */
export const KEEP_UNUSED_MS = 24 * 60 * 60_000;
/** Rows removed per statement, so that a large backlog never holds long locks. */
const BATCH = 1000;

export type HousekeepingResult = { uploads: number; strayFiles: number; sessions: number; passwordResets: number; effects: number };

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
export async function runHousekeeping(
  actor: Actor,
  { uploadDir, now = new Date() }: { uploadDir: string; now?: Date },
  { db = getDb() }: { db?: Knex } = {},
): Promise<Result<HousekeepingResult>> {
  if (actor.kind !== "system") return forbidden("Only the platform keeps house.");
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

  // Effects carried out more than a day ago: nothing left to do, and a conversion's payload holds the
  // visitor's address and browser, which we keep no longer than we need. Given-up ones stay for an admin.
  const effects = await deleteInBatches(db, "effects", "id", (q) => q("effects").select("id").where("done_at", "<", dayAgo));

  return ok({ uploads: unused.length, strayFiles, sessions: sessions.length, passwordResets: passwordResets.length, effects: effects.length });
}

