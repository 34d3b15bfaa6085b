/**
 * One upload quota for every file a member stores (ADR 031): gig images, profile pictures, message
 * attachments, order requirements and deliveries all count against the same limits, before a byte of them
 * is written:
 * - a rate, in files and in bytes, per minute, hour and day (LIMITS.upload*, counted in Redis by member);
 * - a cap on what one member keeps: the bytes of every file their rows still name (MAX_STORED_BYTES).
 * A refusal is meant to be shown beside the file field: 429 with Retry-After over a rate (503 while Redis
 * cannot count), 400 over the cap (nothing will free it by waiting); it is a code (uploadRefusalIssue), which
 * the door says in its reader's language.
 */
import { storedBytesOf } from "~/models/stored-file.server";
import { invalid, limitedBy, type Coded, type Failure } from "~/operations/core.server";
import { getDb, type Db } from "~/server/db.server";
import { consumeAll, refund, type Limited, type LIMITS } from "~/server/rate-limit.server";

const MB = 1024 * 1024;
/** What one member may keep stored, every kind of file together. */
export const MAX_STORED_BYTES = 1024 * MB;

export type UploadRefusal = Limited | { status: 400; storedBytes: number; retryAfter?: undefined };

function uses(userId: number, files: number, bytes: number): { name: keyof typeof LIMITS; key: string; points: number }[] {
  const key = String(userId);
  return [
    { name: "uploadFilesMinute", key, points: files },
    { name: "uploadBytesMinute", key, points: bytes },
    { name: "uploadFilesHour", key, points: files },
    { name: "uploadBytesHour", key, points: bytes },
    { name: "uploadFilesDay", key, points: files },
    { name: "uploadBytesDay", key, points: bytes },
  ];
}

const total = (sizes: number[]) => sizes.reduce((sum, size) => sum + size, 0);

/**
 * Counts files of these sizes (in bytes, as received) against the member's quota, before they are
 * written: null when they may be stored, else why not. A refused call counts nothing.
 */
export async function reserveUploads(userId: number, sizes: number[], { db = getDb() }: { db?: Db } = {}): Promise<UploadRefusal | null> {
  if (!sizes.length) return null;
  const bytes = total(sizes);
  const stored = await storedBytesOf(db, userId);
  if (stored + bytes > MAX_STORED_BYTES) {
    return { status: 400, storedBytes: stored };
  }
  return consumeAll(uses(userId, sizes.length, bytes));
}

/** Gives back a reservation whose files were not written after all (refused by their content, or a failed write). */
export async function releaseUploads(userId: number, sizes: number[]) {
  if (!sizes.length) return;
  await Promise.all(uses(userId, sizes.length, total(sizes)).map((u) => refund(u.name, u.key, u.points)));
}

/** The status (and Retry-After) an HTML form answers a refusal with. */
export function refusalInit(refusal: { status: number; retryAfter?: number }): ResponseInit {
  return refusal.retryAfter === undefined ? { status: refusal.status } : { status: refusal.status, headers: { "Retry-After": String(refusal.retryAfter) } };
}

/** A refusal as its code (ADR 035): over the cap "upload.storage_full", over a rate (or uncounted) the limit's. */
export function uploadRefusalIssue(refusal: UploadRefusal): Coded {
  if (refusal.status === 400) return { code: "upload.storage_full", params: { storedBytes: refusal.storedBytes, maxBytes: MAX_STORED_BYTES } };
  const { code, params } = limitedBy(refusal) as Extract<Failure, { error: "limited" }>;
  return { code, params } as Coded;
}

/** A refusal as an operation's Failure, beside `field`: over a rate `limited` (429/503), over the cap `invalid` (400). */
export function uploadFailure(refusal: UploadRefusal, field: string): Failure {
  if (refusal.status !== 400) return limitedBy(refusal);
  return invalid({ [field]: [uploadRefusalIssue(refusal)] });
}
