/**
 * The web process, assembled: Express with helmet (enforced CSP with a per-request nonce), compression, static
 * assets, the anonymous page cache, a Remix request handler per host and socket.io on one HTTP server, with
 * graceful shutdown. The framework patches for speed are installed by one call (app/server/speed/, ADR 033).
 */
// The environment is checked before anything else runs; a bad one stops here with every problem listed.
import { env } from "./app/server/checked-env.server";
import cluster from "node:cluster";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequestHandler } from "@remix-run/express";
import type { ServerBuild } from "@remix-run/node";
import compression from "compression";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import helmet from "helmet";
import { Server as SocketServer } from "socket.io";
import { closeClickHouse, getClickHouse } from "./app/analytics/clickhouse.server";
import { closeIngest, prepareIngest } from "./app/analytics/ingest.server";
import { analyticsRouter, serverPageviews, trackingFirst, type PageviewContext } from "./app/analytics/router.server";
import { API_CALLS } from "./app/api/calls.server";
import { API_PREFIX, apiRouter } from "./app/api/router.server";
import { attachChat, MAX_SOCKET_PAYLOAD_BYTES } from "./app/realtime/chat.server";
import { bodyLimits } from "./app/server/body-limit.server";
import { lifecycle } from "./app/server/cluster/lifecycle.server";
import { takeStickyConnections } from "./app/server/cluster/sticky.server";
import { closeDb, getDb } from "./app/server/db.server";
import { isSameOrigin, refuseMisdirected, requestOrigin, serverBuildForSite, siteOfHostname, type TrustProxy } from "./app/server/host.server";
import { isLocalRequest } from "./app/server/local-request.server";
import { log } from "./app/server/log.server";
import { startMetricsServer } from "./app/server/metrics.server";
import { REQUEST_ID_HEADER } from "./app/server/request-context.server";
import { observeRequests, withRouteNames } from "./app/server/request-log.server";
import { maskUrlCredentials } from "./app/utils/mask-url";
import { closePageDrops } from "./app/server/page-cache.server";
import { closeTokenDrops, listenForTokenDrops } from "./app/server/token-cache.server";
import { startPageCacheServing } from "./app/server/page-cache-serving.server";
import { onShutdown } from "./app/server/process.server";
import { sendPlainWords } from "./app/server/plain-words.server";
import { closeLimitRedis } from "./app/server/rate-limit.server";
import { closeRedis, getRedis } from "./app/server/redis.server";
import { installSpeedPatches } from "./app/server/speed/index.server";
import { builtAssets, builtFiles, publicFiles } from "./app/server/static-files.server";
import { markDataRequests, wordsFiles } from "./app/server/words-files.server";
import { WORDS_PATH } from "./app/i18n/words";
import type { SiteHost } from "./app/utils/site-routes";

const root = path.dirname(fileURLToPath(import.meta.url));
const isProduction = env.isProduction;
const mode = isProduction ? "production" : "development";
// Every framework patch for speed, or none with SPEED_PATCHES=off (ADR 033): before the Remix build is loaded
// and any request handled. What it returns is plugged in below (the page headers, the document's encoding).
const speed = installSpeedPatches({ on: env.SPEED_PATCHES === "on" });

const app = express();
// Tracking posts to the exact /api/v1/analytics/<name> paths are answered before Express (ADR 021); a host
// name we do not serve is answered 421 before either, and before socket.io (ADR 029).
// Every request gets an id and a log line at its end (ADR 057).
const httpServer = refuseMisdirected(http.createServer(observeRequests(trackingFirst(app))));
// Starting, ready or draining (ADR 059): /readyz says which, and a draining process closes each connection
// after its response.
const life = lifecycle(httpServer);
app.disable("x-powered-by");
app.use(life.closeWhenDraining);
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
    sendPlainWords(req, res, 400, "ops.request.badAddress");
  }
};
app.use(rejectMalformed);

