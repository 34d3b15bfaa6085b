/**
 * Files attached to a message: images and PDFs only (a chat is no place for archives or documents that run
 * macros), up to MAX_ORDER_FILE_BYTES each and MAX_MESSAGE_FILES at once. They are checked by their first
 * bytes and kept exactly like order files (order-files.server.ts: outside the web root, under a random key),
 * and served only to the conversation's two members (/messages/:id/files/:fileId).
 */
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

export const MAX_MESSAGE_FILES = MAX_ORDER_FILES;
export const MAX_MESSAGE_FILE_BYTES = MAX_ORDER_FILE_BYTES;
export const MESSAGE_FILE_TYPES_TEXT = "images (JPEG, PNG, WebP, GIF) or PDFs";
/** What the file input offers (a hint for the picker only: the server sniffs every file). */
export const MESSAGE_FILE_ACCEPT = "image/jpeg,image/png,image/webp,image/gif,application/pdf";

export { InvalidOrderFileError as InvalidMessageFileError };

const allowed = (type: string | null) => type === "application/pdf" || (type?.startsWith("image/") ?? false);

/**
 * Checks every file before storing any (kind by its bytes, count), then stores them all or none; throws
 * InvalidMessageFileError with a message for people.
 */
export async function storeMessageFiles(files: { name: string; bytes: Uint8Array }[]): Promise<StoredOrderFile[]> {
  const real = files.filter((f) => f.bytes.length > 0 || f.name !== "");
  if (real.length > MAX_MESSAGE_FILES) throw new InvalidOrderFileError(`Attach at most ${MAX_MESSAGE_FILES} files`);
  for (const f of real) {
    if (f.bytes.length === 0) throw new InvalidOrderFileError(`${cleanFileName(f.name)} is empty`);
    if (!allowed(sniffOrderFile(f.bytes))) throw new InvalidOrderFileError(`${cleanFileName(f.name)} is not a file we accept here: attach ${MESSAGE_FILE_TYPES_TEXT}`);
  }
  return storeOrderFiles(real);
}

/** Removes stored files whose message was not stored after all. */
export async function deleteMessageFiles(files: StoredOrderFile[]) {
  for (const f of files) await deleteOrderFile(f.storageKey);
}
