/**
 * Where a backup reads the stored files from and a restore writes them to: one small object, so that moving
 * the files behind another store (object storage) changes this module only. Today it is the local upload
 * directory (UPLOAD_DIR), its files keyed by their path inside it (`order-files/<uuid>`, `<uuid>-thumb.webp`).
 */
import fs from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { uploadDir } from "~/server/files/storage.server";
import { safeRelative } from "./manifest";

export type FileStore = {
  /** Every stored file, once each. */
  list(): AsyncIterable<{ key: string; size: number }>;
  read(key: string): Promise<Readable>;
  /** Stores the bytes under `key`, replacing a file of that key. */
  write(key: string, body: Readable): Promise<void>;
};

/** The files of a directory; names starting with "." are writes in progress (temporary names) and left out. */
export function localFileStore(dir: string): FileStore {
  async function* walk(rel: string): AsyncIterable<{ key: string; size: number }> {
    const entries = await fs.promises.readdir(path.join(dir, rel), { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [];
      throw error;
    });
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith(".")) continue;
      const key = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) yield* walk(key);
      else if (entry.isFile()) {
        const stat = await fs.promises.stat(path.join(dir, key)).catch(() => null);
        if (stat) yield { key, size: stat.size };
      }
    }
  }
  return {
    list: () => walk(""),
    read: async (key) => fs.createReadStream(path.join(dir, safeRelative(key))),
    async write(key, body) {
      const file = path.join(dir, safeRelative(key));
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      // Through a temporary name, so a reader never meets half a file.
      const partial = path.join(path.dirname(file), `.restoring-${path.basename(file)}`);
      await pipeline(body, fs.createWriteStream(partial));
      await fs.promises.rename(partial, file);
    },
  };
}

/** The store this environment keeps its files in. */
export function configuredFileStore(): FileStore {
  return localFileStore(uploadDir());
}
