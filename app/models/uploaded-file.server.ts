/**
 * Documents a member uploaded through the JSON API and has not used yet (ADR 041). The file itself is stored as
 * an order file is (app/server/files/order-files.server.ts); this row says whose it is until a message, an
 * order or a delivery takes it.
 */
import type { StoredOrderFile } from "~/server/files/order-files.server";
import type { Db } from "~/server/db.server";

/** How long an upload waits to be used: less than the day after which housekeeping removes files no row names. */
export const UPLOAD_USABLE_MS = 20 * 60 * 60 * 1000;

export async function recordUploadedFiles(db: Db, userId: number, files: StoredOrderFile[]) {
  if (!files.length) return;
  await db("uploaded_files").insert(
    files.map((f) => ({ storage_key: f.storageKey, user_id: userId, file_name: f.fileName, content_type: f.contentType, size_bytes: f.sizeBytes })),
  );
}

/**
 * Takes a member's uploads by key for the row that will name them from now on: their descriptions, in the
 * order of `keys`, and the rows are gone. Null (and nothing taken) when any key is not an unused upload of
 * this member from the last UPLOAD_USABLE_MS. Call inside the transaction that writes the new rows.
 */
export async function takeUploadedFiles(db: Db, userId: number, keys: string[]): Promise<StoredOrderFile[] | null> {
  const unique = [...new Set(keys)];
  if (!unique.length) return [];
  if (unique.length !== keys.length) return null;
  const rows = await db("uploaded_files")
    .where({ user_id: userId })
    .whereIn("storage_key", unique)
    .andWhere("created_at", ">", db.raw(`now() - interval '${UPLOAD_USABLE_MS} milliseconds'`))
    .forUpdate()
    .select("storage_key", "file_name", "content_type", "size_bytes");
  if (rows.length !== unique.length) return null;
  await db("uploaded_files").whereIn("storage_key", unique).delete();
  const byKey = new Map(rows.map((r) => [r.storage_key as string, r]));
  return keys.map((key) => {
    const r = byKey.get(key)!;
    return { storageKey: key, fileName: r.file_name, contentType: r.content_type, sizeBytes: Number(r.size_bytes) };
  });
}
