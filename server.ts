/**
 * The web process: Express with helmet (enforced CSP with a per-request nonce), compression, static
 * assets, the Remix request handler and socket.io on one HTTP server, with graceful shutdown.
 */
// The environment is checked before anything else runs; a bad one stops here with every problem listed.
import { env } from "./app/server/checked-env.server";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequestHandler } from "@remix-run/express";
import { createRequestHandler as createFetchHandler, type AppLoadContext, type ServerBuild } from "@remix-run/node";
import compression from "compression";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import helmet from "helmet";
import { Server as SocketServer } from "socket.io";
import { closeClickHouse } from "./app/analytics/clickhouse.server";
import { closeIngest, prepareIngest } from "./app/analytics/ingest.server";
import { analyticsRouter, serverPageviews, trackingFirst, type PageviewContext } from "./app/analytics/router.server";
import { attachChat, MAX_SOCKET_PAYLOAD_BYTES } from "./app/realtime/chat.server";
import { bodyLimits } from "./app/server/body-limit.server";
import { closeDb, getDb } from "./app/server/db.server";
import { documentEncoding } from "./app/server/speed/document-encoding.server";
import { isSameOrigin, refuseMisdirected, requestOrigin, serverBuildForSite, siteOfHostname, type TrustProxy } from "./app/server/host.server";
import { isLocalRequest } from "./app/server/local-request.server";
import { maskUrlCredentials } from "./app/utils/mask-url";
import { pageHeaders } from "./app/server/speed/page-headers.server";
import { closePageDrops, fillPage, getPageCache, gzipPage, listenForPageDrops, pageCacheEnabled, pageKeyOf, type CachedPage, type PageKey } from "./app/server/page-cache.server";
import { onShutdown } from "./app/server/process.server";
import { closeLimitRedis } from "./app/server/rate-limit.server";
import { closeRedis, getRedis } from "./app/server/redis.server";
import { installLoaderRequests } from "./app/server/speed/loader-requests.server";
import { installRouteMatching } from "./app/server/speed/route-matching.server";
import type { SiteHost } from "./app/utils/site-routes";

const root = path.dirname(fileURLToPath(import.meta.url));
const isProduction = env.isProduction;
// Remix's request handler and its render match routes through a version that ranks each route table once
// (app/server/speed/route-matching.server.ts, ADR 024), and its loaders get their request without two copies of it
// (app/server/speed/loader-requests.server.ts): before any request is handled.
installRouteMatching();
installLoaderRequests();

const app = express();
// Tracking posts to the exact /api/v1/analytics/<name> paths are answered before Express (ADR 021); a host
// name we do not serve is answered 421 before either, and before socket.io (ADR 029).
const httpServer = refuseMisdirected(http.createServer(trackingFirst(app)));
app.disable("x-powered-by");
// Query strings are parsed by Remix loaders from the URL; Express gets the flat parser only, so
// `?q[]=a&q[b]=c` never becomes a nested object anywhere.
app.set("query parser", "simple");
app.set("trust proxy", env.TRUST_PROXY);
const trustProxy = app.get("trust proxy fn") as TrustProxy;

// A Host header that cannot form a URL (or a path that is not valid percent-encoding) is the client's
// mistake: answer 400 before anything tries to parse it.
const rejectMalformed: RequestHandler = (req, res, next) => {
  try {
    new URL(`http://${req.headers.host ?? "localhost"}${req.originalUrl}`);
    decodeURIComponent(req.path);
    next();
  } catch {
    res.status(400).type("text/plain").send("Bad Request");
  }
};
app.use(rejectMalformed);

// The built scripts and stylesheets (/assets/<name>-<hash>.js|css) are answered here, before tracking, the
// page-view recorder and helmet: they are not documents, so the page headers (CSP, COOP, frame options, referrer
// policy...) do nothing on them but cost ~600 bytes on each of the 5-9 a first view loads (page weight: docs/benchmarks.md).
// They keep what a script or stylesheet needs: nosniff (only run as the type we say), CORP as helmet sets it
// (no other site may embed them) and the year's immutable cache. A name not found goes on to the pages
// below, so its 404 is a document with all of helmet's headers.
const buildDir = path.join(root, "build");
if (isProduction) {
  const assetHeaders: RequestHandler = (_req, res, next) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Cross-Origin-Resource-Policy", "same-origin");
    next();
  };
  const assetsDir = path.join(buildDir, "client", "assets");
  // Hashed file names never change content: cache them for a year.
  app.use("/assets", assetHeaders, precompressedAssets(assetsDir), express.static(assetsDir, { immutable: true, maxAge: "1y" }));
}

