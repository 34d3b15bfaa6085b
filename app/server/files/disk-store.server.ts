/**
 * The disk's file store (file-store.server.ts): every file at its key under UPLOAD_DIR (default
 * .data/uploads, outside the web root). A file is written to a temporary name beside it and renamed, so a
 * reader never sees half a file. The disk keeps no content type: it is told by the key (typeOfKey) and,
 * for members' files, by their rows.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Env } from "~/server/env.server";
import type { FileStore, StoredObject } from "~/server/files/file-store.server";

/** The upload directory of this environment (the process's own by default). */
export function uploadDir(env: Pick<Env, "UPLOAD_DIR">) {
  return path.resolve(env.UPLOAD_DIR ?? path.join(process.cwd(), ".data", "uploads"));
}

/** The type of a file by its key, where a store keeps none (the disk): images are WebP, the rest bytes. */
export const typeOfKey = (key: string) => (key.endsWith(".webp") ? "image/webp" : "application/octet-stream");

/** A key we write: parts of letters, digits, dots, dashes and underscores, never `..`; anything else is refused. */
const KEY = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const TEMPORARY = /\.tmp$/;

/** Whether a key is one a store takes (both stores refuse the same ones, so a copy from one to the other never fails on a name). */
export const isFileKey = (key: string) => KEY.test(key) && !key.split("/").includes("..") && !TEMPORARY.test(key);

/** The file of a key under `dir`, or null for a key that is not one (so no key ever reaches outside `dir`). */
export function diskPath(dir: string, key: string): string | null {
  return isFileKey(key) ? path.join(dir, ...key.split("/")) : null;
}

const missing = (error: unknown) => ["ENOENT", "ENOTDIR"].includes((error as NodeJS.ErrnoException).code ?? "");

export function diskStore(dir: string): FileStore {
  const fileOf = (key: string) => {
    const file = diskPath(dir, key);
    if (!file) throw new Error(`not a file key: ${JSON.stringify(key)}`);
    return file;
  };

  async function* walk(relative: string): AsyncIterable<StoredObject> {
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(path.join(dir, relative), { withFileTypes: true });
    } catch (error) {
      if (missing(error)) return;
      throw error;
    }
    for (const entry of entries) {
      const key = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) yield* walk(key);
      else if (entry.isFile() && !TEMPORARY.test(entry.name)) {
        const stat = await fs.promises.stat(path.join(dir, key)).catch(() => null);
        if (stat) yield { key, size: stat.size, modifiedAt: stat.mtime };
      }
    }
  }

  return {
    kind: "disk",
    where: dir,
    async put(key, bytes) {
      const file = fileOf(key);
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      const temporary = `${file}.${randomUUID()}.tmp`;
      try {
        if (bytes instanceof Readable) await pipeline(bytes, fs.createWriteStream(temporary));
        else await fs.promises.writeFile(temporary, bytes);
        await fs.promises.rename(temporary, file);
      } catch (error) {
        await fs.promises.rm(temporary, { force: true });
        throw error;
      }
    },
    async get(key) {
      const file = diskPath(dir, key);
      if (!file) return null;
      // Opened before it is measured, so a file removed in between is still read whole (or not found).
      const handle = await fs.promises.open(file, "r").catch((error) => (missing(error) ? null : Promise.reject(error)));
      if (!handle) return null;
      const stat = await handle.stat();
      if (!stat.isFile()) {
        await handle.close();
        return null;
      }
      return { body: handle.createReadStream(), size: stat.size, contentType: typeOfKey(key) };
    },
    async head(key) {
      const file = diskPath(dir, key);
      const stat = file ? await fs.promises.stat(file).catch(() => null) : null;
      return stat?.isFile() ? { size: stat.size, contentType: typeOfKey(key), modifiedAt: stat.mtime } : null;
    },
    async delete(key) {
      const file = diskPath(dir, key);
      if (file) await fs.promises.rm(file, { force: true });
    },
    async *list(prefix = "") {
      // Only the directory the prefix names is walked (`order-files/` walks order-files alone).
      const base = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/")) : "";
      if (base && !diskPath(dir, base)) return;
      for await (const object of walk(base)) if (object.key.startsWith(prefix)) yield object;
    },
    async close() {},
  };
}
