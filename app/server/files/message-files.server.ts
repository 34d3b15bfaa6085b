/**
 * Files attached to a message: images and PDFs only (a chat is no place for archives or documents that run
 * macros), up to MAX_ORDER_FILE_BYTES each and MAX_MESSAGE_FILES at once. They are checked by their first
 * bytes and kept exactly like order files (order-files.server.ts: in the file store, under a random key),
 * and served only to the conversation's two members (/messages/:id/files/:fileId), images inline.
 *
 * An image is judged as a gig image is (storage.server.ts): by its pixels as well as its bytes. Its header
 * must be readable and within MAX_IMAGE_PIXELS, and the whole of it must decode, so a file with an image's
 * first bytes and anything else after them (a corrupt or truncated image, another file behind a PNG
 * signature) is refused rather than shown inline to the other member. What is kept is the image made again
 * from its pixels, without the sender's metadata (a photo's GPS position).
 */
import type Sharp from "sharp";
import { msg } from "~/i18n/message-key";
import type { FieldIssue } from "~/operations/failure-codes";
import {
  cleanFileName,
  deleteOrderFile,
  InvalidOrderFileError,
  MAX_ORDER_FILE_BYTES,
  MAX_ORDER_FILES,
  sniffOrderFile,
  storeOrderFiles,
  type FileOwner,
  type StoredOrderFile,
} from "~/server/files/order-files.server";
import type { FileStore } from "~/server/files/file-store.server";
import { imageHeader, loadSharp, MAX_IMAGE_PIXELS, overPixelLimit } from "~/server/files/storage.server";

export const MAX_MESSAGE_FILES = MAX_ORDER_FILES;
export const MAX_MESSAGE_FILE_BYTES = MAX_ORDER_FILE_BYTES;
/** What the file input offers (a hint for the picker only: the server sniffs every file). */
export const MESSAGE_FILE_ACCEPT = "image/jpeg,image/png,image/webp,image/gif,application/pdf";

export { InvalidOrderFileError as InvalidMessageFileError };

/** Whether a stored file's type (sniffed from its bytes) may be attached to a message: an image or a PDF. */
export const isMessageFileType = (type: string | null) => type === "application/pdf" || (type?.startsWith("image/") ?? false);
const allowed = isMessageFileType;

/** The formats a message image may be, as sharp names them, by the type its first bytes gave. */
const IMAGE_FORMATS: Record<string, string> = { "image/jpeg": "jpeg", "image/png": "png", "image/webp": "webp", "image/gif": "gif" };

/**
 * The image made again from its pixels, in its own format, or why it is refused (its header unreadable or
 * not the format its first bytes say, too many pixels, its pixels not decodable). Made again, as a gig
 * image is, so nothing but the picture reaches the other member: a phone photo's metadata (its GPS
 * position, the camera's serial number) is dropped, and a photo is turned upright by its orientation tag.
 */
async function remadeImage(name: string, type: string, bytes: Uint8Array): Promise<{ bytes: Uint8Array } | { problem: FieldIssue }> {
  const unreadable = { problem: { code: "schema", message: msg("ops.message.imageUnreadable", { file: name }) } as const };
  const header = await imageHeader(bytes);
  const format = IMAGE_FORMATS[type];
  if (!header || !format || header.format !== format) return unreadable;
  if (overPixelLimit(header)) {
    const { width = 0, height = 0 } = header;
    return { problem: { code: "schema", message: msg("ops.message.imageTooManyPixels", { file: name, width, height, max: MAX_IMAGE_PIXELS / 1_000_000 }) } };
  }
  try {
    // Every pixel is decoded (every frame of an animation); failOn "warning" refuses a cut or corrupt image.
    const sharp = await loadSharp();
    const image = sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: "warning", animated: true });
    // An animation has no orientation tag, and sharp turns a many-page image only by 180 degrees.
    const upright = (header.pages ?? 1) > 1 ? image : image.rotate();
    const remade = await upright.toFormat(format as keyof Sharp.FormatEnum, format === "jpeg" || format === "webp" ? { quality: 90 } : {}).toBuffer();
    return { bytes: new Uint8Array(remade) };
  } catch {
    return unreadable;
  }
}

/**
 * Checks every file before storing any (kind by its bytes, an image by its pixels, count), then stores them all or none,
 * counted against the sender's upload quota as they are made (storeOrderFiles); throws InvalidMessageFileError with the
 * refusal's code or keyed words (an UploadRefusedError over the quota), which its `words` says in the reader's language.
 */
export async function storeMessageFiles(files: { name: string; bytes: Uint8Array }[], owner: FileOwner): Promise<StoredOrderFile[]> {
  const real = files.filter((f) => f.bytes.length > 0 || f.name !== "");
  if (real.length > MAX_MESSAGE_FILES) throw new InvalidOrderFileError({ code: "upload.too_many_files", params: { max: MAX_MESSAGE_FILES } });
  const kept: { name: string; bytes: Uint8Array }[] = [];
  for (const f of real) {
    if (f.bytes.length === 0) throw new InvalidOrderFileError({ code: "upload.file_empty", params: { file: cleanFileName(f.name) } });
    const type = sniffOrderFile(f.bytes);
    if (!allowed(type)) throw new InvalidOrderFileError({ code: "message.file_type", params: { file: cleanFileName(f.name) } });
    if (!type!.startsWith("image/")) {
      kept.push(f);
      continue;
    }
    const image = await remadeImage(cleanFileName(f.name), type!, f.bytes);
    if ("problem" in image) throw new InvalidOrderFileError(image.problem);
    kept.push({ name: f.name, bytes: image.bytes });
  }
  return storeOrderFiles(kept, owner);
}

/** Removes stored files whose message was not stored after all. */
export async function deleteMessageFiles(files: StoredOrderFile[], store?: FileStore) {
  for (const f of files) await deleteOrderFile(f.storageKey, store);
}
