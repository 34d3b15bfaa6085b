/**
 * Housekeeping's work (ADR 012: the worker writes only through operations): what no gig or profile uses
 * any more, files of checkouts never paid, spent sessions and reset links. The platform alone may run it
 * (worker/housekeeping-job.server.ts schedules it hourly):
 * - uploads no gig and no profile uses a day after they were made: their `uploads` row and their files. A
 *   seller uploads images while filling in the gig form and may leave without saving; those stay a day, so
 *   a form left open can still be saved;
 * - the requirement files of checkouts never paid (ADR 031), a day after the order was given up (cancelled
 *   unpaid, or still unpaid a day past its 30 minutes): their `order_files` rows, and their files by
 *   delete_file effects once that has committed. The order itself stays, with its history;
 * - files in the file store (the disk or S3, found by listing it) more than a day old that no row names at all: images (a crash between
 *   writing an image and recording it, or between deleting a row and its files), and order and message
 *   files (a message or checkout refused or crashed after its files were written, an effect given up);
 * - expired sessions, and password-reset links that expired or were used more than a day ago (kept that
 *   day so that following a spent link still says what happened to it).
 */
import type { Knex } from "knex";
import { forbidden, ok, transact, type Actor, type Result } from "~/operations/core.server";
import { getDb } from "~/server/db.server";
import { UNPAID_EXPIRY_MS } from "~/domain/order-rules";
import { diskStore, fileStore, type FileStore } from "~/server/files/file-store.server";
import { deleteOrderFile } from "~/server/files/order-files.server";
import { deleteImage, imageOfFile } from "~/server/files/storage.server";

/** How long an upload may go unused, a stray file lie about, a spent reset link be kept. */
export const KEEP_UNUSED_MS = 24 * 60 * 60_000;
/** Rows removed per statement, so that a large backlog never holds long locks. */
const BATCH = 1000;

export type HousekeepingResult = {
  uploads: number;
  unpaidOrderFiles: number;
  strayFiles: number;
  sessions: number;
  passwordResets: number;
  effects: number;
  idempotencyKeys: number;
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

const FILE_KEY = /^order-files\/([0-9a-f-]{36})$/;

/**
 * The store's files last written before `before`, from one listing of it: images by key (with their store keys),
 * and order and message files (order-files/<key>) by key. Anything else in the store is never ours and left alone.
 */
async function oldStoredFiles(store: FileStore, before: Date): Promise<{ images: Map<string, string[]>; files: string[] }> {
  const images = new Map<string, string[]>();
  const files: string[] = [];
  for await (const object of store.list("")) {
    if (object.modifiedAt >= before) continue;
    const image = imageOfFile(object.key);
    if (image) images.set(image.key, [...(images.get(image.key) ?? []), object.key]);
    const file = FILE_KEY.exec(object.key);
    if (file) files.push(file[1]!);
  }
  return { images, files };
}

/** Of these file keys, the ones an order file or a message attachment still names. */
async function referencedFileKeys(db: Knex, keys: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < keys.length; i += BATCH) {
    const { rows } = await db.raw<{ rows: { key: string }[] }>(
      `SELECT k AS key FROM unnest(?::text[]) AS k
       WHERE EXISTS (SELECT 1 FROM order_files f WHERE f.storage_key = k)
          OR EXISTS (SELECT 1 FROM message_attachments a WHERE a.storage_key = k)`,
      [keys.slice(i, i + BATCH)],
    );
    for (const row of rows) found.add(row.key);
  }
  return found;
}

/**
 * The files of checkouts never paid, given up before `dayAgo`: orders cancelled without a payment, and
 * orders still waiting for one a day past their 30 minutes with no payment pending (the payment poll
 * cancels those; this does not wait for it). Rows go in batches, each with its files' delete_file effects
 * in one transaction: a file is deleted only once its row's deletion has committed.
 */
