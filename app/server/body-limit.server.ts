/**
 * Request body caps for every page and form, enforced in front of the Remix handler so that no action has
 * to remember them (ADR 010). A form is at most 1 MB; the pages whose forms carry images (the gig editor and
 * the profile settings) take up to one image more than they allow plus 1 MB of fields, so that one image
 * over its 5 MB still reaches the route, which refuses only that image and shows the form back as typed.
 *
 * A body announced by Content-Length is judged before a byte of it is read (Node's parser reads exactly that
 * many bytes, never more). A chunked body, whose size nobody knows in advance, is received in full, up to the
 * cap, before the route sees it; it is cut at the cap. Either way the answer is a 413 in plain words (the visitor's), and the
 * rest of the body is read into nothing (as the tracking endpoints do), so that the client, still sending,
 * can read the answer; a client that keeps sending for longer than LINGER_MS after it is disconnected.
 *
 * The part-count and per-part rules need the form's structure: they live in form-data.server.ts, whose
 * readers every form goes through (the gig editor's and the profile picture's too). The tracking endpoints
 * (mounted before this) keep their own 64 KB cap.
 */
import type { Request as ExpressRequest, RequestHandler, Response as ExpressResponse } from "express";
import { headersWords } from "~/server/plain-words.server";
import { MAX_IMAGES } from "~/schemas/gig";
import { MAX_IMAGE_BYTES } from "~/server/files/storage.server";
import { MAX_ORDER_FILE_BYTES, MAX_ORDER_FILES } from "~/server/files/order-files.server";

const MB = 1024 * 1024;

/** Any form without files: sign-in, join, settings, the small forms beside the gig editor. */
export const FORM_BODY_LIMIT = 1 * MB;
/** A form with images: MAX_IMAGES of them, one more (refused by the route, alone), and the fields. */
export const UPLOAD_BODY_LIMIT = (MAX_IMAGES + 1) * MAX_IMAGE_BYTES + FORM_BODY_LIMIT;

/** A form with order files (checkout's requirements, a delivery): MAX_ORDER_FILES of them, one more, and the fields. */
export const ORDER_FILES_BODY_LIMIT = (MAX_ORDER_FILES + 1) * MAX_ORDER_FILE_BYTES + FORM_BODY_LIMIT;

/** How long a refused client may go on sending the body it was refused, read into nothing, before we hang up. */
const LINGER_MS = 30_000;

/**
 * The pages whose forms may carry files, as multipart/form-data. Paths as Remix matches them: lower case,
 * without a trailing slash, and with ".data" (the same route's request from a page running JavaScript) removed.
 */
const UPLOAD_PAGES: ReadonlyArray<(path: string, query: URLSearchParams) => boolean> = [
  (path) => path === "/gig/create",
  (path) => /^\/gig\/[^/]+\/edit$/.test(path),
  // Only the profile tab (the default) takes a picture; the other tabs are forms of a few fields.
  (path, query) => path === "/settings" && (query.get("tab") ?? "profile") === "profile",
];

/**
 * The pages whose forms carry order-sized files: checkout (requirements), an order's page (a delivery) and a
 * conversation (a message's attachments, at most as many and as large as an order's).
 */
const ORDER_FILE_PAGES: ReadonlyArray<(path: string) => boolean> = [
  (path) => /^\/gig\/[^/]+\/order$/.test(path),
  (path) => /^\/orders\/[^/]+$/.test(path),
  (path) => /^\/messages\/[^/]+$/.test(path),
];

/** The most bytes this request's body may have. */
export function bodyLimitOf(req: Pick<ExpressRequest, "originalUrl" | "headers">): number {
  const isMultipart = /^\s*multipart\/form-data\s*(;|$)/i.test(req.headers["content-type"] ?? "");
  if (!isMultipart) return FORM_BODY_LIMIT;
  const url = new URL(req.originalUrl, "http://localhost");
  const path = url.pathname
    .toLowerCase()
    .replace(/\.data$/, "")
    .replace(/\/+$/, "");
  if (ORDER_FILE_PAGES.some((allows) => allows(path))) return ORDER_FILES_BODY_LIMIT;
  return UPLOAD_PAGES.some((allows) => allows(path, url.searchParams)) ? UPLOAD_BODY_LIMIT : FORM_BODY_LIMIT;
}