// Tracking comes first: its endpoints answer JSON themselves and need none of the page machinery below
// (they run thousands of times a second). The page-view recorder only looks at the request here and
// queues the view once the page has been sent.
prepareIngest();
app.use(analyticsRouter());
app.use(serverPageviews());

// Cross-site form posts are refused: a state-changing request must come from a page of ours (either host, each
// posting to itself: the same scheme, host and port). Browsers send Origin on every POST; when it is absent (old
// browsers, curl) the Referer decides, and a request with neither (an API client with a Bearer token) passes,
// since it cannot carry our cookie by accident.
const sameOriginMutations: RequestHandler = (req, res, next) => {
  if (req.method === "GET" || req.method === "HEAD" || req.method === "OPTIONS") return next();
  if (isSameOrigin(req.headers.origin ?? req.headers.referer, requestOrigin(req, trustProxy))) return next();
  res.status(403).type("text/plain").send("Forbidden: this form was sent from another site.");
};


// helmet's headers with each page's CSP nonce, worked out once and set by one middleware
// (app/server/speed/page-headers.server.ts): helmet's eleven middlewares ran on every request.
app.use(
  pageHeaders(
    helmet({
      contentSecurityPolicy: {
        useDefaults: true,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'", (_req, res) => `'nonce-${(res as express.Response).locals.cspNonce}'`],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", "data:"],
          fontSrc: ["'self'"],
          connectSrc: ["'self'", ...(isProduction ? [] : ["ws:"])],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          objectSrc: ["'none'"],
          baseUri: ["'self'"],
          upgradeInsecureRequests: env.isHttps ? [] : null,
        },
      },
      // Local http:// runs (npm start) must not be told to switch to https.
      strictTransportSecurity: env.isHttps,
      crossOriginEmbedderPolicy: false,
      // Helmet's default "no-referrer" makes Chromium send `Origin: null` on plain form posts, which the
      // same-origin check below must refuse; this policy sends our origin to ourselves and nothing elsewhere.
      referrerPolicy: { policy: "strict-origin-when-cross-origin" },
    }),
  ),
);
app.use(sameOriginMutations);
// Every form body within its cap (1 MB; the image forms more) before any route reads it: 413 otherwise.
app.use(bodyLimits());
app.use(compression());

// Anyone may ask: the answer says "unavailable" and nothing more (a database's message names hosts,
// databases and users), except under `npm run dev`. The real error goes to our log, at most every 10 s
// however often a load balancer polls.
let healthLoggedAt = 0;
app.get("/healthz", async (_req, res) => {
  try {
    await Promise.all([getDb().raw("select 1"), getRedis().ping()]);
    res.json({ ok: true });
  } catch (error) {
    const message = maskUrlCredentials((error as Error).message);
    if (Date.now() - healthLoggedAt >= 10_000) {
      healthLoggedAt = Date.now();
      console.error(`[web] health check failed: ${message}`);
    }
    res.status(503).json({ ok: false, error: env.NODE_ENV === "development" ? message : "unavailable" });
  }
});

/** A file's path has a dot in its last segment and a page's never does: pages skip the disk look-ups. */
function filesOnly(serve: RequestHandler): RequestHandler {
  return (req, res, next) => (/\.[^/]*$/.test(req.path) ? serve(req, res, next) : next());
}

/**
 * The browser assets' brotli (quality 11) and gzip (level 9) copies written at build (vite.config.ts,
 * `precompress`), sent as they are: brotli where the browser takes it (Chromium offers it over https only),
 * else gzip. compression() leaves a response that already has a Content-Encoding alone. Files without copies
 * (under 1 KB) go on to express.static.
 */
function precompressedAssets(dir: string): RequestHandler {
  const copies = new Set(fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".br")).map((f) => f.slice(0, -3)) : []);
  return (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const name = req.path.slice(1);
    if (!copies.has(name)) return next();
    const accepts = String(req.headers["accept-encoding"] ?? "");
    const encoding = /\bbr\b/.test(accepts) ? "br" : /\bgzip\b/.test(accepts) ? "gzip" : null;
    res.vary("Accept-Encoding");
    if (!encoding) return next();
    res.type(path.extname(name));
    res.setHeader("Content-Encoding", encoding);
    res.sendFile(path.join(dir, `${name}.${encoding === "br" ? "br" : "gz"}`), { immutable: true, maxAge: "1y" }, (error) => {
      if (error && !res.headersSent) {
        res.removeHeader("Content-Encoding");
        next();
      }
    });
  };
}

