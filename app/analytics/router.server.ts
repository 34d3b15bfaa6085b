/**
 * The tracking endpoints, `POST /api/v1/analytics/{session,action,pageview,conversion,user-action}`,
 * and the page views the server records itself for visitors without JavaScript. server.ts mounts both ahead
 * of helmet, compression and Remix: a tracking request costs a share of a leased Redis round trip for the
 * rate limit and of one for the stream entry its events join (ADRs 021, 025), and nothing else (Postgres only
 * when it carries a session).
 *
 * Answers are JSON, `{success, ...}`: 202 once Redis holds the stream entry (and for bots, whose events are
 * dropped), 400 with the field errors, 401, 403 (an Origin of another site), 413, 415, 429 and 503 with
 * Retry-After. Bad input is never a 500. Every refused POST but a 503 (which the client retries) is counted
 * as dropped, by reason (`dropped:<reason>` in the counters): the events of a 400, one per request for the
 * refusals that come before the events are read (unknown endpoint, 401, 403, 413, 415, 429, bots).
 * Addresses are cleaned on the way in (urls.ts), whatever the tracker sent.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import express, { type Express, type Request as ExpressRequest, type RequestHandler } from "express";
import { ENDPOINTS, MAX_BODY_BYTES, type Endpoint, type QueuedEvent } from "~/analytics/events";
import { describeAgent } from "~/analytics/ingest-agent.server";
import {
  checkEvents,
  enrichEvents,
  getIngest,
  IngestUnavailableError,
  logThrottled,
  type DropReason,
  type Ingest,
  newPageview,
  serverPageviewEvent,
} from "~/analytics/ingest.server";
import { actorOf, sessionTokenOf, type Credentials } from "~/server/auth.server";
import { isSameOrigin, requestOrigin, type TrustProxy } from "~/server/host.server";
import { log } from "~/server/log.server";
import { rateLimitRefusals } from "~/server/metrics.server";

type Json = Record<string, unknown>;

function send(res: ServerResponse, status: number, body: Json, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    ...headers,
  });
  res.end(text);
}

const refuse = (res: ServerResponse, status: number, error: string, extra: Json = {}, headers?: Record<string, string>) =>
  send(res, status, { success: false, error, ...extra }, headers);

/** A declared body this much over the cap is not read to its end: the connection is closed instead. */
const DISCARD_LIMIT_BYTES = 1024 * 1024;

type Body = { text: string } | { tooLarge: true } | { aborted: true };

/** The request body as text, reading at most `cap` bytes: past that, the rest is discarded unread. */
function readBody(req: IncomingMessage, cap: number): Promise<Body> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (body: Body) => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("aborted", onError);
      resolve(body);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > cap) {
        chunks.length = 0;
        done({ tooLarge: true });
        req.resume(); // keep draining into nothing, so the answer can be read on a kept-alive connection
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => done({ text: (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString("utf8") });
    const onError = () => done({ aborted: true });
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("aborted", onError);
  });
}

/** Bodies come as JSON or as text/plain (sendBeacon and no-preflight fetch); none at all is read as JSON. */
const ACCEPTED_TYPE = /^\s*(application\/json|text\/plain)\s*(;|$)/i;

/**
 * The credentials of a tracking request, read as every door reads them (auth.server.ts: Bearer first, then
 * the session cookie). The cookie only ever comes from our own pages: a request whose Origin is another site
 * is refused before this is asked (`track`), so another site cannot record events in a signed-in visitor's name.
 */
function credentials(req: IncomingMessage, ip: string): Credentials {
  return { authorization: req.headers.authorization, cookie: req.headers.cookie, ip, userAgent: req.headers["user-agent"] };
}

function clientIp(req: ExpressRequest) {
  return req.ip ?? req.socket.remoteAddress ?? "";
}

/** What a tracking request has gathered so far, handed from step to step. */
type Tracking = {
  req: IncomingMessage;
  name: string;
  ip: string;
  trustProxy: TrustProxy;
  receivedAtMs: number;
  endpoint: Endpoint;
  ingest: Ingest;
  creds: Credentials;
  token: string | null;
  userAgent: string;
  bot: boolean;
  text: string;
  userId: number;
  events: QueuedEvent[];
};