/**
 * The refusal in the visitor's language (ADR 047), from the request's headers alone (the switcher's cookie, which
 * a member's choice sets too, then Accept-Language): no database lookup in front of every body.
 */
function tooLargeMessage(req: Pick<ExpressRequest, "headers">, limit: number) {
  const { say } = headersWords(req);
  const mb = Math.round(limit / MB);
  return limit > FORM_BODY_LIMIT
    ? limit === ORDER_FILES_BODY_LIMIT
      ? say("ops.form.tooLargeFiles", { limit: mb, max: MAX_ORDER_FILE_BYTES / MB })
      : say("ops.form.tooLargeImages", { limit: mb, max: MAX_IMAGE_BYTES / MB })
    : say("ops.form.tooLarge", { limit: mb });
}

/**
 * Answers 413 at once, and reads the rest of the body into nothing before the answer ends. A connection
 * closed while the client is still sending is reset, and a reset can destroy the answer before the client
 * reads it (a client that sent `Connection: close` would otherwise be hung up on as soon as the answer is
 * written): so the whole answer is written now, with its length, and the response ends (and such a
 * connection closes) only once the body has been read, or after LINGER_MS.
 */
function refuse(req: ExpressRequest, res: ExpressResponse, limit: number) {
  const answer = Buffer.from(tooLargeMessage(req, limit));
  res.status(413).set({ "Content-Type": "text/plain; charset=utf-8", "Content-Length": String(answer.length), "Cache-Control": "no-store" });
  if (req.complete) return res.end(answer);
  res.write(answer);
  req.resume();
  const hangUp = setTimeout(() => req.socket.destroy(), LINGER_MS).unref();
  req.once("end", () => {
    clearTimeout(hangUp);
    res.end();
  });
  req.once("close", () => clearTimeout(hangUp));
}

/**
 * Holds a chunked body until it is complete (then `onComplete`) or passes `limit` (then `onTooLarge`, with
 * what was held let go). Node's HTTP parser hands each piece of a body to `req.push`; while held, the pieces
 * wait in the request's own buffer and the socket keeps being read, however full that buffer is, up to the
 * limit. The route then reads the whole body from that buffer as usual.
 */
function holdBody(req: ExpressRequest, limit: number, onComplete: () => void, onTooLarge: () => void) {
  let received = req.readableLength;
  if (req.complete || received > limit) return received > limit ? onTooLarge() : onComplete();
  const push = req.push;
  req.push = function holdingPush(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk === null) {
      req.push = push;
      push.call(req, null);
      onComplete();
      return true;
    }
    received += (chunk as Buffer).length;
    if (received > limit) {
      req.push = push; // from here on the body is drained into nothing (refuse resumes the stream)
      onTooLarge();
      return true;
    }
    push.call(req, chunk, encoding);
    return true;
  };
  // The parser stops reading the socket when the buffer fills (nobody reads it yet): read on.
  if (req.readableLength >= req.readableHighWaterMark) req.socket.resume();
}

/** The middleware: every request's body is within its cap before the route sees it, or answered 413. */
export function bodyLimits(): RequestHandler {
  return (req, res, next) => {
    const limit = bodyLimitOf(req);
    const declared = req.headers["content-length"];
    if (declared !== undefined) {
      // Node has checked it is one whole number (and refuses it beside Transfer-Encoding).
      return Number(declared) > limit ? refuse(req, res, limit) : next();
    }
    if (req.headers["transfer-encoding"] === undefined) return next(); // no body
    holdBody(
      req,
      limit,
      () => next(),
      () => refuse(req, res, limit),
    );
  };
}
