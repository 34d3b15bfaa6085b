/**
 * Uploaded images, kept outside the web root (UPLOAD_DIR, default .data/uploads) and served by /media.
 * The content decides what a file is, never its name: sharp must read it as JPEG, PNG or WebP. Every image
 * is re-encoded (which also drops metadata such as GPS positions) into fixed sizes.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { getEnv } from "~/utils/env.server";

export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const ACCEPTED = new Set(["jpeg", "png", "webp"]);

/** Named sizes: the longest side in pixels, and whether it is cropped square. */
export const IMAGE_SIZES = {
  avatar: { width: 256, square: true },
  thumb: { width: 480, square: false },
  large: { width: 1280, square: false },
} as const;
export type ImageSize = keyof typeof IMAGE_SIZES;

export class InvalidImageError extends Error {}

export function uploadDir() {
  return path.resolve(getEnv().UPLOAD_DIR ?? path.join(process.cwd(), ".data", "uploads"));
}

const KEY = /^[0-9a-f-]{36}$/;

export function imageFile(key: string, size: ImageSize) {
  if (!KEY.test(key) || !(size in IMAGE_SIZES)) return null;
  return path.join(uploadDir(), `${key}-${size}.webp`);
}

export { imageUrl } from "~/utils/media";

/** Checks and stores an image in the given sizes; returns its key. Throws InvalidImageError with a message for people. */
export async function saveImage(input: Buffer, sizes: ImageSize[]): Promise<string> {
  if (input.length === 0) throw new InvalidImageError("Choose an image to upload");
  if (input.length > MAX_IMAGE_BYTES) throw new InvalidImageError("Images can be at most 5 MB");
  let format: string | undefined;
  try {
    format = (await sharp(input).metadata()).format;
  } catch {
    format = undefined;
  }
  if (!format || !ACCEPTED.has(format)) throw new InvalidImageError("Upload a JPEG, PNG or WebP image");
  const key = randomUUID();
  await fs.mkdir(uploadDir(), { recursive: true });
  try {
    for (const size of sizes) {
      const { width, square } = IMAGE_SIZES[size];
      await sharp(input)
        .rotate()
        .resize(square ? { width, height: width, fit: "cover" } : { width, height: width, fit: "inside", withoutEnlargement: true })
        .webp({ quality: 80 })
        .toFile(imageFile(key, size)!);
    }
  } catch {
    await deleteImage(key);
    throw new InvalidImageError("This image could not be read. Upload a JPEG, PNG or WebP image");
  }
  return key;
}

export async function deleteImage(key: string) {
  await Promise.all(
    (Object.keys(IMAGE_SIZES) as ImageSize[]).map((size) => {
      const file = imageFile(key, size);
      return file ? fs.rm(file, { force: true }) : undefined;
    }),
  );
}