/** How a request ends: an answer (a refusal counted as dropped, by reason), or none (the client went away). */
type Answer = { status: number; body: Json; headers?: Record<string, string>; dropped?: { reason: DropReason; events: number } };
const NO_ANSWER = "no answer" as const;
/** A step's outcome: nothing to go on to the next step, or how the request ends. */
type Step = (t: Tracking) => void | Answer | typeof NO_ANSWER | Promise<void | Answer | typeof NO_ANSWER>;

const refusal = (status: number, error: string, extra: Json = {}, headers?: Record<string, string>, dropped?: DropReason, events = 1): Answer => ({
  status,
  body: { success: false, error, ...extra },
  headers,
  dropped: dropped && { reason: dropped, events },
});
const UNAVAILABLE = refusal(503, "Tracking is unavailable for a moment: please retry", {}, { "Retry-After": "5" });
const UNAUTHORIZED = refusal(401, "Authentication required", {}, undefined, "unauthorized");
/** Bots are told all is well (so they do not retry) and their events go nowhere. */
const BOT_DROPPED: Answer = { status: 202, body: { success: true, accepted: 0 }, dropped: { reason: "bot", events: 1 } };
const tooLarge = (headers?: Record<string, string>) =>
  refusal(413, `The body is larger than ${MAX_BODY_BYTES / 1024} KB: send fewer events per request`, {}, headers, "too_large");

/** The endpoint is one of ENDPOINTS. */
const knownEndpoint: Step = (t) => {
  if (!Object.hasOwn(ENDPOINTS, t.name))
    return refusal(404, `Unknown analytics endpoint "${t.name}": use one of ${Object.keys(ENDPOINTS).join(", ")}`, {}, undefined, "unknown_endpoint");
  t.endpoint = t.name as Endpoint;
};

/** This process still takes events (not shutting down). */
const ingestOpen: Step = (t) => {
  try {
    t.ingest = getIngest();
  } catch (error) {
    if (!(error instanceof IngestUnavailableError)) throw error;
    return UNAVAILABLE;
  }
};

/**
 * Only our own pages post here: a browser names the page's site in Origin, and another site's is refused
 * (the admin host's pages post to the admin host, so "ours" is the origin the request was sent to: scheme,
 * host and port). No Origin at all (an old browser's sendBeacon, a server with a Bearer token) passes.
 */
const sameOrigin: Step = (t) => {
  if (!isSameOrigin(t.req.headers.origin, requestOrigin(t.req, t.trustProxy))) {
    return refusal(403, "Tracking events are accepted only from Soko's own pages", {}, undefined, "cross_origin");
  }
};

/** The body as declared: JSON or text, uncompressed, not over MAX_BODY_BYTES. */
const acceptableBody: Step = (t) => {
  const type = t.req.headers["content-type"];
  if (type !== undefined && !ACCEPTED_TYPE.test(type))
    return refusal(415, "Send the events as application/json or text/plain", {}, undefined, "unsupported_type");
  const encoding = t.req.headers["content-encoding"];
  if (encoding !== undefined && encoding.toLowerCase() !== "identity") {
    return refusal(415, "Compressed bodies are not accepted: send the events uncompressed", {}, undefined, "unsupported_type");
  }
  const declared = Number(t.req.headers["content-length"] ?? 0);
  if (declared > MAX_BODY_BYTES) return tooLarge(declared > DISCARD_LIMIT_BYTES ? { Connection: "close" } : {});
};

/**
 * The authentication rule comes before the bot rule: an authenticated endpoint without credentials is 401 for
 * everyone. Whether there are credentials at all costs nothing; whether they name a live session is `identify`'s.
 */
const credentialsIfNeeded: Step = (t) => {
  t.creds = credentials(t.req, t.ip);
  t.token = sessionTokenOf(t.creds)?.token ?? null;
  if (ENDPOINTS[t.endpoint].auth && !t.token) return UNAUTHORIZED;
};

/** A bot on an anonymous endpoint is answered now; on an authenticated one, once its credentials are checked. */
const botsOnAnonymousEndpoints: Step = (t) => {
  t.userAgent = t.req.headers["user-agent"] ?? "";
  t.bot = describeAgent(t.userAgent).bot;
  if (t.bot && !ENDPOINTS[t.endpoint].auth) return BOT_DROPPED;
};

