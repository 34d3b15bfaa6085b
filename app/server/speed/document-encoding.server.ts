/**
 * A rendered document compressed in one call (ADR 024).
 *
 * Written against: compression 1.8 (with negotiator 0.6.4, compression()'s own, now ours at the same line).
 * Replaces: compression()'s zlib stream for rendered documents only. entry.server has the whole page in one
 *   Buffer before anything is sent; compression() would push it through a zlib stream (a transform, its "data"
 *   events and a round trip through libuv's threads). So the web handler works out here, from the request's
 *   Accept-Encoding, the encoding compression() would have chosen (`documentEncoding`, handed to the render in
 *   the load context), and entry.server encodes the page itself (`encodeDocument`) and says so in
 *   Content-Encoding, which compression() leaves alone. Everything else (data requests, files, the JSON API)
 *   still goes through compression(). With the patches off the load context's encoding is null: entry.server
 *   sends the page as it is and compression() encodes it.
 * What it saves: see ADR 024.
 * Remove it when: the response middleware compresses a finished body in one call (or the app stops rendering
 *   whole documents before sending them, ADR 008); then delete this file, the load context's
 *   `documentEncoding` and the two lines in entry.server.tsx that use it.
 */
import type { IncomingHttpHeaders } from "node:http";
import { brotliCompressSync, constants, deflateSync, gzipSync } from "node:zlib";
import Negotiator from "negotiator";

export type DocumentEncoding = "br" | "gzip" | "deflate";

// compression() 1.8's own lists, defaults and threshold, so a document is encoded exactly as it would have
// been: brotli preferred on a tie, brotli at quality 4, gzip and deflate at zlib's default level, nothing under 1 KB.
const SUPPORTED = ["br", "gzip", "deflate", "identity"];
const PREFERRED = ["br", "gzip"];
const THRESHOLD_BYTES = 1024;
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

/**
 * The encoding compression() would choose for a response to this request, or null for none (no
 * Accept-Encoding at all, or only identity acceptable).
 */
export function documentEncoding(headers: IncomingHttpHeaders): DocumentEncoding | null {
  if (!headers["accept-encoding"]) return null;
  // @types/negotiator leaves out the second argument (the preferred order on a tie) that 0.6.4 takes.
  const negotiator = new Negotiator({ headers }) as unknown as { encoding(available: string[], preferred: string[]): string | undefined };
  const chosen = negotiator.encoding(SUPPORTED, PREFERRED);
  return chosen === "br" || chosen === "gzip" || chosen === "deflate" ? chosen : null;
}

/** The page's body as sent, with its Content-Encoding (none for a page under compression()'s threshold). */
export function encodeDocument(body: Buffer<ArrayBuffer>, encoding: DocumentEncoding | null): { body: Buffer<ArrayBuffer>; encoding: DocumentEncoding | null } {
  if (!encoding || body.length < THRESHOLD_BYTES) return { body, encoding: null };
  const encoded = encoding === "br" ? brotliCompressSync(body, BROTLI) : encoding === "gzip" ? gzipSync(body) : deflateSync(body);
  return { body: encoded as Buffer<ArrayBuffer>, encoding };
}