async function deleteUnpaidOrderFiles(actor: Actor, db: Knex, dayAgo: Date): Promise<number> {
  const unpaidBefore = new Date(dayAgo.getTime() - UNPAID_EXPIRY_MS);
  let deleted = 0;
  for (;;) {
    const result = await transact(
      actor,
      async (tx) => {
        const keys: string[] = await tx
          .trx("order_files")
          .whereIn(
            "id",
            tx
              .trx("order_files as f")
              .join("orders as o", "o.id", "f.order_id")
              .whereNull("o.paid_at")
              .where((q) =>
                q
                  .where((c) => c.where("o.status", "cancelled").where("o.cancelled_at", "<", dayAgo))
                  .orWhere((p) =>
                    p
                      .where("o.status", "pending_payment")
                      .where("o.created_at", "<", unpaidBefore)
                      .whereNotExists((sub) =>
                        sub.select(tx.trx.raw("1")).from("payments as pay").whereRaw("pay.order_id = o.id").where("pay.status", "pending"),
                      ),
                  ),
              )
              .select("f.id")
              .limit(BATCH),
          )
          .delete()
          .returning("storage_key")
          .then((rows: { storage_key: string }[]) => rows.map((row) => row.storage_key));
        for (const key of keys) await tx.effect({ kind: "delete_file", key }, `delete_file:${key}`);
        return ok(keys.length);
      },
      { db },
    );
    if (!result.ok) return deleted;
    deleted += result.value;
    if (result.value < BATCH) return deleted;
  }
}

/**
 * One round of housekeeping against this database and file store (this process's by default; `uploadDir` names a
 * disk store, as the tests give theirs); what it removed.
 */
export async function runHousekeeping(
  actor: Actor,
  { store: given, uploadDir, now = new Date() }: { store?: FileStore; uploadDir?: string; now?: Date },
  { db = getDb() }: { db?: Knex } = {},
): Promise<Result<HousekeepingResult>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "keep_house" });
  const store = given ?? (uploadDir ? diskStore(uploadDir) : fileStore());
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
  for (const key of unused) await deleteImage(key, store);

  const unpaidOrderFiles = await deleteUnpaidOrderFiles(actor, db, dayAgo);

  const old = await oldStoredFiles(store, dayAgo);
  const named = await referencedKeys(db, [...old.images.keys()]);
  let strayFiles = 0;
  for (const [key, names] of old.images) {
    if (named.has(key)) continue;
    for (const name of names) await store.delete(name);
    strayFiles += names.length;
  }
  const namedFiles = await referencedFileKeys(db, old.files);
  for (const key of old.files) {
    if (namedFiles.has(key)) continue;
    await deleteOrderFile(key, store);
    strayFiles += 1;
  }

  const sessions = await deleteInBatches(db, "sessions", "id", (q) => q("sessions").select("id").where("expires_at", "<", now));
  const passwordResets = await deleteInBatches(db, "password_resets", "id", (q) =>
    q("password_resets").select("id").where("expires_at", "<", dayAgo).orWhere("used_at", "<", dayAgo),
  );

  // Effects carried out more than a day ago: nothing left to do, and a conversion's payload holds the
  // visitor's address and browser, which we keep no longer than we need. Given-up ones stay for an admin.
  const effects = await deleteInBatches(db, "effects", "id", (q) => q("effects").select("id").where("done_at", "<", dayAgo));
  // The JSON API's idempotency keys are honoured for a day, and its uploads wait as long to be used (ADR 041):
  // an unused upload's row goes now; its file, which no row names, goes with the stray files.
  const idempotencyKeys = Number(await db("idempotency_keys").where("created_at", "<", dayAgo).delete());
  await db("uploaded_files").where("created_at", "<", dayAgo).delete();

  return ok({
    uploads: unused.length,
    unpaidOrderFiles,
    strayFiles,
    sessions: sessions.length,
    passwordResets: passwordResets.length,
    effects: effects.length,
    idempotencyKeys,
  });
}
