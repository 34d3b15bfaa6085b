/**
 * How the web process answers from the anonymous page cache (app/server/page-cache.server.ts, ADR 019):
 * marketplace pages for visitors without a session. A page is built from its key alone, with placeholders for
 * the nonce and the page view that each response fills with its own; the page-view recorder (which runs
 * before) still sees every hit. server.ts asks `serve` first for each main-host request.
 */
import { createRequestHandler as createFetchHandler, type AppLoadContext, type ServerBuild } from "@remix-run/node";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { PageviewContext } from "~/analytics/router.server";
import {
  fillPage,
  getPageCache,
  gzipPage,
  listenForPageDrops,
  pageCacheEnabled,
  pageKeyOf,
  type CachedPage,
  type PageFill,
  type PageKey,
} from "./page-cache.server";
import { log } from "~/server/log.server";
import { pageCacheLookups } from "~/server/metrics.server";
import { noteRoute, REQUEST_ID_HEADER } from "~/server/request-context.server";

export type PageCacheServing = {
  /**
   * Takes the request when the cache may answer it (a cacheable GET of a visitor without a session) and
   * returns true; false leaves it to the caller's Remix handler.
   */
  serve(req: Request, res: Response, next: NextFunction): boolean;
};

/**
 * The cache's serving, or null when PAGE_CACHE=off. Starts listening for drops from other processes.
 * `build` and `mode` as the main host's Remix handler has them; `rendered` is that handler, for the requests
 * that must be rendered as if there were no cache.
 */
export async function startPageCacheServing(options: {
  build: ServerBuild | (() => Promise<ServerBuild>);
  mode: "production" | "development";
  rendered: RequestHandler;
}): Promise<PageCacheServing | null> {
  if (!pageCacheEnabled()) return null;
  const cache = getPageCache();
  await listenForPageDrops();
  const renderMain = createFetchHandler(options.build, options.mode);

  function renderKey(key: PageKey, req: Request): Promise<globalThis.Response> {
    const context: AppLoadContext = {
      cspNonce: cache.placeholder.nonce,
      clientIp: req.ip ?? "unknown",
      isLocalRequest: false,
      pageview: key.pageview ? { eventId: cache.placeholder.eventId, time: 0 } : null,
      responseDrained: () => Promise.resolve(),
      // The cache keeps the page as rendered and compresses its parts itself.
      documentEncoding: null,
    };
    return renderMain(new globalThis.Request(key.url, { headers: key.headers }), context);
  }

  const servePage = (key: PageKey, req: Request, res: Response, next: NextFunction) =>
    serveShared(key.id, req, res, {
      build: () => renderKey(key, req),
      // The request that built a page may have any answer it rendered (an error page, a redirect, a 429
      // counted against its address): it was rendered as that request's own.
      builderMayUse: true,
      own: () => options.rendered(req, res, next),
      fill: fillOf(res),
    });

  return {
    serve(req, res, next) {
      const key = pageKeyOf(req, res.locals.pageview !== null && res.locals.pageview !== undefined);
      if (!key) return false;
      // A drop another process published before this request was sent is already waiting on our Redis socket,
      // ready in the same turn of the event loop as this request: the lookup waits for that turn's end (one
      // setImmediate), by which time the drop has been read and applied (ADR 019, "Drops across processes").
      setImmediate(() => void servePage(key, req, res, next).catch(next));
      return true;
    },
  };
}

/** What a response fills into a page: its nonce and its page view (server.ts put both in res.locals). */
const fillOf = (res: Response): PageFill => ({ nonce: res.locals.cspNonce as string, pageview: (res.locals.pageview as PageviewContext | undefined) ?? null });

/**
 * Answers a request from the cache under `key`: a fresh entry, or a stale one while one rebuild of it runs
 * in the background; on a miss, the entry `build` makes now, shared with the requests for the same key that
 * arrive while it is built. An answer that may not be shared (not a 200, a cookie, `no-store`) goes only to
 * the request that built it, and only when `builderMayUse`; every other request then gets `own()`, its
 * answer as if there were no cache. The anonymous pages and the JSON API's shared reads (ADR 042) both
 * answer through this.
 */
export async function serveShared(
  key: string,
  req: Request,
  res: Response,
  options: {
    build: () => Promise<globalThis.Response>;
    builderMayUse: boolean;
    own: () => unknown;
    fill: PageFill;
    /** Gzip a miss too (from parts compressed at once), for a caller with no compression() in front. */
    gzipMiss?: boolean;
  },
): Promise<void> {
  const cache = getPageCache();
  const found = cache.lookup(key);
  pageCacheLookups.inc({ result: found.state === "miss" ? "miss" : "hit" });
  if (found.state !== "miss") {
    // No loader runs for a cached answer: its log line and metrics name the cache rather than "other".
    noteRoute(req.headers[REQUEST_ID_HEADER] as string | undefined, "page-cache");
    if (found.state === "stale" && !cache.isBuilding(key)) {
      cache.build(key, options.build).catch((error: Error) => log.error({ err: error }, "[page-cache] rebuild failed"));
    }
    return sendPage(req, res, found.page, found.state, options.fill, false);
  }
  const builder = !cache.isBuilding(key);
  const built = await cache.build(key, options.build);
  if (built.setsCookie || !(built.storable || (builder && options.builderMayUse))) {
    await options.own();
    return;
  }
  sendPage(req, res, built.page, "miss", options.fill, options.gzipMiss ?? false);
}

/**
 * A cached page with this response's nonce and page view. A hit is gzipped from the parts compressed at its
 * page's first hit (compression() leaves a response that has its Content-Encoding): nothing is compressed
 * per response.
 */
function sendPage(req: Request, res: Response, page: CachedPage, state: string, fill: PageFill, gzipMiss: boolean) {
  // A page's miss goes out through compression() as any page does: its parts are gzipped at the first hit.
  const gzipped = (state !== "miss" || gzipMiss) && req.acceptsEncodings("gzip", "identity") === "gzip" ? gzipPage(page, fill) : null;
  const body = gzipped ?? fillPage(page, fill);
  res.status(page.status);
  for (const [name, value] of page.headers) res.setHeader(name, value);
  res.setHeader("X-Page-Cache", state);
  res.setHeader("Vary", "Accept-Encoding");
  if (gzipped) res.setHeader("Content-Encoding", "gzip");
  res.setHeader("Content-Length", body.length);
  res.end(body);
}
