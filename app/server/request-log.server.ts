/**
 * One log line and one histogram observation per HTTP request, at its end (ADR 057): method, route pattern,
 * status, duration, request id and the signed-in member's id. Never the URL (its query string can hold a token
 * or a reset link), a header, a body or a cookie. The request id is the caller's X-Request-Id when it is a safe
 * short token, else a new one; it is sent back in X-Request-Id and carried (the actor's client, from the header)
 * into the activity and audit rows and the effects the request causes, and the worker's lines for those effects.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { ServerBuild } from "@remix-run/node";
import { TRACKING_ROUTE } from "~/analytics/router.server";
import { log } from "./log.server";
import { httpRequestDuration } from "./metrics.server";
import { noteRoute, openRequest, REQUEST_ID_HEADER, requestIdOf, type RequestContext } from "./request-context.server";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Routes answered thousands of times a second (tracking, ADR 021): counted, but logged only when they fail. */
const QUIET_ROUTES = new Set([TRACKING_ROUTE]);

/** The route of a request nothing named: Express's own route if one matched, else a fixed name by its path. */
function fallbackRoute(req: IncomingMessage & { route?: { path?: unknown }; baseUrl?: string }): string {
  if (req.route && typeof req.route.path === "string") return `${req.baseUrl ?? ""}${req.route.path}`;
  const url = req.url ?? "";
  if (url.startsWith("/assets/")) return "/assets/*";
  if (url.startsWith("/words/")) return "/words/*";
  return "other";
}

/**
 * Wraps the server's request listener: every request gets its id (in its own X-Request-Id header too, where the
 * doors read it), and is logged and measured at its end. A tracking post (thousands a second, ADR 021) writes no
 * row and queues no effect: it is only measured.
 */
export function observeRequests(listener: RequestListener): RequestListener {
  return (req, res) => {
    const started = performance.now();
    const context: RequestContext = { requestId: requestIdOf(req.headers[REQUEST_ID_HEADER]) };
    res.setHeader("X-Request-Id", context.requestId);
    if (req.method === "POST" && req.url?.startsWith(TRACKING_PREFIX)) {
      context.route = TRACKING_ROUTE;
      res.once("close", () => finished(req, res, context, started));
    } else {
      req.headers[REQUEST_ID_HEADER] = context.requestId;
      const open = openRequest(context);
      res.once("close", () => {
        open.done();
        finished(req, res, context, started);
      });
    }
    listener(req, res);
  };
}

const TRACKING_PREFIX = "/api/v1/analytics/";

function finished(req: IncomingMessage, res: ServerResponse, context: RequestContext, started: number) {
  const ms = performance.now() - started;
  const method = METHODS.has(req.method ?? "") ? req.method! : "OTHER";
  const route = context.route ?? fallbackRoute(req);
  // A response cut off before its end (the client went away) is counted as status 499, as nginx does.
  const status = res.writableFinished ? res.statusCode : 499;
  httpRequestDuration.observe({ method, route, status: String(status) }, ms / 1000);
  if (status < 500 && QUIET_ROUTES.has(route)) return;
  const line = { reqId: context.requestId, method, route, status, ms: Math.round(ms * 10) / 10, actor: context.actorId };
  if (status >= 500) log.error(line, "request");
  else log.info(line, "request");
}

const named = new WeakMap<ServerBuild, ServerBuild>();

/**
 * The build with each route's loader and action noting its route id as the request's route (a nested route's
 * outranks its layouts'; an action outranks every loader), so the log says `routes/gig.$id`, not the URL.
 */
export function withRouteNames(build: ServerBuild): ServerBuild {
  const done = named.get(build);
  if (done) return done;
  const depth = (id: string): number => {
    const parent = build.routes[id]?.parentId;
    return parent ? 1 + depth(parent) : 0;
  };
  const routes: ServerBuild["routes"] = {};
  for (const [id, route] of Object.entries(build.routes)) {
    const { loader, action } = route.module;
    const rank = depth(id);
    routes[id] = {
      ...route,
      module: {
        ...route.module,
        ...(loader && { loader: (args: Parameters<typeof loader>[0]) => (noteRoute(args.request.headers.get(REQUEST_ID_HEADER), id, rank), loader(args)) }),
        ...(action && {
          action: (args: Parameters<typeof action>[0]) => (noteRoute(args.request.headers.get(REQUEST_ID_HEADER), id, 1000 + rank), action(args)),
        }),
      },
    };
  }
  const result = { ...build, routes };
  named.set(build, result);
  return result;
}
