/**
 * Stored files in a backup: each file a part of its own under `files/`, copied as it is (images are already
 * compressed). Keys never change their bytes (a new upload is a new key), so a second pass after the
 * Postgres snapshot copies only the keys that appeared since the first: every file the snapshot names was
 * there for one pass or the other (see ADR 058).
 */
import fs from "node:fs";
import path from "node:path";
import type { FileStore } from "./file-store";
import { safeRelative, writePart, type Part } from "./manifest";

export const FILES_PREFIX = "files/";

/** Copies the store's files not in `done` (keys) into `root`; adds each to `done` and returns its part. */
export async function copyFiles(store: FileStore, root: string, done: Set<string>): Promise<Part[]> {
  const parts: Part[] = [];
  for await (const { key } of store.list()) {
    if (done.has(key)) continue;
    const body = await store.read(key).catch(() => null);
    if (!body) continue;
    try {
      const { path: p, bytes, sha256 } = await writePart(root, FILES_PREFIX + safeRelative(key), body);
      parts.push({ path: p, bytes, sha256 });
      done.add(key);
    } catch (error) {
      // Removed between the listing and the read: nothing names it any more.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      await fs.promises.rm(path.join(root, FILES_PREFIX, key), { force: true });
    }
  }
  return parts;
}

/** Whether the store holds any file at all. */
export async function storeIsEmpty(store: FileStore) {
  for await (const _ of store.list()) return false;
  return true;
}

/** Writes every file part of a backup back into the store; returns how many files and bytes. */
export async function restoreFiles(store: FileStore, root: string, parts: Part[]) {
  let count = 0;
  let bytes = 0;
  for (const part of parts) {
    if (!part.path.startsWith(FILES_PREFIX)) continue;
    const key = safeRelative(part.path.slice(FILES_PREFIX.length));
    await store.write(key, fs.createReadStream(path.join(root, part.path)));
    count++;
    bytes += part.bytes;
  }
  return { count, bytes };
}
