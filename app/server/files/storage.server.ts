/**
 * Uploaded images, kept in the file store (file-store.server.ts: UPLOAD_DIR or an S3 bucket) and served by /media.
 * The content decides what a file is, never its name: sharp must read it as JPEG, PNG or WebP. Every image
 * is re-encoded (which also drops metadata such as GPS positions) into fixed sizes.
 *
 * A few kilobytes of PNG can say 20000 x 20000 pixels of one colour, which decodes into more than a gigabyte:
 * an image is judged by its pixels as well as its bytes. Its header is read first and an image over
 * MAX_IMAGE_PIXELS refused before it is decoded; sharp is told the same limit wherever it decodes input.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import type Sharp from "sharp";
import type { Coded } from "~/operations/failure-codes";
import { getEnv, type Env } from "~/server/env.server";
import { fileStore, readStored, uploadDir as diskUploadDir, type FileStore } from "~/server/files/file-store.server";

export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** 40 megapixels: more than any phone's camera (a 7,000 x 5,000 photo is 35), 160 MB once decoded. */
export const MAX_IMAGE_PIXELS = 40_000_000;
const SHARP_OPTIONS = { limitInputPixels: MAX_IMAGE_PIXELS } as const;
const ACCEPTED = new Set(["jpeg", "png", "webp"]);

/**
 * Named sizes: the longest side in pixels, and whether it is cropped square. `small` is the smallest a gig card
 * fills on a phone (ADR 054): pages offer small, thumb (and large) as a srcset, and data-saver mode shows small.
 */
export const IMAGE_SIZES = {
  avatar: { width: 256, square: true },
  small: { width: 320, square: false },
  thumb: { width: 480, square: false },
  large: { width: 1280, square: false },
} as const;
export type ImageSize = keyof typeof IMAGE_SIZES;

/**
 * A file that is no image we take, with the code operations answer it by (ADR 035): the door says the code's words
 * in its reader's language (ADR 047); the message is the code, for a log.
 */
export class InvalidImageError extends Error {
  constructor(readonly issue: Coded<"image.empty" | "image.too_many_bytes" | "image.wrong_type" | "image.too_many_pixels" | "image.unreadable">) {
    super(issue.code);
  }
}

const KEY = /^[0-9a-f-]{36}$/;
const FILE_NAME = /^([0-9a-f-]{36})-(avatar|small|thumb|large)\.webp$/;

/** The store's key of an image of this key and size (null for a key or size that is not one of ours). */
export function imageStoreKey(key: string, size: ImageSize): string | null {
  return KEY.test(key) && size in IMAGE_SIZES ? `${key}-${size}.webp` : null;
}

/** The disk store's directory of an environment (this process's by default), for tests that look in it. */
export const uploadDir = (env: Pick<Env, "UPLOAD_DIR"> = getEnv()) => diskUploadDir(env);

/** Where the disk store keeps an image of this key and size (tests and the seed's checks look there). */
export function imageFile(key: string, size: ImageSize, dir = uploadDir()) {
  const name = imageStoreKey(key, size);
  return name ? path.join(dir, name) : null;
}

/** The key and size a stored file is named after; null for a name we never write. */
export function imageOfFile(name: string): { key: string; size: ImageSize } | null {
  const match = FILE_NAME.exec(name);
  return match ? { key: match[1]!, size: match[2] as ImageSize } : null;
}

export { imageUrl } from "~/utils/media";

let loadingSharp: Promise<typeof Sharp> | undefined;

/**
 * sharp, loaded on first use: its native library holds about 20 MB of a process's memory from the moment it
 * is loaded, and most processes that import this module never decode an image (the worker only deletes
 * files; a web process decodes only members' uploads).
 */
export function loadSharp(): Promise<typeof Sharp> {
  loadingSharp ??= import("sharp").then((m) => m.default);
  return loadingSharp;
}

/**
 * An image's header (format, width, height, pages) without decoding its pixels, or null when sharp cannot
 * read it. Without a pixel limit: with one, sharp would refuse a huge image here as unreadable, and the
 * member could not be told what is wrong with it.
 */
