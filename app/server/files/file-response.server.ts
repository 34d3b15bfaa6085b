/**
 * A stored file as a download response, for the pages that serve members' files (an order's files, a
 * conversation's attachments): streamed from the file store through the app (never a link to the store itself,
 * ADR 056), with its recorded type, length and a Content-Disposition
 * that names it. Only an image (its type sniffed from its bytes when it was stored) may be shown inline;
 * everything else is an attachment, so a file that looks like a page is never run as one.
 * X-Content-Type-Options: nosniff comes with every response (helmet, in server.ts).
 */
import { Readable } from "node:stream";
import { fileStore, type FileStore } from "~/server/files/file-store.server";
import { orderFileKey } from "~/server/files/order-files.server";
import { plainWords } from "~/server/plain-words.server";

/** RFC 5987's encoding of a header parameter: percent-encoded UTF-8, with the few characters it reserves too. */
const rfc5987 = (value: string) => encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * `attachment; filename="…"` (or `inline`), with `filename*` (RFC 6266/5987) beside a plain-ASCII stand-in
 * when the name has other characters ("Ripoti ya Kampala – 2026.pdf"), which every current browser prefers.
 */
export function contentDisposition(fileName: string, kind: "attachment" | "inline" = "attachment"): string {
  // eslint-disable-next-line no-control-regex
  const ascii = fileName.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  if (ascii === fileName) return `${kind}; filename="${ascii}"`;
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${rfc5987(fileName)}`;
}

/** The 404 of a file that is not there, or not the reader's to open: plain text in the reader's language. */
export const fileNotFound = (request: Request) => plainWords(request, 404, "ops.file.notFound");

/**
 * An order's or a message's file (by its row's storage key) as a response, or null when it is gone (a row that
 * outlived its file). The caller has already checked the reader may open it. `inline` is honoured for images only.
 */
export async function storedFileResponse({
  storageKey,
  contentType,
  fileName,
  inline = false,
  head = false,
  store = fileStore(),
}: {
  storageKey: string;
  contentType: string;
  fileName: string;
  inline?: boolean;
  /** A HEAD request: the headers only, the stream let go of at once (not left holding a file or an S3 connection). */
  head?: boolean;
  store?: FileStore;
}): Promise<Response | null> {
  const key = orderFileKey(storageKey);
  const file = key ? await store.get(key) : null;
  if (!file) return null;
  if (head) file.body.destroy();
  const body = head ? null : (Readable.toWeb(file.body) as ReadableStream<Uint8Array>);
  return new Response(body, {
    headers: {
      "Content-Type": contentType,
      "Content-Length": String(file.size),
      "Content-Disposition": contentDisposition(fileName, inline && contentType.startsWith("image/") ? "inline" : "attachment"),
      "Cache-Control": "private, no-store",
    },
  });
}
