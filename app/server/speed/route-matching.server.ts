/**
 * Route matching that ranks a route table once instead of on every call, and a render's route tables made once
 * per build (ADR 024).
 *
 * Written against: @remix-run/router 1.23.3 and @remix-run/react 2.17.5 (over react-router 6.30); installed only
 *   over 1.23.x and 2.17.x (any other release keeps the package's own functions, with a warning at start).
 * Replaces, in the packages' exports, which their callers read when they run:
 *   - @remix-run/router's `matchRoutes` (Remix's request handler through @remix-run/server-runtime's
 *     `matchServerRoutes`, react-router's `useRoutes` in the render, @remix-run/react's `getPartialManifest` of
 *     route discovery): the same algorithm and the same answers, with each table's ranked branches kept and each
 *     path's RegExp compiled once, where the package flattens, scores and sorts the whole tree on every call;
 *   - @remix-run/router's `createStaticHandler` (read by the server runtime once per build): its `query` runs on
 *     the matching branch's routes alone (`staticHandlerByBranch`);
 *   - @remix-run/router's `UNSAFE_convertRoutesToDataRoutes` and @remix-run/react's `createServerRoutes`: kept
 *     per table and per build instead of made again on every render.
 * What it saves: see ADR 024.
 * Remove it when: the router keeps its ranked branches between calls (React Router 7's `matchRoutes` still
 *   ranks per call; check the release notes) and Remix's render stops re-making its route tables per request;
 *   then delete this file and its line in index.server.ts.
 *
 * The render builds new route objects on every request (the same routes each time), so a table is known by
 * what ranking reads of it (each route's path, index and caseSensitive flags and children, in order), and a
 * kept branch names its routes by their indexes among their siblings: a match returns the caller's own
 * route objects. `route-matching.server.test.ts` checks the answers against the package's on the app's route
 * tables and on generated ones.
 */
import { createRequire } from "node:module";
import { LRUCache } from "lru-cache";
import { log } from "~/server/log.server";

type Router = typeof import("@remix-run/router");
type RouteObject = { path?: string; index?: boolean; caseSensitive?: boolean; children?: RouteObject[] };
type Location = { pathname?: string };
type RouteMatch = { params: Record<string, string | undefined>; pathname: string; pathnameBase: string; route: RouteObject };

/**
 * One route of a branch as @remix-run/router's flattenRoutes records it, without the route object itself,
 * with its path compiled at first use: matched to the end (the branch's last route) and as a prefix.
 */
type RouteMeta = {
  relativePath: string;
  caseSensitive: boolean;
  childrenIndex: number;
  compiled?: [end: CompiledPath | undefined, prefix: CompiledPath | undefined];
};
/**
 * `first`: the first segment every path the branch matches must begin with (lower-cased), when its first
 * route with a path begins with a plain ASCII segment; null when it begins with a parameter or a splat, or
 * has no path at all.
 */
type Branch = { path: string; score: number; routesMeta: RouteMeta[]; first?: string | null };
type CompiledPath = { matcher: RegExp; params: { paramName: string; isOptional?: boolean }[] };

const require = createRequire(import.meta.url);
const SUPPORTED_VERSION = /^1\.23\./;

/** The ranked branches of each route table seen, by its shape (a dev server's reloads may add a few). */
const rankedByShape = new LRUCache<string, Branch[]>({ max: 64 });
/**
 * And by the table itself, for the tables matched again and again (the request handler's, made once; a
 * render's, matched by `useRoutes` and then the partial manifest). Nothing on the server changes a table
 * once made (only the browser's router adds routes it discovers, and that is another process's copy).
 */
const rankedByTable = new WeakMap<RouteObject[], Branch[]>();

let installed = false;

/**
 * Puts the ranking-once `matchRoutes` into @remix-run/router's exports (the copy every Remix package
 * requires). Returns whether it is installed: not over a release other than 1.23.x, whose algorithm it
 * may not match.
 */