let getBuild: () => Promise<ServerBuild>;
/** The production build, loaded once; null under `npm run dev`, where Vite reloads it on every request. */
let productionBuild: ServerBuild | null = null;
let closeVite: (() => Promise<void>) | undefined;
if (isProduction) {
  // /assets is served above, before helmet; the build's other files (the icons) with the page headers, for an hour,
  // and /favicon.ico (asked for by browsers and bots that never read the page's <link rel=icon>) for 30 days.
  const iconCache = (res: express.Response, file: string) => {
    if (path.basename(file) === "favicon.ico") res.setHeader("Cache-Control", "public, max-age=2592000");
  };
  app.use(filesOnly(express.static(path.join(buildDir, "client"), { maxAge: "1h", setHeaders: iconCache })));
  const build = (await import(path.join(buildDir, "server", "index.js"))) as ServerBuild;
  productionBuild = build;
  getBuild = async () => build;
} else {
  const vite = await import("vite");
  const viteServer = await vite.createServer({
    server: { middlewareMode: true, hmr: { server: httpServer } },
  });
  app.use(viteServer.middlewares);
  getBuild = () => viteServer.ssrLoadModule("virtual:remix/server-build") as Promise<ServerBuild>;
  closeVite = () => viteServer.close();
}
app.use(filesOnly(express.static(path.join(root, "public"), { maxAge: "1h" })));

// Each host gets a Remix handler that knows only the routes it serves (app/utils/site-routes.ts, ADR 013):
// a path the host does not serve meets the 404 page, whether it is asked for as a document, a data request
// (/x.data) or by the browser's route discovery (/__manifest). req.hostname is the host Remix's URL has.
//
// In production each handler gets its build itself, not a function that returns it: given a function, Remix
// derives its routes and router again on every request (createRoutes, createStaticHandler), which was
// about a tenth of a page's CPU.
const buildFor = (site: SiteHost): ServerBuild | (() => Promise<ServerBuild>) =>
  productionBuild ? serverBuildForSite(productionBuild, site) : async () => serverBuildForSite(await getBuild(), site);
const remixHandlerFor = (site: SiteHost) =>
  createRequestHandler({
    build: buildFor(site),
    mode: isProduction ? "production" : "development",
    getLoadContext: (req, res) => ({
      cspNonce: res.locals.cspNonce as string,
      clientIp: req.ip ?? "unknown",
      isLocalRequest: isLocalRequest(req),
      pageview: (res.locals.pageview as PageviewContext | undefined) ?? null,
      documentEncoding: documentEncoding(req.headers),
      // The socket's own events: compression() reroutes the response's "drain" listeners to its gzip
      // stream, which only says "drain" after a write it refused.
      responseDrained: () => {
        const socket = res.socket;
        if (!res.writableNeedDrain || res.destroyed || !socket) return Promise.resolve();
        return new Promise<void>((resolve) => {
          const done = () => {
            socket.off("drain", done);
            socket.off("close", done);
            resolve();
          };
          socket.on("drain", done);
          socket.on("close", done);
        });
      },
    }),
  });
const remixHandlers: Record<SiteHost, RequestHandler> = { main: remixHandlerFor("main"), admin: remixHandlerFor("admin") };

// The micro-cache for anonymous pages (app/server/page-cache.server.ts, ADR 019): marketplace pages for
// visitors without a session. A page is built from its key alone, with placeholders for the nonce and the
// page view that each response fills with its own; the page-view recorder above still sees every hit.
const pageCache = pageCacheEnabled() ? getPageCache() : null;
if (pageCache) await listenForPageDrops();
const renderMain = createFetchHandler(buildFor("main"), isProduction ? "production" : "development");

function renderKey(key: PageKey, req: express.Request): Promise<Response> {
  const context: AppLoadContext = {
    cspNonce: pageCache!.placeholder.nonce,
    clientIp: req.ip ?? "unknown",
    isLocalRequest: false,
    pageview: key.pageview ? { eventId: pageCache!.placeholder.eventId, time: 0 } : null,
    responseDrained: () => Promise.resolve(),
    // The cache keeps the page as rendered and compresses its parts itself.
    documentEncoding: null,
  };
  return renderMain(new Request(key.url, { headers: key.headers }), context);
}

