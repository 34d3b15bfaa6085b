/**
 * Where a backup reads the stored files from and a restore writes them to: the app's file store (ADR 056), the
 * upload directory or the S3 bucket this environment is configured with, its files keyed as the store keys them
 * (`order-files/<uuid>`, `<uuid>-thumb.webp`). The backup needs only three calls of it, kept as one small object.
 */
import { buffer } from "node:stream/consumers";
import type { Readable } from "node:stream";
import { fileStore, typeOfKey, type FileStore as AppFileStore } from "~/server/files/file-store.server";
import { safeRelative } from "./manifest";

export type FileStore = {
  /** Every stored file, once each. */
  list(): AsyncIterable<{ key: string; size: number }>;
  read(key: string): Promise<Readable>;
  /** Stores the bytes under `key`, replacing a file of that key. */
  write(key: string, body: Readable): Promise<void>;
};

/** A backup's view of one of the app's stores. */
export function backupFileStore(store: AppFileStore): FileStore {
  return {
    async *list() {
      for await (const { key, size } of store.list("")) yield { key, size };
    },
    async read(key) {
      const stored = await store.get(safeRelative(key));
      if (!stored) throw new Error(`stored file ${key} is gone`);
      return stored.body;
    },
    async write(key, body) {
      // Whole in memory first: a stored file is at most a few megabytes, and S3 wants the length before the bytes.
      await store.put(safeRelative(key), await buffer(body), { contentType: typeOfKey(key) });
    },
  };
}

/** The store this environment keeps its files in. */
export function configuredFileStore(): FileStore {
  return backupFileStore(fileStore());
}