export function installRouteMatching(): boolean {
  if (installed) return true;
  const router = require("@remix-run/router") as Router & { matchRoutes: unknown };
  const { version } = require("@remix-run/router/package.json") as { version: string };
  if (!SUPPORTED_VERSION.test(version)) {
    log.warn(
      `[web] @remix-run/router ${version} is not the 1.23 release app/server/speed/route-matching.server.ts was written against: its own matchRoutes stays`,
    );
    return false;
  }
  router.matchRoutes = createMatchRoutes(router) as Router["matchRoutes"];
  // A render's route tables, made once per build rather than on every render (see below). react-router-dom's
  // createStaticRouter reads this export when it runs, as RemixServer reads createServerRoutes.
  const exported = router as unknown as { UNSAFE_convertRoutesToDataRoutes: ConvertRoutes; createStaticHandler: CreateStaticHandler };
  exported.UNSAFE_convertRoutesToDataRoutes = dataRoutesOncePerTable(exported.UNSAFE_convertRoutesToDataRoutes);
  // Remix's server runtime reads createStaticHandler when it makes a build's handler (once per build).
  exported.createStaticHandler = staticHandlerByBranch(exported.createStaticHandler, router.matchRoutes as unknown as MatchRoutes);
  const remix = require("@remix-run/react/package.json") as { version: string };
  if (SUPPORTED_REMIX_VERSION.test(remix.version)) {
    const remixRoutes = require("@remix-run/react/dist/routes.js") as { createServerRoutes: CreateServerRoutes };
    remixRoutes.createServerRoutes = serverRoutesOncePerBuild(remixRoutes.createServerRoutes);
  } else {
    log.warn(
      `[web] @remix-run/react ${remix.version} is not the 2.17 release app/server/speed/route-matching.server.ts was written against: its render makes its routes on every render`,
    );
  }
  installed = true;
  return true;
}

// ---------------------------------------------------------------------------------------------------------
// The static handler's own matching. A document's loaders are run by the static handler's `query`, which calls
// the module's own matchRoutes (not the export): it flattened, ranked and tried the whole build's routes on
// every document. Its answer depends only on the routes of
// the branch that matches, so `query` is given to a static handler made from those routes alone (each
// branch's made once, from the same route objects: loaders, actions and ids unchanged), whose matching has
// a route or three to rank. Which branch matches is found by the matchRoutes above (the same answers as the
// package's), and a request goes to the branch's handler only when that branch, alone, matches the path the
// same way; anything else (no match: a 404; a method the router refuses) goes to the whole table's handler.

type StaticHandler = {
  dataRoutes: RouteObject[];
  query: (request: Request, options?: unknown) => Promise<unknown>;
  queryRoute: (request: Request, options?: unknown) => Promise<unknown>;
};
type CreateStaticHandler = (routes: RouteObject[], options?: { basename?: string }) => StaticHandler;
type MatchRoutes = (routes: RouteObject[], location: string, basename?: string) => RouteMatch[] | null;

const QUERY_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]);
const MAX_BRANCH_HANDLERS = 1000;

export function staticHandlerByBranch(create: CreateStaticHandler, matchRoutes: MatchRoutes): CreateStaticHandler {
  return function createStaticHandler(routes, options) {
    const whole = create(routes, options);
    const basename = options?.basename || "/";
    const byBranch = new LRUCache<string, { routes: RouteObject[]; handler: StaticHandler }>({ max: MAX_BRANCH_HANDLERS });

    function handlerFor(request: Request): StaticHandler {
      if (!QUERY_METHODS.has(request.method)) return whole;
      const pathname = new URL(request.url).pathname;
      const matches = matchRoutes(routes, pathname, basename);
      if (!matches) return whole;
      const key = matches.map((m) => (m.route as { id: string }).id).join("\u0000");
      let branch = byBranch.get(key);
      if (!branch) {
        const own = branchRoutes(matches);
        branch = { routes: own, handler: create(own, options) };
        byBranch.set(key, branch);
      }
      // The branch's routes alone must match this path as the whole table does (a route with a path of its
      // own above the one that matched could otherwise answer first, in a table without its siblings).
      const alone = matchRoutes(branch.routes, pathname, basename);
      return alone && sameMatches(alone, matches) ? branch.handler : whole;
    }

    return { ...whole, query: (request, queryOptions) => handlerFor(request).query(request, queryOptions) };
  };
}