/**
 * A cached page with this response's nonce and page view. A hit is gzipped from the parts compressed at its
 * page's first hit (compression() leaves a response that has its Content-Encoding): nothing is compressed
 * per response.
 */
function sendPage(req: express.Request, res: express.Response, page: CachedPage, state: string) {
  const fill = { nonce: res.locals.cspNonce as string, pageview: (res.locals.pageview as PageviewContext | undefined) ?? null };
  // A miss goes out through compression() as any page does: its parts are gzipped at the first hit.
  const gzipped = state !== "miss" && req.acceptsEncodings("gzip", "identity") === "gzip" ? gzipPage(page, fill) : null;
  const body = gzipped ?? fillPage(page, fill);
  res.status(page.status);
  for (const [name, value] of page.headers) res.setHeader(name, value);
  res.setHeader("X-Page-Cache", state);
  res.setHeader("Vary", "Accept-Encoding");
  if (gzipped) res.setHeader("Content-Encoding", "gzip");
  res.setHeader("Content-Length", body.length);
  res.end(body);
}

const servePage = async (key: PageKey, req: express.Request, res: express.Response, next: express.NextFunction) => {
  const cache = pageCache!;
  const found = cache.lookup(key.id);
  if (found.state !== "miss") {
    if (found.state === "stale" && !cache.isBuilding(key.id)) {
      cache.build(key.id, () => renderKey(key, req)).catch((error: Error) => console.error("[page-cache] rebuild failed:", error));
    }
    return sendPage(req, res, found.page, found.state);
  }
  // Requests that find a build of their key under way share its page once it may be shared; any other
  // answer (an error page, a redirect, a 429 counted against the builder's address) is the builder's
  // alone, and one that sets a cookie is nobody's: those requests are rendered as if there were no cache.
  const builder = !cache.isBuilding(key.id);
  const built = await cache.build(key.id, () => renderKey(key, req));
  if (built.setsCookie || !(built.storable || builder)) return remixHandlers.main(req, res, next);
  sendPage(req, res, built.page, "miss");
};

app.all("*", (req, res, next) => {
  // An HTTP/1.0 request may come without a Host: it is the main site's (it was a 500).
  const site = siteOfHostname(req.hostname ?? "");
  const key = pageCache && site === "main" ? pageKeyOf(req, res.locals.pageview !== null && res.locals.pageview !== undefined) : null;
  // A drop another process published before this request was sent is already waiting on our Redis socket,
  // ready in the same turn of the event loop as this request: the lookup waits for that turn's end (one
  // setImmediate), by which time the drop has been read and applied (ADR 019, "Drops across processes").
  if (key) return void setImmediate(() => void servePage(key, req, res, next).catch(next));
  return remixHandlers[site](req, res, next);
});

const errorHandler: ErrorRequestHandler = (error, _req, res, _next) => {
  console.error(error);
  if (res.headersSent) return res.end();
  res.status(500).type("text/plain").send("Something went wrong on our side. Please try again.");
};
app.use(errorHandler);

// socket.io shares the HTTP server and answers only same-origin pages; chat (app/realtime/chat.server.ts) adds
// the member-only session-cookie handshake, the events, and the Redis adapter that shares rooms with every
// other web process.
const io = new SocketServer(httpServer, {
  serveClient: false,
  maxHttpBufferSize: MAX_SOCKET_PAYLOAD_BYTES,
  allowRequest: (req, callback) => {
    const allowed = isSameOrigin(req.headers.origin, requestOrigin(req, trustProxy));
    callback(allowed ? null : "origin not allowed", allowed);
  },
});
const chat = attachChat(io);

// HOST unset: every interface (a container, a server behind a proxy). `npm start` sets 127.0.0.1, so a
// laptop's marketplace (and its /dev/outbox) is not served to the whole café's Wi-Fi.
httpServer.listen(env.PORT, env.HOST, () => {
  const where = env.HOST ? `address ${env.HOST}` : "every interface";
  console.log(`[web] listening on http://localhost:${env.PORT} (${where}, ${isProduction ? "production" : "development"})`);
});

onShutdown("web", async () => {
  // Stop accepting requests, let in-flight ones finish, then close what they were using.
  await new Promise<void>((resolve) => {
    io.close(() => resolve());
    httpServer.closeIdleConnections();
  });
  // Queued page views of the last requests are written before the queue's connection closes.
  await closeIngest();
  await Promise.allSettled([closePageDrops(), closeVite?.(), closeDb(), closeRedis(), closeLimitRedis(), closeClickHouse(), chat.close()]);
});
