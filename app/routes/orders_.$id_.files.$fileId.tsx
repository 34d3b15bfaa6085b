/**
 * An order's file (the buyer's requirements, a delivery), downloaded by one of the order's two parties;
 * anyone else, an admin included, meets a 404 as if there were no such file. The file is streamed from
 * disk, always as an attachment and never sniffed, so a file that looks like a page is never run as one.
 */
import fs from "node:fs";
import { Readable } from "node:stream";
import type { LoaderFunctionArgs } from "@remix-run/node";
import { findOrderFile } from "~/models/order.server";
import { requireUser } from "~/utils/auth.server";
import { getDb } from "~/utils/db.server";
import { orderFilePath } from "~/utils/order-files.server";

/** RFC 5987's encoding of a header parameter: percent-encoded UTF-8, with the few characters it reserves too. */
const rfc5987 = (value: string) => encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * `attachment; filename="…"`, with `filename*` (RFC 6266/5987) beside a plain-ASCII stand-in when the name
 * has other characters ("Ripoti ya Kampala – 2026.pdf"), which every current browser prefers.
 */
function attachmentDisposition(fileName: string): string {
  // eslint-disable-next-line no-control-regex
  const ascii = fileName.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  if (ascii === fileName) return `attachment; filename="${ascii}"`;
  return `attachment; filename="${ascii}"; filename*=UTF-8''${rfc5987(fileName)}`;
}

const notFound = () => new Response("Not Found", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const file = await findOrderFile(getDb(), Number(params.id), Number(params.fileId), { id: user.id, isAdmin: false });
  const filePath = file ? orderFilePath(file.storageKey) : null;
  if (!file || !filePath) throw notFound();
  let size: number;
  try {
    size = (await fs.promises.stat(filePath)).size;
  } catch {
    // The row outlived its file (a disk restored without it): nothing to send.
    throw notFound();
  }
  // X-Content-Type-Options: nosniff comes with every response (helmet, in server.ts); set here too it would be sent twice.
  const body = Readable.toWeb(fs.createReadStream(filePath)) as ReadableStream<Uint8Array>;
  return new Response(body, {
    headers: {
      "Content-Type": file.contentType,
      "Content-Length": String(size),
      "Content-Disposition": attachmentDisposition(file.fileName),
      "Cache-Control": "private, no-store",
    },
  });
}