export async function imageHeader(input: Uint8Array): Promise<Sharp.Metadata | null> {
  const sharp = await loadSharp();
  try {
    return await sharp(input, { limitInputPixels: false }).metadata();
  } catch {
    return null;
  }
}

/** Whether an image has more than MAX_IMAGE_PIXELS. */
export function overPixelLimit({ width = 0, height = 0 }: Pick<Sharp.Metadata, "width" | "height">): boolean {
  return width * height > MAX_IMAGE_PIXELS;
}

/**
 * Checks and stores an image in the given sizes; returns its key and the bytes written for it (every size
 * together, what counts against the member's storage cap). Throws InvalidImageError with a message for people.
 */
export async function saveImage(input: Buffer, sizes: ImageSize[], store: FileStore = fileStore()): Promise<{ key: string; sizeBytes: number }> {
  if (input.length === 0) throw new InvalidImageError({ code: "image.empty", params: {} });
  if (input.length > MAX_IMAGE_BYTES) throw new InvalidImageError({ code: "image.too_many_bytes", params: { maxMegabytes: MAX_IMAGE_BYTES / (1024 * 1024) } });
  const metadata = await imageHeader(input);
  if (!metadata?.format || !ACCEPTED.has(metadata.format)) throw new InvalidImageError({ code: "image.wrong_type", params: {} });
  if (overPixelLimit(metadata)) {
    const { width = 0, height = 0 } = metadata;
    throw new InvalidImageError({ code: "image.too_many_pixels", params: { width, height, maxMegapixels: MAX_IMAGE_PIXELS / 1_000_000 } });
  }
  const key = randomUUID();
  const sharp = await loadSharp();
  const renditions: { size: ImageSize; bytes: Buffer }[] = [];
  try {
    for (const size of sizes) {
      const { width, square } = IMAGE_SIZES[size];
      const bytes = await sharp(input, SHARP_OPTIONS)
        .rotate()
        .resize(square ? { width, height: width, fit: "cover" } : { width, height: width, fit: "inside", withoutEnlargement: true })
        .webp({ quality: 80 })
        .toBuffer();
      renditions.push({ size, bytes });
    }
  } catch {
    throw new InvalidImageError({ code: "image.unreadable", params: {} });
  }
  // Every size decoded before any is stored; a failed write removes the sizes already stored (and is no member's fault).
  try {
    for (const { size, bytes } of renditions) await store.put(imageStoreKey(key, size)!, bytes, { contentType: "image/webp" });
  } catch (error) {
    await deleteImage(key, store).catch(() => {});
    throw error;
  }
  return { key, sizeBytes: renditions.reduce((sum, r) => sum + r.bytes.length, 0) };
}

/**
 * The small rendition of an image stored before there was one (ADR 054), made from its thumb the first time it is
 * asked for, the way saveImage makes it, and stored beside the others (whole: a store never shows half a file).
 * Its store key, or null when the image has no thumb either. Its few kilobytes are not counted against the quota.
 */
export async function deriveSmallImage(key: string, store: FileStore = fileStore()): Promise<string | null> {
  const thumbKey = imageStoreKey(key, "thumb");
  const smallKey = imageStoreKey(key, "small");
  if (!thumbKey || !smallKey) return null;
  const thumb = await readStored(store, thumbKey);
  if (!thumb) return null;
  const sharp = await loadSharp();
  let small: Buffer;
  try {
    const { width } = IMAGE_SIZES.small;
    small = await sharp(thumb, SHARP_OPTIONS).resize({ width, height: width, fit: "inside", withoutEnlargement: true }).webp({ quality: 80 }).toBuffer();
  } catch {
    return null;
  }
  await store.put(smallKey, small, { contentType: "image/webp" });
  return smallKey;
}

/** Removes every size of an image (those that exist), from this process's store or the one given (the worker's, a test's). */
export async function deleteImage(key: string, store: FileStore = fileStore()) {
  await Promise.all(
    (Object.keys(IMAGE_SIZES) as ImageSize[]).map((size) => {
      const name = imageStoreKey(key, size);
      return name ? store.delete(name) : undefined;
    }),
  );
}
