/**
 * Files attached to a message: images and PDFs only (a chat is no place for archives or documents that run
 * macros), up to MAX_ORDER_FILE_BYTES each and MAX_MESSAGE_FILES at once. They are checked by their first
 * bytes and kept exactly like order files (order-files.server.ts: outside the web root, under a random key),
 * and served only to the conversation's two members (/messages/:id/files/:fileId), images inline.
 *
 * An image is judged as a gig image is (storage.server.ts): by its pixels as well as its bytes. Its header
 * must be readable and within MAX_IMAGE_PIXELS, and the whole of it must decode, so a file with an image's
 * first bytes and anything else after them (a corrupt or truncated image, another file behind a PNG
 * signature) is refused rather than shown inline to the other member.
 */
import sharp from "sharp";
import {
  cleanFileName,
  deleteOrderFile,
  InvalidOrderFileError,
  MAX_ORDER_FILE_BYTES,
  MAX_ORDER_FILES,
  sniffOrderFile,
  storeOrderFiles,
  type StoredOrderFile,
} from "~/utils/order-files.server";
import { MAX_IMAGE_PIXELS } from "~/utils/storage.server";

export const MAX_MESSAGE_FILES = MAX_ORDER_FILES;
export const MAX_MESSAGE_FILE_BYTES = MAX_ORDER_FILE_BYTES;
export const MESSAGE_FILE_TYPES_TEXT = "images (JPEG, PNG, WebP, GIF) or PDFs";
/** What the file input offers (a hint for the picker only: the server sniffs every file). */
export const MESSAGE_FILE_ACCEPT = "image/jpeg,image/png,image/webp,image/gif,application/pdf";

export { InvalidOrderFileError as InvalidMessageFileError };

const allowed = (type: string | null) => type === "application/pdf" || (type?.startsWith("image/") ?? false);

/** Why an image is refused (its header unreadable, too many pixels, its pixels not decodable), or null. */
async function imageProblem(name: string, bytes: Uint8Array): Promise<string | null> {
  const unreadable = `${name} could not be read as an image: attach a whole JPEG, PNG, WebP or GIF`;
  let width = 0;
  let height = 0;
  try {
    // The header only, never the pixels, so an image too large to decode can be named as such.
    ({ width = 0, height = 0 } = await sharp(bytes, { limitInputPixels: false }).metadata());
  } catch {
    return unreadable;
  }
  if (width * height > MAX_IMAGE_PIXELS) return `${name} is ${width} x ${height} pixels: images can be at most ${MAX_IMAGE_PIXELS / 1_000_000} megapixels`;
  try {
    // Every pixel is decoded (every frame of an animation), into a thumbnail so the decoded image is never held whole.
    await sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: "warning", animated: true }).resize(32, 32, { fit: "inside" }).toBuffer();
  } catch {
    return unreadable;
  }
  return null;
}

/**
 * Checks every file before storing any (kind by its bytes, an image by its pixels, count), then stores them all or none; throws
 * InvalidMessageFileError with a message for people.
 */
export async function storeMessageFiles(files: { name: string; bytes: Uint8Array }[]): Promise<StoredOrderFile[]> {
  const real = files.filter((f) => f.bytes.length > 0 || f.name !== "");
  if (real.length > MAX_MESSAGE_FILES) throw new InvalidOrderFileError(`Attach at most ${MAX_MESSAGE_FILES} files`);
  for (const f of real) {
    if (f.bytes.length === 0) throw new InvalidOrderFileError(`${cleanFileName(f.name)} is empty`);
    const type = sniffOrderFile(f.bytes);
    if (!allowed(type)) throw new InvalidOrderFileError(`${cleanFileName(f.name)} is not a file we accept here: attach ${MESSAGE_FILE_TYPES_TEXT}`);
    const problem = type!.startsWith("image/") ? await imageProblem(cleanFileName(f.name), f.bytes) : null;
    if (problem) throw new InvalidOrderFileError(problem);
  }
  return storeOrderFiles(real);
}

/** Removes stored files whose message was not stored after all. */
export async function deleteMessageFiles(files: StoredOrderFile[]) {
  for (const f of files) await deleteOrderFile(f.storageKey);
}
