/**
 * Uploaded images, kept outside the web root (UPLOAD_DIR, default .data/uploads) and served by /media.
 * The content decides what a file is, never its name: sharp must read it as JPEG, PNG or WebP. Every image
 * is re-encoded (which also drops metadata such as GPS positions) into fixed sizes.
 *
 * A few kilobytes of PNG can say 20000 x 20000 pixels of one colour, which decodes into more than a gigabyte:
 * an image is judged by its pixels as well as its bytes. Its header is read first and an image over
 * MAX_IMAGE_PIXELS refused before it is decoded; sharp is told the same limit wherever it decodes input.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type Sharp from "sharp";
import type { Coded } from "~/operations/failure-codes";
import { getEnv, type Env } from "~/server/env.server";

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

/** The upload directory of this environment (the web process's own by default). */
export function uploadDir(env: Pick<Env, "UPLOAD_DIR"> = getEnv()) {
  return path.resolve(env.UPLOAD_DIR ?? path.join(process.cwd(), ".data", "uploads"));
}

const KEY = /^[0-9a-f-]{36}$/;
const FILE_NAME = /^([0-9a-f-]{36})-(avatar|small|thumb|large)\.webp$/;

/** Where an image of this key and size is kept (null for a key or size that is not one of ours). */
export function imageFile(key: string, size: ImageSize, dir = uploadDir()) {
  if (!KEY.test(key) || !(size in IMAGE_SIZES)) return null;
  return path.join(dir, `${key}-${size}.webp`);
}

/** The key and size a file in the upload directory is named after; null for a name we never write. */
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
export async function saveImage(input: Buffer, sizes: ImageSize[]): Promise<{ key: string; sizeBytes: number }> {
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
  await fs.mkdir(uploadDir(), { recursive: true });
  let sizeBytes = 0;
  try {
    for (const size of sizes) {
      const { width, square } = IMAGE_SIZES[size];
      const written = await sharp(input, SHARP_OPTIONS)
        .rotate()
        .resize(square ? { width, height: width, fit: "cover" } : { width, height: width, fit: "inside", withoutEnlargement: true })
        .webp({ quality: 80 })
        .toFile(imageFile(key, size)!);
      sizeBytes += written.size;
    }
  } catch {
    await deleteImage(key);
    throw new InvalidImageError({ code: "image.unreadable", params: {} });
  }
  return { key, sizeBytes };
}

/**
 * The small rendition of an image stored before there was one (ADR 054), made from its thumb the first time it is
 * asked for, the way saveImage makes it, and written beside the others (through a temporary name, so a reader never
 * sees half a file). Null when the image has no thumb either. Its few kilobytes are not counted against the quota.
 */
export async function deriveSmallImage(key: string, dir = uploadDir()): Promise<string | null> {
  const thumb = imageFile(key, "thumb", dir);
  const small = imageFile(key, "small", dir);
  if (!thumb || !small) return null;
  const sharp = await loadSharp();
  const temporary = `${small}.${randomUUID()}.tmp`;
  try {
    const { width } = IMAGE_SIZES.small;
    await sharp(thumb, SHARP_OPTIONS).resize({ width, height: width, fit: "inside", withoutEnlargement: true }).webp({ quality: 80 }).toFile(temporary);
    await fs.rename(temporary, small);
    return small;
  } catch {
    await fs.rm(temporary, { force: true });
    return null;
  }
}

/** Removes every size of an image (those that exist). */
export async function deleteImage(key: string) {
  await deleteImageFrom(uploadDir(), key);
}

/** deleteImage in a given upload directory (the worker's housekeeping, and its tests). */
export async function deleteImageFrom(dir: string, key: string) {
  await Promise.all(
    (Object.keys(IMAGE_SIZES) as ImageSize[]).map((size) => {
      const file = imageFile(key, size, dir);
      return file ? fs.rm(file, { force: true }) : undefined;
    }),
  );
}
