/**
 * A loader's request without two copies of it (ADR 024).
 *
 * Written against: @remix-run/server-runtime 2.17.5, single fetch on (the only way this app runs); installed
 *   only over 2.17.x.
 * Replaces: the runtime's `callRouteLoader` (dist/data.js; its routes call it through the module's exports
 *   when a loader runs). The runtime hands each loader `stripRoutesParam(stripIndexParam(request))`, two new
 *   Requests (each a URL parse, a Headers copy and an AbortSignal following the original) so that a loader never
 *   sees the `index` and `_routes` parameters Remix's client adds. This hands a loader the request itself when
 *   its URL has no query string (the copies then equal it: most pages) and otherwise calls the runtime's own,
 *   then does with the answer exactly what the runtime's does.
 * What it saves: see ADR 024.
 * Remove it when: the runtime stops copying a request whose URL has nothing to strip (React Router 7's
 *   server runtime still strips per loader; check on upgrade); then delete this file and its line in
 *   index.server.ts.
 */
import { createRequire } from "node:module";
import { log } from "~/server/log.server";

type LoaderArgs = { request: Request; context: unknown; params: Record<string, string | undefined> };
type CallRouteLoaderArgs = {
  loadContext: unknown;
  loader: (args: LoaderArgs) => unknown;
  params: Record<string, string | undefined>;
  request: Request;
  routeId: string;
  singleFetch: boolean;
};
type CallRouteLoader = (args: CallRouteLoaderArgs) => Promise<unknown>;
type Responses = {
  isDeferredData: (value: unknown) => value is { init?: ResponseInit; data: unknown };
  isRedirectStatusCode: (status: number) => boolean;
  redirect: (url: string, init?: ResponseInit) => Response;
};

const require = createRequire(import.meta.url);
const SUPPORTED_VERSION = /^2\.17\./;

/**
 * Whether the runtime's copies of a request would equal it: when its URL has no query string. (With one,
 * even without `index` or `_routes`, the copy's URL is the query re-serialised by URLSearchParams, `%20`
 * becoming `+`: such a request is left to the runtime, so no loader ever sees a URL it would not have.)
 */
export function copiesEqual(url: string): boolean {
  return !url.includes("?");
}

/** The runtime's callRouteLoader, handing the request itself to a loader when the copies would equal it. */
export function loaderRequestsAsIs(original: CallRouteLoader, responses: Responses): CallRouteLoader {
  return async function callRouteLoader(args) {
    if (!args.singleFetch || !copiesEqual(args.request.url)) return original(args);
    const { loadContext, loader, params, request, routeId } = args;
    const result = await loader({ request, context: loadContext, params });
    // From here on as the runtime's own (data.js), single fetch.
    if (result === undefined) {
      throw new Error(
        `You defined a loader for route "${routeId}" but didn't return ` + "anything from your `loader` function. Please return a value or `null`.",
      );
    }
    if (responses.isDeferredData(result)) {
      if (result.init && responses.isRedirectStatusCode(result.init.status || 200)) {
        return responses.redirect(new Headers(result.init.headers).get("Location")!, result.init);
      }
      return result;
    }
    return result;
  };
}

let installed = false;

/** Installs loaderRequestsAsIs over the runtime's data module. Returns whether it is installed. */
export function installLoaderRequests(): boolean {
  if (installed) return true;
  const { version } = require("@remix-run/server-runtime/package.json") as { version: string };
  if (!SUPPORTED_VERSION.test(version)) {
    log.warn(
      `[web] @remix-run/server-runtime ${version} is not the 2.17 release app/server/speed/loader-requests.server.ts was written against: loaders get copies of their request`,
    );
    return false;
  }
  const data = require("@remix-run/server-runtime/dist/data.js") as { callRouteLoader: CallRouteLoader };
  const responses = require("@remix-run/server-runtime/dist/responses.js") as Responses;
  data.callRouteLoader = loaderRequestsAsIs(data.callRouteLoader, responses);
  installed = true;
  return true;
}