/** The address's rate limit and the body's arrival, overlapped. */
const withinLimitAndRead: Step = async (t) => {
  const [limited, body] = await Promise.all([
    t.ingest.limit(t.ip).catch((error: Error) => {
      logThrottled("rate-limit", `rate limit: ${error.message}`);
      return "unavailable" as const;
    }),
    readBody(t.req, MAX_BODY_BYTES),
  ]);
  if (limited === "unavailable") return UNAVAILABLE;
  if (limited) rateLimitRefusals.inc({ limit: "analytics" });
  if (limited) return refusal(429, limited.message, {}, { "Retry-After": String(limited.retryAfter) }, "rate_limited");
  if ("aborted" in body) return NO_ANSWER; // the client went away: nobody to answer
  if ("tooLarge" in body) return tooLarge();
  t.text = body.text;
};

/** The member a session names (user 0 without one); an authenticated endpoint needs one. */
const identify: Step = async (t) => {
  if (t.token) {
    try {
      const actor = await actorOf(t.creds);
      t.userId = actor.kind === "member" ? actor.user.id : 0;
    } catch (error) {
      logThrottled("auth", `session lookup: ${(error as Error).message}`);
      return UNAVAILABLE;
    }
  }
  if (ENDPOINTS[t.endpoint].auth && t.userId === 0) return UNAUTHORIZED;
};

const botsOnAuthenticatedEndpoints: Step = (t) => {
  if (t.bot) return BOT_DROPPED;
};

/** The events, checked against the endpoint's schema and the clock, and enriched with what the server knows. */
const parseAndEnrich: Step = (t) => {
  const checked = checkEvents(t.endpoint, t.text, t.receivedAtMs);
  if (!checked.ok) {
    return refusal(checked.status, checked.error, checked.issues ? { issues: checked.issues } : {}, undefined, "invalid", Math.max(1, checked.events));
  }
  t.events = enrichEvents(checked.events, { ip: t.ip, userAgent: t.userAgent, userId: t.userId }, t.receivedAtMs, t.req.headers.host ?? "");
};

/** Into the stream: 202 once Redis holds the entry. */
const enqueue: Step = async (t) => {
  try {
    await t.ingest.enqueue(t.events);
    return { status: 202, body: { success: true, accepted: t.events.length } };
  } catch (error) {
    if (!(error instanceof IngestUnavailableError)) throw error;
    logThrottled("enqueue", error.message);
    return UNAVAILABLE;
  }
};

/** A tracking request's steps, in order (as Plausible's event pipeline): each may end the request with its answer. */
const STEPS: Step[] = [
  knownEndpoint,
  ingestOpen,
  sameOrigin,
  acceptableBody,
  credentialsIfNeeded,
  botsOnAnonymousEndpoints,
  withinLimitAndRead,
  identify,
  botsOnAuthenticatedEndpoints,
  parseAndEnrich,
  enqueue,
];

/**
 * One tracking request to `/api/v1/analytics/<name>`, from the client at `ip` (as Express's req.ip says);
 * `trustProxy` is the app's `trust proxy` setting, which decides the scheme the request was sent with.
 */
async function track(req: IncomingMessage, res: ServerResponse, name: string, ip: string, trustProxy: TrustProxy): Promise<void> {
  const t = { req, name, ip, trustProxy, receivedAtMs: Date.now(), userId: 0 } as Tracking;
  for (const step of STEPS) {
    const outcome = step(t);
    const answer = outcome instanceof Promise ? await outcome : outcome;
    if (answer === undefined) continue;
    if (answer === NO_ANSWER) return;
    if (answer.dropped) countDropped(t.ingest, answer.dropped.reason, answer.dropped.events);
    return send(res, answer.status, answer.body, answer.headers);
  }
}

/** Counts a refused request's events; the answer never waits for, or fails on, it. */
function countDropped(ingest: Ingest | undefined, reason: DropReason, events: number) {
  try {
    (ingest ?? getIngest()).count(`dropped:${reason}`, events);
  } catch {
    /* shutting down: nothing left to count with */
  }
}

/** Runs `track`; anything that throws still gets a JSON answer, never an HTML error page. */
function answer(req: IncomingMessage, res: ServerResponse, name: string, ip: string, trustProxy: TrustProxy) {
  track(req, res, name, ip, trustProxy).catch((error: Error) => {
    log.error({ err: error }, "[analytics]");
    if (!res.headersSent) refuse(res, 500, "Something went wrong on our side. Please retry.");
  });
}

