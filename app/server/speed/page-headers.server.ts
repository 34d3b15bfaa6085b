/**
 * A page's security headers, helmet's, worked out once at start, and the CSP nonce each page needs (ADR 024).
 *
 * Written against: helmet 8.1 (8.3 installed).
 * Replaces: helmet's middlewares on every request. helmet (with server.ts's options, which stay the one source
 *   of the headers) runs once against a response that records what it sets; one middleware then sets those
 *   headers on each response with its own nonce. With the patches off, server.ts runs helmet itself on every
 *   request after a middleware that draws the nonce (`stockPageHeaders` in index.server.ts).
 * What it saves: see ADR 024.
 * Remove it when: helmet can hand back its headers as a precomputed list (it builds them per request in 8.x);
 *   then delete this file and use `stockPageHeaders` (index.server.ts) unconditionally.
 */
import { randomBytes } from "node:crypto";
import type { RequestHandler, Response } from "express";

/** Stands in for the nonce while helmet works out the headers; any text helmet accepts in a CSP source. */
const NONCE_PLACEHOLDER = "soko-nonce-placeholder";

/**
 * The headers `helmet` sets, set by one middleware that also gives the response its CSP nonce
 * (`res.locals.cspNonce`, 16 random bytes in base64). helmet runs once, here, against a response that only
 * records what is done to it, with the placeholder for the nonce: its headers depend on nothing else of a
 * request (the only function among its directives reads the nonce), so each response gets exactly
 * those headers in the same order, with its own nonce in the placeholder's place.
 */
export function pageHeaders(helmetMiddleware: RequestHandler): RequestHandler {
  const set: [name: string, parts: string[]][] = [];
  const removed: string[] = [];
  const recorder = {
    locals: { cspNonce: NONCE_PLACEHOLDER },
    setHeader(name: string, value: string | number | readonly string[]) {
      set.push([name, String(value).split(NONCE_PLACEHOLDER)]);
      return this;
    },
    removeHeader(name: string) {
      removed.push(name);
    },
  };
  let done = false;
  helmetMiddleware({} as never, recorder as unknown as Response, (error?: unknown) => {
    if (error) throw error;
    done = true;
  });
  if (!done) throw new Error("helmet did not finish at once: its headers cannot be worked out in advance");
  return (_req, res, next) => {
    const nonce = nextNonce();
    res.locals.cspNonce = nonce;
    for (const name of removed) res.removeHeader(name);
    for (const [name, parts] of set) res.setHeader(name, parts.length === 1 ? parts[0]! : parts.join(nonce));
    next();
  };
}

// Nonces come from a pool of random bytes drawn 4 KB at a time (one draw per 256 pages instead of one each):
// every nonce is still 16 bytes nobody has seen, used once.
const NONCE_BYTES = 16;
let pool = Buffer.alloc(0);
let offset = 0;

function nextNonce(): string {
  if (offset + NONCE_BYTES > pool.length) {
    pool = randomBytes(NONCE_BYTES * 256);
    offset = 0;
  }
  const nonce = pool.toString("base64", offset, offset + NONCE_BYTES);
  offset += NONCE_BYTES;
  return nonce;
}
