/**
 * The web process's patches of Remix, Express and helmet for speed, in one place and behind one switch
 * (ADR 033; what each saves: ADR 024). server.ts calls `installSpeedPatches` once, before it loads the Remix
 * build; `SPEED_PATCHES=off` (app/server/env.server.ts) installs none of them and hands back the stock pieces,
 * so the process runs Remix, Express, compression() and helmet as they come.
 *
 * Each patch is a module of this folder whose header names the release it was written against, what it
 * replaces and what upgrade would let us delete it:
 * - route-matching.server.ts: @remix-run/router's matchRoutes, static handler and a render's route tables;
 * - loader-requests.server.ts: the server runtime's copies of a loader's request;
 * - server-anchors.server.ts: Remix's Link and NavLink on the server (app/components/link.tsx asks it first);
 * - page-headers.server.ts: helmet's headers worked out once (plugged in by server.ts: `pageHeaders`);
 * - document-encoding.server.ts: a rendered document compressed in one call (plugged in by server.ts through
 *   the load context: `documentEncoding`; entry.server.tsx encodes);
 * - render-encoding.server.ts: React's web-streams renderer turning its strings into bytes through Buffer.from.
 * tests/integration/speed-patches.test.ts renders every route with the patches on and off and compares the
 * documents byte for byte.
 */
import { randomBytes } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { RequestHandler } from "express";
import { documentEncoding, type DocumentEncoding } from "./document-encoding.server";
import { installLoaderRequests } from "./loader-requests.server";
import { pageHeaders } from "./page-headers.server";
import { installRenderEncoding } from "./render-encoding.server";
import { installRouteMatching } from "./route-matching.server";
import { installServerAnchors } from "./server-anchors.server";
import { log } from "~/server/log.server";

/** The pieces server.ts plugs in, patched or stock. */
export type SpeedPatches = {
  /** Whether the patches are on (SPEED_PATCHES). */
  on: boolean;
  /** A middleware that gives each response its CSP nonce (`res.locals.cspNonce`) and helmet's headers. */
  pageHeaders(helmet: RequestHandler): RequestHandler;
  /** The encoding entry.server gives a rendered document itself, or null to leave it to compression(). */
  documentEncoding(headers: IncomingHttpHeaders): DocumentEncoding | null;
};

/**
 * Installs every patch (`on`) or none, and returns what server.ts plugs into Express and the load context.
 * The installed ones change packages' exports for the whole process: call it once, before the Remix build is
 * loaded. A patch whose package is not the release it was written against is left out with a warning.
 */
export function installSpeedPatches({ on }: { on: boolean }): SpeedPatches {
  if (!on) {
    log.info("[web] SPEED_PATCHES=off: Remix, Express, compression() and helmet as they come (ADR 033)");
    return { on, pageHeaders: stockPageHeaders, documentEncoding: () => null };
  }
  installRouteMatching();
  installLoaderRequests();
  installServerAnchors();
  installRenderEncoding();
  return { on, pageHeaders, documentEncoding };
}

/** helmet on every request, after a middleware that draws the response's nonce: 16 random bytes in base64. */
export function stockPageHeaders(helmet: RequestHandler): RequestHandler {
  return (req, res, next) => {
    res.locals.cspNonce = randomBytes(16).toString("base64");
    helmet(req, res, next);
  };
}
