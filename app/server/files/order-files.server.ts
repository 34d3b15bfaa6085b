/**
 * Files attached to an order: the buyer's requirements, the seller's delivery. They are kept in the file
 * store (order-files/<key>, a random key: UPLOAD_DIR/order-files or a private S3 bucket, file-store.server.ts),
 * never public, and served only through the app to the order's parties
 * (/orders/:id/files/:fileId) as downloads. What a file is comes from its first bytes, never its name:
 * PDF, PNG, JPEG, WebP, GIF, ZIP (which includes Word and Excel documents) and plain text. Every file is
 * counted against its owner's upload quota before it is written (upload-quota.server.ts, ADR 031).
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { issueMessage } from "~/content/operation-messages";
import type { Locale } from "~/i18n/locales";
import type { FieldIssue } from "~/operations/failure-codes";
import type { Db } from "~/server/db.server";
import { getEnv } from "~/server/env.server";
import { fileStore, uploadDir, type FileStore } from "~/server/files/file-store.server";
import { releaseUploads, reserveUploads, uploadRefusalIssue, type UploadRefusal } from "~/server/files/upload-quota.server";

export const MAX_ORDER_FILE_BYTES = 10 * 1024 * 1024;
export const MAX_ORDER_FILES = 5;

/**
 * A file refused beside the file field: 400 for a file we do not take. It carries the refusal's code (ADR 035),
 * which `words` says in the reader's language (ADR 047); its `message` is the code, for a log.
 */
export class InvalidOrderFileError extends Error {
  status = 400;
  retryAfter: number | undefined = undefined;
  constructor(readonly issue: FieldIssue) {
    super(issue.code === "schema" ? issue.message : issue.code);
  }

  /** Why the file was refused, in the reader's language. */
  words(locale: Locale): string {
    return issueMessage(this.issue, locale);
  }
}

/** Files refused by the member's upload quota (upload-quota.server.ts): 429 or 503 with Retry-After, or 400 over the storage cap. */
export class UploadRefusedError extends InvalidOrderFileError {
  constructor(readonly refusal: UploadRefusal) {
    super(uploadRefusalIssue(refusal));
    this.status = refusal.status;
    this.retryAfter = refusal.retryAfter;
  }
}

/** Whose files these are: the member they are counted against (ADR 031); the store is this process's unless given. */
export type FileOwner = { userId: number; db?: Db; store?: FileStore };

export type StoredOrderFile = { storageKey: string; fileName: string; contentType: string; sizeBytes: number };

const KEY = /^[0-9a-f-]{36}$/;

/** The store's key of an order's or a message's file (null for a key that is not one of ours). */
export function orderFileKey(key: string): string | null {
  return KEY.test(key) ? `order-files/${key}` : null;
}

/** Where the disk store keeps an order's or a message's file (tests look there). */
export function orderFilePath(key: string, dir = uploadDir(getEnv())): string | null {
  return KEY.test(key) ? path.join(dir, "order-files", key) : null;
}

const startsWith = (bytes: Uint8Array, magic: number[], offset = 0) => magic.every((b, i) => bytes[offset + i] === b);

/** The content type of a file by its first bytes, or null for a kind we do not keep. */
export function sniffOrderFile(bytes: Uint8Array): string | null {
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return "application/pdf";
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return "image/gif";
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return "application/zip";
  // Plain text: valid UTF-8 with no control characters other than tab, newline and carriage return.
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, 64 * 1024));
    // eslint-disable-next-line no-control-regex
    if (text.length > 0 && !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) return "text/plain";
  } catch {
    return null;
  }
  return null;
}

/** A file name safe to show and to put in a download header: no paths, no control characters, at most 200 characters. */
export function cleanFileName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const base = name
    .split(/[\\/]/)
    .pop()!
    .replace(/[\u0000-\u001f\u007f"]/g, "")
    .trim();
  return (base || "file").slice(0, 200);
}

type CheckedFile = { name: string; bytes: Uint8Array; contentType: string };

/** Checks one file (not empty, within 10 MB, a kind we keep); throws InvalidOrderFileError with the refusal's code. */
function checkOrderFile(file: { name: string; bytes: Uint8Array }): CheckedFile {
  const name = cleanFileName(file.name);
  if (file.bytes.length === 0) throw new InvalidOrderFileError({ code: "upload.file_empty", params: { file: name } });
  if (file.bytes.length > MAX_ORDER_FILE_BYTES)
    throw new InvalidOrderFileError({ code: "upload.file_too_large", params: { file: name, maxMegabytes: MAX_ORDER_FILE_BYTES / (1024 * 1024) } });
  const contentType = sniffOrderFile(file.bytes);
  if (!contentType) throw new InvalidOrderFileError({ code: "upload.file_wrong_type", params: { file: name } });
  return { ...file, contentType };
}

async function writeOrderFile(file: CheckedFile, store: FileStore): Promise<StoredOrderFile> {
  const storageKey = randomUUID();
  await store.put(orderFileKey(storageKey)!, file.bytes, { contentType: file.contentType });
  return { storageKey, fileName: cleanFileName(file.name), contentType: file.contentType, sizeBytes: file.bytes.length };
}

/**
 * Stores several files of one member, or none: every file is checked, then all of them are counted against
 * the owner's upload quota (UploadRefusedError when over it), then written; if a write fails, those
 * already written are removed and the quota given back.
 */
export async function storeOrderFiles(files: { name: string; bytes: Uint8Array }[], owner: FileOwner): Promise<StoredOrderFile[]> {
  const real = files.filter((f) => f.bytes.length > 0 || f.name !== "");
  if (real.length > MAX_ORDER_FILES) throw new InvalidOrderFileError({ code: "upload.too_many_files", params: { max: MAX_ORDER_FILES } });
  if (!real.length) return [];
  const checked = real.map(checkOrderFile);
  const sizes = checked.map((f) => f.bytes.length);
  const refused = await reserveUploads(owner.userId, sizes, { db: owner.db });
  if (refused) throw new UploadRefusedError(refused);
  const store = owner.store ?? fileStore();
  const stored: StoredOrderFile[] = [];
  try {
    for (const f of checked) stored.push(await writeOrderFile(f, store));
  } catch (error) {
    for (const s of stored) await deleteOrderFile(s.storageKey, store).catch(() => {});
    await releaseUploads(owner.userId, sizes);
    throw error;
  }
  return stored;
}

/** Removes an order's or a message's file (one already gone is no error), from this process's store or the one given. */
export async function deleteOrderFile(key: string, store: FileStore = fileStore()) {
  const name = orderFileKey(key);
  if (name) await store.delete(name);
}