// The built scripts and stylesheets (/assets/<name>-<hash>.js|css) are answered here, before tracking, the
// page-view recorder and the page headers: they are not documents (app/server/static-files.server.ts).
const buildDir = path.join(root, "build");
if (isProduction) app.use("/assets", ...builtAssets(path.join(buildDir, "client", "assets")));
// The pages' catalogue files (/words/<language>/<names>.<hash>.js, ADR 048), likewise.
app.use(WORDS_PATH, wordsFiles());

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
// The JSON API reads only Bearer tokens, never the cookie (ADR 041): another site's page cannot act through it.
const sameOriginMutations: RequestHandler = (req, res, next) => {
  if (req.method === "GET" || req.method === "HEAD" || req.method === "OPTIONS") return next();
  if (req.path.startsWith(`${API_PREFIX}/`)) return next();
  if (isSameOrigin(req.headers.origin ?? req.headers.referer, requestOrigin(req, trustProxy))) return next();
  sendPlainWords(req, res, 403, "ops.request.crossSite");
};

// helmet's headers with each page's CSP nonce (res.locals.cspNonce): worked out once at start unless
// SPEED_PATCHES=off (app/server/speed/page-headers.server.ts). These options are the one source of the headers.
app.use(
  speed.pageHeaders(
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
// The JSON API (ADR 041): its own body caps, JSON answers for every failure, and its own compression.
// Its tokens' lookups are held while Postgres can tell this process when to forget them (ADR 042).
if (env.TOKEN_CACHE === "on") await listenForTokenDrops();
app.use(apiRouter(API_CALLS));
// Every form body within its cap (1 MB; the image forms more) before any route reads it: 413 otherwise.
app.use(bodyLimits());
app.use(compression());

// Alive: the process answers. A load balancer or orchestrator restarts a process that stops answering this;
// a database being down is not a reason to restart every web process, so it is /readyz's business.
app.get("/healthz", (_req, res) => {
  res.json({ ok: true });
});

// Ready: Postgres, Redis and ClickHouse answer, and the process is neither starting nor draining (ADR 059). A
// proxy sends requests only to a ready process. Anyone may ask: the answer says "unavailable" and nothing more
// (a database's message names hosts, databases and users), except under `npm run dev`. The real error goes to
// our log, at most every 10 s however often a load balancer polls.
let readyLoggedAt = 0;
app.get("/readyz", async (_req, res) => {
  if (life.phase() !== "ready") return res.status(503).json({ ok: false, error: life.phase() });
  try {
    const [, , clickhouse] = await Promise.all([getDb().raw("select 1"), getRedis().ping(), getClickHouse().ping()]);
    if (!clickhouse.success) throw clickhouse.error;
    res.json({ ok: true });
  } catch (error) {
    const message = maskUrlCredentials((error as Error).message);
    if (Date.now() - readyLoggedAt >= 10_000) {
      readyLoggedAt = Date.now();
      log.error(`[web] readiness check failed: ${message}`);
    }
    res.status(503).json({ ok: false, error: env.NODE_ENV === "development" ? message : "unavailable" });
  }
});

let getBuild: () => Promise<ServerBuild>;
/** The production build, loaded once; null under `npm run dev`, where Vite reloads it on every request. */
let productionBuild: ServerBuild | null = null;
let closeVite: (() => Promise<void>) | undefined;
if (isProduction) {
  // /assets is served above, before the page headers; the build's other files (the icons) with them.
  app.use(builtFiles(path.join(buildDir, "client")));
  // Each route's loader and action name the request's route for its log line (ADR 057).
  const build = withRouteNames((await import(path.join(buildDir, "server", "index.js"))) as ServerBuild);
  productionBuild = build;
  getBuild = async () => build;
} else {
  const vite = await import("vite");
  const viteServer = await vite.createServer({
    server: { middlewareMode: true, hmr: { server: httpServer } },
  });
  app.use(viteServer.middlewares);
  getBuild = async () => withRouteNames((await viteServer.ssrLoadModule("virtual:remix/server-build")) as ServerBuild);
  closeVite = () => viteServer.close();
}
app.use(publicFiles(path.join(root, "public")));

// Each host gets a Remix handler that knows only the routes it serves (app/utils/site-routes.ts, ADR 013):
// a path the host does not serve meets the 404 page, whether it is asked for as a document, a data request
// (/x.data) or by the browser's route discovery (/__manifest). req.hostname is the host Remix's URL has.
//
// In production each handler gets its build itself, not a function that returns it: given a function, Remix
// derives its routes and router again on every request (createRoutes, createStaticHandler).
const buildFor = (site: SiteHost): ServerBuild | (() => Promise<ServerBuild>) =>
  productionBuild ? serverBuildForSite(productionBuild, site) : async () => serverBuildForSite(await getBuild(), site);
const remixHandlerFor = (site: SiteHost) =>
  createRequestHandler({
    build: buildFor(site),
    mode,
    getLoadContext: (req, res) => ({
      cspNonce: res.locals.cspNonce as string,
      clientIp: req.ip ?? "unknown",
      isLocalRequest: isLocalRequest(req),
      pageview: (res.locals.pageview as PageviewContext | undefined) ?? null,
      // entry.server compresses a rendered document itself in this encoding; null leaves it to compression().
      documentEncoding: speed.documentEncoding(req.headers),
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

// The micro-cache for anonymous pages (ADR 019): marketplace pages for visitors without a session, asked
// first for each main-host request (app/server/page-cache-serving.server.ts); null when PAGE_CACHE=off.
const pageCache = await startPageCacheServing({ build: buildFor("main"), mode, rendered: remixHandlers.main });

// A navigation's data request (/x.data) is marked for the loaders: they send its words inline (ADR 048).
app.use(markDataRequests);
app.all("*", (req, res, next) => {
  // An HTTP/1.0 request may come without a Host: it is the main site's (it was a 500).
  const site = siteOfHostname(req.hostname ?? "");
  if (site === "main" && pageCache?.serve(req, res, next)) return;
  return remixHandlers[site](req, res, next);
});

const errorHandler: ErrorRequestHandler = (error, req, res, _next) => {
  log.error({ err: error, reqId: req.headers[REQUEST_ID_HEADER] }, "[web] request failed");
  if (res.headersSent) return res.end();
  sendPlainWords(req, res, 500, "ops.request.serverError");
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

// In a cluster (WEB_PROCESSES > 1) the primary owns the port and hands this process its connections
// (app/server/cluster/sticky.server.ts); alone, the process listens itself. HOST unset: every interface (a
// container, a server behind a proxy). `npm start` sets 127.0.0.1, so a laptop's marketplace (and its
// /dev/outbox) is not served to the whole café's Wi-Fi.
const inCluster = cluster.isWorker;
if (inCluster) {
  takeStickyConnections(httpServer, io.engine);
  life.ready();
} else {
  httpServer.listen(env.PORT, env.HOST, () => {
    const where = env.HOST ? `address ${env.HOST}` : "every interface";
    log.info(`[web] listening on http://localhost:${env.PORT} (${where}, ${mode})`);
    life.ready();
  });
}
// Metrics on their own port (ADR 057; it holds no process open); a cluster's primary serves its children's instead.
if (cluster.isPrimary) await startMetricsServer({ port: env.METRICS_PORT, host: env.METRICS_HOST });

onShutdown(
  "web",
  async () => {
    // Drain (no new connections, sockets sent elsewhere, requests in flight finished), then close what they used.
    await life.drain({ maxMs: 8_000, listening: !inCluster, io });
    io.close();
    // Queued page views of the last requests are written before the queue's connection closes.
    await closeIngest();
    await Promise.allSettled([closePageDrops(), closeTokenDrops(), closeVite?.(), closeDb(), closeRedis(), closeLimitRedis(), closeClickHouse(), chat.close()]);
  },
  { forceAfterMs: 20_000 },
);