/** A table of one branch: each route of the match as it is, with only the next one as its child. */
function branchRoutes(matches: RouteMatch[]): RouteObject[] {
  let child: RouteObject | undefined;
  for (let i = matches.length - 1; i >= 0; i--) {
    const { children: _, ...route } = matches[i]!.route;
    child = child ? { ...route, children: [child] } : route;
  }
  return [child!];
}

function sameMatches(a: RouteMatch[], b: RouteMatch[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if ((x.route as { id: string }).id !== (y.route as { id: string }).id || x.pathname !== y.pathname || x.pathnameBase !== y.pathnameBase) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------------
// A render's route tables, once per build. RemixServer (@remix-run/react 2.17) makes on every render the route
// objects of the whole build (`createServerRoutes`: for each route, a search of every other route for its
// children) and react-router-dom's createStaticRouter converts them all again (`convertRoutesToDataRoutes`),
// the same tables every time. Both are pure
// functions of their arguments, and nothing on the server changes the tables they return, so each is kept:
// the render's routes by the build's manifest (the same object on every request) and its route modules
// (a new object on each request, holding the same modules), and the data routes by the routes they were made
// from. A kept data-route table is also one that `matchRoutes` above has ranked already.

type CreateServerRoutes = (manifest: object, routeModules: Record<string, unknown>, future: unknown, isSpaMode: boolean, ...rest: unknown[]) => RouteObject[];
type ConvertRoutes = (routes: RouteObject[], mapRouteProperties: unknown, parentPath?: string[], manifest?: Record<string, RouteObject>) => RouteObject[];

const SUPPORTED_REMIX_VERSION = /^2\.17\./;

export function serverRoutesOncePerBuild(create: CreateServerRoutes): CreateServerRoutes {
  const kept = new WeakMap<object, { routeModules: Record<string, unknown>; future: unknown; isSpaMode: boolean; routes: RouteObject[] }>();
  return function createServerRoutes(manifest, routeModules, future, isSpaMode, ...rest) {
    // RemixServer passes four arguments; the rest are the function's own recursion (which calls itself, not this).
    if (rest.length > 0) return create(manifest, routeModules, future, isSpaMode, ...rest);
    const hit = kept.get(manifest);
    if (hit && hit.future === future && hit.isSpaMode === isSpaMode && sameModules(hit.routeModules, routeModules)) return hit.routes;
    const routes = create(manifest, routeModules, future, isSpaMode);
    kept.set(manifest, { routeModules: { ...routeModules }, future, isSpaMode, routes });
    return routes;
  };
}

/** The same module object under every route id, and no other ids (a dev server's reload makes new ones). */
function sameModules(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  let count = 0;
  for (const id in b) {
    if (a[id] !== b[id]) return false;
    count++;
  }
  for (const _ in a) count--;
  return count === 0;
}

export function dataRoutesOncePerTable(convert: ConvertRoutes): ConvertRoutes {
  const kept = new WeakMap<RouteObject[], { mapRouteProperties: unknown; dataRoutes: RouteObject[]; manifest: Record<string, RouteObject> }>();
  return function convertRoutesToDataRoutes(routes, mapRouteProperties, parentPath, manifest) {
    // Only a whole table into a new manifest, as createStaticRouter asks; anything else as the package does it.
    if (parentPath !== undefined || !manifest) return convert(routes, mapRouteProperties, parentPath, manifest);
    for (const _ in manifest) return convert(routes, mapRouteProperties, parentPath, manifest);
    const hit = kept.get(routes);
    if (hit && hit.mapRouteProperties === mapRouteProperties) {
      Object.assign(manifest, hit.manifest);
      return hit.dataRoutes;
    }
    const dataRoutes = convert(routes, mapRouteProperties, parentPath, manifest);
    kept.set(routes, { mapRouteProperties, dataRoutes, manifest: { ...manifest } });
    return dataRoutes;
  };
}

/** The replacement, built on the package's own exported helpers (parsePath, stripBasename, decodePath, joinPaths). */
export function createMatchRoutes(router: Router) {
  const { parsePath, stripBasename, UNSAFE_decodePath: decodePath, joinPaths, normalizePathname } = router;
  const strip = stripBasename as (pathname: string, basename: string) => string | null;

  function matchRouteBranch(routes: RouteObject[], branch: Branch, pathname: string): RouteMatch[] | null {
    const { routesMeta } = branch;
    const matchedParams: Record<string, string | undefined> = {};
    let matchedPathname = "/";
    const matches: RouteMatch[] = [];
    let children: RouteObject[] | undefined = routes;
    for (let i = 0; i < routesMeta.length; ++i) {
      const meta = routesMeta[i]!;
      const end = i === routesMeta.length - 1;
      const remainingPathname = matchedPathname === "/" ? pathname : pathname.slice(matchedPathname.length) || "/";
      const match = matchPath(compiledOf(meta, end), remainingPathname);
      if (!match) return null;
      // A branch's routes run from the table's top down: each one's index is among its parent's children.
      const route: RouteObject = children![meta.childrenIndex]!;
      children = route.children;
      Object.assign(matchedParams, match.params);
      matches.push({
        params: matchedParams,
        pathname: joinPaths([matchedPathname, match.pathname]),
        pathnameBase: normalizePathname(joinPaths([matchedPathname, match.pathnameBase])),
        route,
      });
      if (match.pathnameBase !== "/") matchedPathname = joinPaths([matchedPathname, match.pathnameBase]);
    }
    return matches;
  }

  return function matchRoutes(routes: RouteObject[], locationArg: Location | string, basename = "/"): RouteMatch[] | null {
    const location = typeof locationArg === "string" ? parsePath(locationArg) : locationArg;
    const pathname = strip(location.pathname || "/", basename);
    if (pathname == null) return null;
    const branches = rankedBranches(routes, joinPaths);
    const decoded = decodePath(pathname);
    const first = firstSegmentOf(decoded);
    let matches: RouteMatch[] | null = null;
    for (let i = 0; matches == null && i < branches.length; ++i) {
      const branch = branches[i]!;
      // The cheap test first: trying a branch builds a match object for each of its routes until one fails.
      if (branch.first != null && branch.first !== first) continue;
      matches = matchRouteBranch(routes, branch, decoded);
    }
    return matches;
  };
}

/** What flattenRoutes reads of a table: each route's path, index and caseSensitive flags, and its children, in order. */
function shapeOf(routes: RouteObject[]): string {
  let shape = "";
  for (const route of routes) {
    shape += `${route.path === undefined ? "\u0000" : route.path === null ? "\u0001" : route.path}\u0002${route.index === true ? 1 : route.index ? 2 : 0}${route.caseSensitive === true ? 1 : 0}`;
    if (route.children && route.children.length > 0) shape += `(${shapeOf(route.children)})`;
    shape += "\u0003";
  }
  return shape;
}

/**
 * A pathname's first segment, lower-cased. A branch's routes are matched from the start of the pathname: its
 * routes without a path take nothing, so its first route with one must match at the pathname's first "/". When
 * that path begins with a plain segment, the pathname's first segment must be that segment, up to ASCII case (a
 * RegExp with flag i but not u never makes a character above 127 equal one below): so a branch whose `first`
 * differs cannot match and is not tried. Lower-casing may make more characters equal, never fewer.
 */
function firstSegmentOf(pathname: string): string {
  const end = pathname.indexOf("/", 1);
  return (pathname.startsWith("/") ? pathname.slice(1, end === -1 ? undefined : end) : "\u0000").toLowerCase();
}

const PLAIN_SEGMENT = /^[\x21-\x7e]+$/;

function firstOf(branch: Branch): string | null {
  const meta = branch.routesMeta.find((m) => m.relativePath.replace(/^\/+/, "") !== "");
  if (!meta) return null;
  const segment = meta.relativePath.replace(/^\/+/, "").split("/")[0]!;
  return PLAIN_SEGMENT.test(segment) && !segment.startsWith(":") && !segment.includes("*") ? segment.toLowerCase() : null;
}

function rankedBranches(routes: RouteObject[], joinPaths: Router["joinPaths"]): Branch[] {
  let branches = rankedByTable.get(routes);
  if (branches) return branches;
  const shape = shapeOf(routes);
  branches = rankedByShape.get(shape);
  if (!branches) {
    branches = flattenRoutes(routes, joinPaths);
    rankRouteBranches(branches);
    for (const branch of branches) branch.first = firstOf(branch);
    rankedByShape.set(shape, branches);
  }
  rankedByTable.set(routes, branches);
  return branches;
}

// ---------------------------------------------------------------------------------------------------------
// @remix-run/router 1.23.3's flattenRoutes, explodeOptionalSegments, rankRouteBranches, computeScore,
// compareIndexes, matchPath and compilePath (dist/router.cjs.js), unchanged but for the route objects left out
// of a branch (matchRouteBranch above finds them by index), the compiled paths kept, and compilePath's
// development warning about a path ending in "*" without "/" left out.

function flattenRoutes(
  routes: RouteObject[],
  joinPaths: Router["joinPaths"],
  branches: Branch[] = [],
  parentsMeta: RouteMeta[] = [],
  parentPath = "",
): Branch[] {
  const flattenRoute = (route: RouteObject, index: number, relativePath?: string) => {
    const meta: RouteMeta = {
      relativePath: relativePath === undefined ? route.path || "" : relativePath,
      caseSensitive: route.caseSensitive === true,
      childrenIndex: index,
    };
    if (meta.relativePath.startsWith("/")) {
      if (!meta.relativePath.startsWith(parentPath)) {
        throw new Error(
          `Absolute route path "${meta.relativePath}" nested under path "${parentPath}" is not valid. An absolute child route path must start with the combined path of all its parent routes.`,
        );
      }
      meta.relativePath = meta.relativePath.slice(parentPath.length);
    }
    const path = joinPaths([parentPath, meta.relativePath]);
    const routesMeta = parentsMeta.concat(meta);
    if (route.children && route.children.length > 0) {
      if (route.index === true) {
        throw new Error(`Index routes must not have child routes. Please remove all child routes from route path "${path}".`);
      }
      flattenRoutes(route.children, joinPaths, branches, routesMeta, path);
    }
    if (route.path == null && !route.index) return;
    branches.push({ path, score: computeScore(path, route.index), routesMeta });
  };
  routes.forEach((route, index) => {
    if (route.path === "" || !route.path?.includes("?")) {
      flattenRoute(route, index);
    } else {
      for (const exploded of explodeOptionalSegments(route.path)) flattenRoute(route, index, exploded);
    }
  });
  return branches;
}

function explodeOptionalSegments(path: string): string[] {
  const segments = path.split("/");
  if (segments.length === 0) return [];
  const [first = "", ...rest] = segments;
  const isOptional = first.endsWith("?");
  const required = first.replace(/\?$/, "");
  if (rest.length === 0) return isOptional ? [required, ""] : [required];
  const restExploded = explodeOptionalSegments(rest.join("/"));
  const result: string[] = [];
  result.push(...restExploded.map((subpath) => (subpath === "" ? required : [required, subpath].join("/"))));
  if (isOptional) result.push(...restExploded);
  return result.map((exploded) => (path.startsWith("/") && exploded === "" ? "/" : exploded));
}

function rankRouteBranches(branches: Branch[]) {
  branches.sort((a, b) =>
    a.score !== b.score
      ? b.score - a.score
      : compareIndexes(
          a.routesMeta.map((meta) => meta.childrenIndex),
          b.routesMeta.map((meta) => meta.childrenIndex),
        ),
  );
}

const paramRe = /^:[\w-]+$/;
const dynamicSegmentValue = 3;
const indexRouteValue = 2;
const emptySegmentValue = 1;
const staticSegmentValue = 10;
const splatPenalty = -2;
const isSplat = (s: string) => s === "*";

function computeScore(path: string, index: boolean | undefined): number {
  const segments = path.split("/");
  let initialScore = segments.length;
  if (segments.some(isSplat)) initialScore += splatPenalty;
  if (index) initialScore += indexRouteValue;
  return segments
    .filter((s) => !isSplat(s))
    .reduce((score, segment) => score + (paramRe.test(segment) ? dynamicSegmentValue : segment === "" ? emptySegmentValue : staticSegmentValue), initialScore);
}

function compareIndexes(a: number[], b: number[]): number {
  const siblings = a.length === b.length && a.slice(0, -1).every((n, i) => n === b[i]);
  return siblings ? a[a.length - 1]! - b[b.length - 1]! : 0;
}

function compiledOf(meta: RouteMeta, end: boolean): CompiledPath {
  const compiled = (meta.compiled ??= [undefined, undefined]);
  return (compiled[end ? 0 : 1] ??= compilePath(meta.relativePath, meta.caseSensitive, end));
}

function matchPath({ matcher, params: compiledParams }: CompiledPath, pathname: string) {
  const match = pathname.match(matcher);
  if (!match) return null;
  const matchedPathname = match[0];
  let pathnameBase = matchedPathname.replace(/(.)\/+$/, "$1");
  const captureGroups = match.slice(1);
  const params = compiledParams.reduce<Record<string, string | undefined>>((memo, { paramName, isOptional }, index) => {
    if (paramName === "*") {
      const splatValue = captureGroups[index] || "";
      pathnameBase = matchedPathname.slice(0, matchedPathname.length - splatValue.length).replace(/(.)\/+$/, "$1");
    }
    const value = captureGroups[index];
    if (isOptional && !value) {
      memo[paramName] = undefined;
    } else {
      memo[paramName] = (value || "").replace(/%2F/g, "/");
    }
    return memo;
  }, {});
  return { params, pathname: matchedPathname, pathnameBase };
}

/** The path's RegExp and parameters (kept by compiledOf: a RegExp without flags g or y keeps no state). */
function compilePath(path: string, caseSensitive: boolean, end: boolean): CompiledPath {
  const params: CompiledPath["params"] = [];
  let regexpSource =
    "^" +
    path
      .replace(/\/*\*?$/, "")
      .replace(/^\/*/, "/")
      .replace(/[\\.*+^${}|()[\]]/g, "\\$&")
      .replace(/\/:([\w-]+)(\?)?/g, (_, paramName: string, isOptional: string | undefined) => {
        params.push({ paramName, isOptional: isOptional != null });
        return isOptional ? "/?([^\\/]+)?" : "/([^\\/]+)";
      });
  if (path.endsWith("*")) {
    params.push({ paramName: "*" });
    regexpSource += path === "*" || path === "/*" ? "(.*)$" : "(?:\\/(.+)|\\/*)$";
  } else if (end) {
    regexpSource += "\\/*$";
  } else if (path !== "" && path !== "/") {
    regexpSource += "(?:(?=\\/|$))";
  }
  return { matcher: new RegExp(regexpSource, caseSensitive ? undefined : "i"), params };
}