/** The tracking endpoints, as Express routes. */
export function analyticsRouter() {
  const router = express.Router();
  router.post("/api/v1/analytics/:endpoint", (req, res) => answer(req, res, req.params.endpoint, clientIp(req), req.app.get("trust proxy fn") as TrustProxy));
  router.all("/api/v1/analytics/:endpoint", (_req, res) => refuse(res, 405, "Use POST to send tracking events", {}, { Allow: "POST" }));
  return router;
}

/** A tracking post's path exactly as the tracker sends it (any other form, or a query string, goes through Express). */
const TRACKING_PATH = /^\/api\/v1\/analytics\/([a-z-]{1,32})$/;

/**
 * The HTTP server's listener (ADR 036): a tracking post whose path is exactly `/api/v1/analytics/<name>` is
 * answered here, before Express, whose per-request set-up (request and response prototypes, the query
 * parser, the malformed-URL check, the router's layers) cost as much as the rest of such a request;
 * everything else, including any other spelling of those paths, goes to `app` (whose analyticsRouter
 * answers those the same way). The client's address is what Express's req.ip says, by the app's own
 * `trust proxy` setting.
 */
/** The tracking endpoints' route in logs and metrics (ADR 057, app/server/request-log.server.ts): one name whatever the endpoint. */
export const TRACKING_ROUTE = "POST /api/v1/analytics/:name";

export function trackingFirst(app: Express): RequestListener {
  const ipGetter = Object.getOwnPropertyDescriptor(express.request, "ip")!.get!;
  return (req, res) => {
    const name = req.method === "POST" ? TRACKING_PATH.exec(req.url ?? "")?.[1] : undefined;
    if (name === undefined) return app(req, res);
    const ip = (ipGetter.call({ app, headers: req.headers, socket: req.socket, connection: req.socket }) as string | undefined) ?? "";
    answer(req, res, name, ip || (req.socket.remoteAddress ?? ""), app.get("trust proxy fn") as TrustProxy);
  };
}

// ---------------------------------------------------------------------------------------------------------
// Page views without JavaScript.

export type PageviewContext = { eventId: string; time: number } | null;

const NOT_PAGES = /^\/(?:assets|api|media|build|socket\.io|healthz|readyz|__manifest)(?:\/|$)/;

/** A browser asking for an HTML page: not an asset, a `.data` request, the API, media, a prefetch. */
function isPageRequest(req: ExpressRequest): boolean {
  if (req.method !== "GET") return false;
  if (!req.headers.accept?.includes("text/html")) return false;
  const path = req.path;
  if (NOT_PAGES.test(path)) return false;
  // A dot in the last segment is a file (favicon.ico, robots.txt, app-123.js) or single fetch's `.data`.
  if (path.slice(path.lastIndexOf("/") + 1).includes(".")) return false;
  if ("_data" in req.query) return false;
  const purpose = `${req.headers["sec-purpose"] ?? ""}${req.headers.purpose ?? ""}${req.headers["x-moz"] ?? ""}`;
  if (purpose.includes("prefetch")) return false;
  return true;
}

/**
 * Records a page view for every HTML page the server serves, so pages seen without JavaScript count too (docs/product.md):
 * the view's id and time go to Remix as `res.locals.pageview` (server.ts puts it in the load context), and
 * once the answer has gone out as a 2xx HTML page the anonymous view is queued. A failure to queue is
 * logged; the page never suffers for it.
 */
export function serverPageviews(): RequestHandler {
  return (req, res, next) => {
    res.locals.pageview = null satisfies PageviewContext;
    if (!isPageRequest(req)) return next();
    const userAgent = req.headers["user-agent"] ?? "";
    if (describeAgent(userAgent).bot) return next();
    const pageview = newPageview();
    res.locals.pageview = pageview satisfies PageviewContext;
    const ip = clientIp(req);
    const path = req.path;
    const url = req.originalUrl;
    const referrer = req.headers.referer ?? "";
    const host = req.headers.host ?? "";
    res.once("finish", () => {
      if (res.statusCode < 200 || res.statusCode >= 300) return;
      if (!String(res.getHeader("content-type") ?? "").startsWith("text/html")) return;
      const view = { eventId: pageview.eventId, timeMs: pageview.time, ip, userAgent, path, url, referrer, host };
      Promise.resolve()
        .then(() => getIngest().enqueue([serverPageviewEvent(view)]))
        .catch((error: Error) => logThrottled("server-pageview", `page view of ${path} not queued: ${error.message}`));
    });
    next();
  };
}
