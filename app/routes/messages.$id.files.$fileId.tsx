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

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const fileId = Number(params.fileId);
  if (!Number.isSafeInteger(fileId) || fileId <= 0) throw await fileNotFound(request);
  const file = await findAttachment(getDb(), fileId, user.id);
  const answer = file
    ? await storedFileResponse({
        storageKey: file.storageKey,
        contentType: file.contentType,
        fileName: file.fileName,
        inline: true,
        head: request.method === "HEAD",
      })
    : null;
  if (!answer) throw await fileNotFound(request);
  return answer;
}
