/**
 * A message's attachment, for the conversation's two members only: findAttachment filters by the member, so
 * anyone else (an admin on the main host too) meets a 404, as for a file that does not exist. Images are
 * shown inline (their type was sniffed from their bytes when stored), PDFs are downloaded.
 */
import type { LoaderFunctionArgs } from "@remix-run/node";
import { findAttachment } from "~/models/message.server";
import { requireUser } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { fileNotFound, storedFileResponse } from "~/server/files/file-response.server";
import { orderFilePath } from "~/server/files/order-files.server";

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const fileId = Number(params.fileId);
  if (!Number.isSafeInteger(fileId) || fileId <= 0) throw await fileNotFound(request);
  const file = await findAttachment(getDb(), fileId, user.id);
  const filePath = file ? orderFilePath(file.storageKey) : null;
  const answer = file && filePath ? await storedFileResponse({ filePath, contentType: file.contentType, fileName: file.fileName, inline: true }) : null;
  if (!answer) throw await fileNotFound(request);
  return answer;
}
