/**
 * An order's file (the buyer's requirements, a delivery), downloaded by one of the order's two parties;
 * anyone else, an admin included, meets a 404 as if there were no such file. The file is streamed from
 * the file store through the app, always as an attachment and never sniffed, so a file that looks like a page is never run as one.
 */
import type { LoaderFunctionArgs } from "@remix-run/node";
import { findOrderFile } from "~/models/order.server";
import { requireUser } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { fileNotFound, storedFileResponse } from "~/server/files/file-response.server";

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const file = await findOrderFile(getDb(), Number(params.id), Number(params.fileId), { id: user.id, isAdmin: false });
  const answer = file
    ? await storedFileResponse({ storageKey: file.storageKey, contentType: file.contentType, fileName: file.fileName, head: request.method === "HEAD" })
    : null;
  if (!answer) throw await fileNotFound(request);
  return answer;
}
