/**
 * Documents uploaded before the call that uses them (ADR 041): stored as an order's files are (the same types,
 * sizes and upload quota: app/server/files/order-files.server.ts), then recorded in `uploaded_files` for their
 * member, whose message, order or delivery later takes them by key (takeUploadedFiles). Nothing here is a
 * member's activity yet: the row only says whose the file is until it is used.
 */
import { recordUploadedFiles } from "~/models/uploaded-file.server";
import { forbidden, invalid, issue, memberOf, ok, transact, type Actor, type FieldIssue, type Result } from "~/operations/core.server";
import type { Options } from "~/operations/accounts.server";
import {
  cleanFileName,
  deleteOrderFile,
  InvalidOrderFileError,
  MAX_ORDER_FILE_BYTES,
  MAX_ORDER_FILES,
  sniffOrderFile,
  storeOrderFiles,
  UploadRefusedError,
  type StoredOrderFile,
} from "~/server/files/order-files.server";
import { releaseUploads, uploadFailure } from "~/server/files/upload-quota.server";

export type DocumentInput = { name: string; bytes: Uint8Array };

/** Why a file cannot be stored, before anything is counted or written; null when it can. */
function problemOf(file: DocumentInput): FieldIssue | null {
  const name = cleanFileName(file.name);
  if (file.bytes.length === 0) return issue("upload.file_empty", { file: name });
  if (file.bytes.length > MAX_ORDER_FILE_BYTES) return issue("upload.file_too_large", { file: name, maxMegabytes: MAX_ORDER_FILE_BYTES / (1024 * 1024) });
  if (!sniffOrderFile(file.bytes)) return issue("upload.file_wrong_type", { file: name });
  return null;
}

/**
 * Stores a member's documents, all or none: each is checked (refused beside `field`, nothing counted or
 * written), counted against the upload quota (429 over a rate, 400 over the storage cap), written, then
 * recorded in one transaction. If the record is not written, the files are deleted and the quota given back.
 */
export async function uploadDocuments(
  actor: Actor,
  input: { files: DocumentInput[]; field?: string },
  { db }: Options = {},
): Promise<Result<StoredOrderFile[]>> {
  const user = memberOf(actor);
  if (!user) return forbidden("access.sign_in_required");
  const field = input.field ?? "file";
  const { files } = input;
  if (!files.length) return invalid({ [field]: [issue("upload.no_file")] });
  if (files.length > MAX_ORDER_FILES) return invalid({ [field]: [issue("upload.too_many_files", { max: MAX_ORDER_FILES })] });
  const problems = files.map(problemOf).filter((p): p is FieldIssue => p !== null);
  if (problems.length) return invalid({ [field]: problems });

  let stored: StoredOrderFile[];
  try {
    stored = await storeOrderFiles(files, { userId: user.id, db });
  } catch (error) {
    if (error instanceof UploadRefusedError) return uploadFailure(error.refusal, field);
    // The checks above are the same as the store's: this is only a safety net, with the store's own code.
    if (error instanceof InvalidOrderFileError) return invalid({ [field]: [error.issue] });
    throw error;
  }

  let result: Result<StoredOrderFile[]> | undefined;
  try {
    result = await transact(
      actor,
      async (tx) => {
        await recordUploadedFiles(tx.trx, user.id, stored);
        return ok(stored);
      },
      { db },
    );
    return result;
  } finally {
    if (!result?.ok) {
      // No row names these files: they go now, and the quota they took is given back.
      await Promise.all(stored.map((s) => deleteOrderFile(s.storageKey)));
      await releaseUploads(
        user.id,
        stored.map((s) => s.sizeBytes),
      ).catch(() => {});
    }
  }
}
