/**
 * One interface for every stored file (ADR 056): gig images and their renditions, profile pictures, message
 * attachments, order requirement and delivery files. Two implementations: the local disk (UPLOAD_DIR, the
 * default) and any S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, Backblaze B2), chosen by S3_BUCKET.
 * No other module reads or writes the files themselves (tests/integration/file-store-boundary.test.ts).
 *
 * A key is a path relative to the store's root with `/` between parts: `<uuid>-<size>.webp` for an image's
 * rendition, `order-files/<uuid>` for an order's or a message's file. The disk store keeps each at that path
 * under UPLOAD_DIR, which is the layout the app has always had, so existing files keep working.
 *
 * Backups and the files:to-s3 command copy a store with three calls: `list` every key, `get` its bytes and
 * `put` them in another store (with the size and type `get` gave).
 */
import type { Readable } from "node:stream";
import { getEnv, type Env } from "~/server/env.server";
import { diskStore, typeOfKey, uploadDir } from "~/server/files/disk-store.server";
import { s3Store, type S3Config } from "~/server/files/s3-store.server";

/** A stored file as a listing gives it. */
export type StoredObject = { key: string; size: number; modifiedAt: Date };

/** A stored file's bytes as a stream, with what a response needs to say about them. */
export type StoredBody = { body: Readable; size: number; contentType: string };

export interface FileStore {
  /** "disk" or "s3", for logs and the files:to-s3 command. */
  readonly kind: "disk" | "s3";
  /** Where it is, for people: the directory, or the bucket (and endpoint). Never holds a secret. */
  readonly where: string;
  /**
   * Writes a file whole (a reader never sees half of it), replacing any file of that key. A stream must come
   * with its size in bytes (S3 needs the length before the bytes).
   */
  put(key: string, bytes: Uint8Array | Readable, options: { contentType: string; size?: number }): Promise<void>;
  /** The file's bytes as a stream, or null when there is no such file. */
  get(key: string): Promise<StoredBody | null>;
  /** The file's size, type and last write, or null when there is no such file. */
  head(key: string): Promise<{ size: number; contentType: string; modifiedAt: Date } | null>;
  /** Removes a file; a file already gone is not an error (effects and housekeeping run again after a crash). */
  delete(key: string): Promise<void>;
  /** Every file whose key starts with `prefix` ("" for all), in no promised order. */
  list(prefix?: string): AsyncIterable<StoredObject>;
  /** Lets go of its connections (a command or test that ends); the store is not used after. */
  close(): Promise<void>;
}

/** The whole file as bytes (an image to re-encode, a test's check), or null when there is no such file. */
export async function readStored(store: FileStore, key: string): Promise<Buffer | null> {
  const file = await store.get(key);
  if (!file) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of file.body) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** The S3 settings of an environment, or null for the disk (S3_BUCKET unset). env.server.ts checks they are whole. */
export function s3ConfigOf(env: Env): S3Config | null {
  if (!env.S3_BUCKET) return null;
  return {
    bucket: env.S3_BUCKET,
    region: env.S3_REGION ?? "us-east-1",
    endpoint: env.S3_ENDPOINT,
    forcePathStyle: env.S3_FORCE_PATH_STYLE ?? false,
    credentials:
      env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY } : undefined,
  };
}

const stores = new Map<string, FileStore>();

/**
 * The store of an environment (this process's by default): the S3 bucket when S3_BUCKET is set, else the
 * disk under UPLOAD_DIR. One per configuration, kept for the process (an S3 client keeps its connections).
 */
export function fileStore(env: Env = getEnv()): FileStore {
  const s3 = s3ConfigOf(env);
  const id = s3 ? `s3:${s3.endpoint ?? ""}:${s3.bucket}:${s3.credentials?.accessKeyId ?? ""}` : `disk:${uploadDir(env)}`;
  let store = stores.get(id);
  if (!store) {
    store = s3 ? s3Store(s3) : diskStore(uploadDir(env));
    stores.set(id, store);
  }
  return store;
}

export { diskStore, s3Store, typeOfKey, uploadDir };
