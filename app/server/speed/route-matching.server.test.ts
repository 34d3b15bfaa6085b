import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { UNSAFE_flatRoutes as flatRoutes } from "@remix-run/dev";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { log } from "../log.server";
import { createMatchRoutes, dataRoutesOncePerTable, installRouteMatching, serverRoutesOncePerBuild, staticHandlerByBranch } from "./route-matching.server";
import { ADMIN_SCREENS, adminScreenRouteId, SITE_HOSTS, siteServesRoute } from "../../utils/site-routes";

// The package's own matchRoutes (this file never installs ours) against ours, on the same tables.
const router = createRequire(import.meta.url)("@remix-run/router") as typeof import("@remix-run/router");
const theirs = router.matchRoutes as unknown as (routes: Route[], location: string | { pathname: string }, basename?: string) => Match[] | null;
const ours = createMatchRoutes(router) as unknown as typeof theirs;
const theirStaticHandler = router.createStaticHandler;

type Route = { id: string; path?: string; index?: boolean; caseSensitive?: boolean; children?: Route[] };
type Match = { params: Record<string, string | undefined>; pathname: string; pathnameBase: string; route: Route };

/** A match with each route named by its id and object identity kept apart: ours must return the caller's own objects. */
function described(matches: Match[] | null, routes: Route[]) {
  const all = new Set<Route>();
  const walk = (rs: Route[]) => rs.forEach((r) => (all.add(r), walk(r.children ?? [])));
  walk(routes);
  return matches?.map((m) => ({ params: { ...m.params }, pathname: m.pathname, pathnameBase: m.pathnameBase, id: m.route.id, own: all.has(m.route) })) ?? null;
}

function expectSame(routes: Route[], location: string, basename?: string) {
  expect(described(ours(routes, location, basename), routes), `${location} (basename ${basename})`).toEqual(
    described(theirs(routes, location, basename), routes),
  );
}

/** The app's route tables as each host's Remix handler gets them (app/routes.ts, site-routes.ts), built fresh like each render's. */
function appRouteTables(): Record<string, () => Route[]> {
  const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
  const manifest: { id: string; parentId?: string; path?: string; index?: boolean }[] = [
    { id: "root", path: "" },
    ...Object.values(flatRoutes(appDir, [], "routes")),
    ...ADMIN_SCREENS.flatMap(({ name, path: p }) => [
      { id: adminScreenRouteId("main", name), parentId: "root", path: p ? `admin/${p}` : "admin" },
      p ? { id: adminScreenRouteId("admin", name), parentId: "root", path: p } : { id: adminScreenRouteId("admin", name), parentId: "root", index: true },
    ]),
  ];
  const tree = (site: (typeof SITE_HOSTS)[number], parentId?: string): Route[] =>
    manifest
      .filter((r) => r.parentId === parentId && siteServesRoute(site, r.id))
      .map((r) => ({ id: r.id, path: r.path, index: r.index, children: tree(site, r.id) }));
  return Object.fromEntries(SITE_HOSTS.map((site) => [site, () => tree(site)]));
}

/** Paths for a table: each route's own path with values for its parameters, and near misses of it. */
function pathsOf(routes: Route[], parent = ""): string[] {
  return routes.flatMap((r) => {
    const full = [parent, r.path ?? ""].filter(Boolean).join("/");
    const filled = full.replace(/:[\w-]+\??/g, "42").replace(/\*$/, "a/b");
    const own = [
      `/${filled}`,
      `/${filled}/`,
      `/${filled}/extra`,
      `/${filled.toUpperCase()}`,
      `/${filled.replace("42", "a%20b")}`,
      `/${filled.replace("42", "x%2Fy")}`,
    ];
    return [...own, ...pathsOf(r.children ?? [], full)];
  });
}

/** Route tables (three levels: optional segments, splats, index and case-sensitive routes) and paths for them. */
function generated() {
  const segment = fc.constantFrom("a", "b", "B", "gig", ":id", ":x?", "b?", "", "*", "a-b", "c.d", "é", "k", "a*", "x:id", ":");
  const routePath = fc.oneof(
    fc.constant(undefined),
    fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join("/").replace(/\*(?=.)/g, "s")),
    fc.array(segment, { minLength: 1, maxLength: 2 }).map((s) => `/${s.join("/")}`.replace(/\*(?=.)/g, "s")),
  );
  let n = 0;
  const route: fc.Memo<Route> = fc.memo((depth) =>
    fc
      .record({
        path: routePath,
        caseSensitive: fc.boolean(),
        index: fc.boolean(),
        children: depth > 1 ? fc.array(route(depth - 1), { maxLength: 4 }) : fc.constant<Route[]>([]),
      })
      .map((r) => ({
        id: `r${n++}`,
        caseSensitive: r.caseSensitive,
        // An index route has no children and no path of its own (the router refuses one with children).
        ...(r.index && r.children.length === 0 ? { index: true } : { path: r.path, children: r.children }),
      })),
  );
  // "\u212a" (the Kelvin sign) lower-cases to "k", which a RegExp with flag i (no u) does not make equal to "k".
  const pathname = fc
    .array(fc.constantFrom("a", "b", "B", "gig", "42", "a-b", "c.d", "", "%20", "x%2Fy", "s", "É", "é", "\u212a", "K", "x:id", ":"), { maxLength: 5 })
    .map((s) => `/${s.join("/")}`);
  return { route, pathname };
}

describe("route matching with ranked tables kept", () => {
  const tables = appRouteTables();

  it.each(Object.keys(tables))("answers as @remix-run/router does on the %s host's routes", (site) => {
    // The router warns of the malformed path below on each call (both do): kept out of the test's output.
    vi.spyOn(log, "warn").mockImplementation(() => {});
    const routes = tables[site]!();
    expect(routes[0]!.children!.length).toBeGreaterThan(site === "main" ? 30 : 10);
    const paths = [
      ...new Set([
        "/",
        "",
        "/nowhere",
        "/gig/1",
        "/gig/1/edit",
        "/browse",
        "/terms",
        "/admin/users/7/analytics",
        "/users/7/analytics",
        "/%E0%A4%A",
        "//gig//1",
        ...pathsOf(routes),
      ]),
    ];
    // Twice, with a new table each time as a render makes: the second is answered from the ranking kept.
    for (const fresh of [routes, tables[site]!()]) {
      for (const p of paths) {
        expectSame(fresh, p);
        expectSame(fresh, `${p}?q=1#x`);
      }
      expectSame(fresh, "/base/gig/1", "/base");
      expectSame(fresh, "/Base/terms", "/base/");
      expectSame(fresh, "/other/terms", "/base");
    }
    vi.restoreAllMocks();
  });

  it("returns the routes of the table it is given, not of the one it ranked first", () => {
    const first = tables.main!();
    const second = tables.main!();
    ours(first, "/gig/1");
    const matches = ours(second, "/gig/1")!;
    expect(matches.map((m) => m.route.id)).toEqual(["root", "routes/gig.$id"]);
    expect(matches[0]!.route).toBe(second[0]);
    expect(second[0]!.children).toContain(matches[1]!.route);
  });

  it("answers as @remix-run/router does on generated tables and paths", () => {
    const { route, pathname } = generated();
    fc.assert(
      fc.property(
        fc.array(route(3), { minLength: 1, maxLength: 5 }),
        fc.array(pathname, { minLength: 1, maxLength: 8 }),
        fc.constantFrom(undefined, "/", "/a"),
        (routes, paths, basename) => {
          let expected: unknown;
          try {
            expected = theirs(routes, "/");
          } catch (error) {
            // A table the router refuses (an absolute child path outside its parent's): ours refuses it too.
            expect(() => ours(routes, "/")).toThrow((error as Error).message);
            return;
          }
          expect(described(ours(routes, "/"), routes)).toEqual(described(expected as Match[] | null, routes));
          for (const p of paths) expectSame(routes, p, basename);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("tries only the branches a path's first segment allows, and still answers every other path as the router does", () => {
    const routes: Route[] = [
      {
        id: "root",
        path: "",
        children: [
          { id: "terms", path: "terms" },
          { id: "gig", path: "gig/:id" },
          { id: "page", path: ":page" },
          { id: "any", path: "*" },
        ],
      },
    ];
    for (const p of ["/terms", "/TERMS", "/terms/", "/gig/1", "/Gig/1/", "/gig", "/about", "/x/y", "/", "//terms", "/\u212aerms", "/t%C3%A9rms"])
      expectSame(routes, p);
    expect(described(ours(routes, "/TERMS"), routes)!.map((m) => m.id)).toEqual(["root", "terms"]);
  });

  // Last: from here on the package's export is ours (`theirs` above was taken before).
  it("is installed over the @remix-run/router release the lockfile holds, where Remix's packages read it", () => {
    expect(installRouteMatching()).toBe(true);
    const remixRouter = createRequire(createRequire(import.meta.url).resolve("@remix-run/server-runtime"))("@remix-run/router");
    expect(remixRouter.matchRoutes).not.toBe(theirs);
    expect(described(remixRouter.matchRoutes(tables.main!(), "/gig/1"), [])!.map((m: { id: string }) => m.id)).toEqual(["root", "routes/gig.$id"]);
  });
});

describe("the static handler's query, by the matching branch's routes alone", () => {
  type Loaded = Route & { loader?: unknown; children?: Loaded[] };
  /** Every route with a loader that says which route it is and what it was given. */
  const withLoaders = (routes: Route[]): Loaded[] =>
    routes.map(({ children, ...r }) => ({
      ...r,
      loader: ({ params }: { params: unknown }) => ({ id: r.id, params }),
      ...(children?.length ? { children: withLoaders(children) } : {}),
    }));
  /** What a query answers, as comparable data. */
  async function answer(handler: ReturnType<typeof theirStaticHandler>, path: string, method = "GET") {
    const context = (await handler.query(new Request(`http://localhost${path}`, { method }))) as {
      matches: { route: { id: string }; params: unknown; pathname: string; pathnameBase: string }[];
      loaderData: unknown;
      errors: Record<string, { status?: number; statusText?: string; message?: string }> | null;
      statusCode: number;
    };
    return {
      matches: context.matches.map((m) => ({ id: m.route.id, params: m.params, pathname: m.pathname, pathnameBase: m.pathnameBase })),
      loaderData: context.loaderData,
      errors:
        context.errors &&
        Object.fromEntries(Object.entries(context.errors).map(([id, e]) => [id, { status: e.status, statusText: e.statusText, message: e.message }])),
      statusCode: context.statusCode,
    };
  }
  const byBranch = staticHandlerByBranch(theirStaticHandler as never, ours as never) as unknown as typeof theirStaticHandler;

  it.each(["main", "admin"])("answers every path of the %s host's routes as the whole table's handler does", async (site) => {
    vi.spyOn(log, "warn").mockImplementation(() => {});
    const routes = withLoaders(appRouteTables()[site]!());
    const whole = theirStaticHandler(routes as never);
    const branch = byBranch(routes as never);
    const paths = [...new Set(["/", "/nowhere", "/gig/1", "/browse", "/terms", "//gig//1", ...pathsOf(routes)])];
    for (const p of paths) expect(await answer(branch, p), p).toEqual(await answer(whole, p));
    expect(await answer(branch, "/terms", "PROPFIND")).toEqual(await answer(whole, "/terms", "PROPFIND"));
    vi.restoreAllMocks();
  });

  it("answers a path that matches from its branch's own handler, made once, and the rest from the whole table's", async () => {
    const made: { routes: Loaded[]; queries: string[] }[] = [];
    const create = (routes: Loaded[], options?: unknown) => {
      const handler = theirStaticHandler(routes as never, options as never);
      const record = { routes, queries: [] as string[] };
      made.push(record);
      return { ...handler, query: (request: Request, o?: unknown) => (record.queries.push(new URL(request.url).pathname), handler.query(request, o as never)) };
    };
    const handler = staticHandlerByBranch(create as never, ours as never)(withLoaders(appRouteTables().main!()) as never);
    for (const p of ["/terms", "/gig/1", "/terms", "/gig/2", "/nowhere"]) await handler.query(new Request(`http://localhost${p}`));
    await handler.query(new Request("http://localhost/terms", { method: "PROPFIND" }));
    // The whole table's (a method the router refuses), /terms', the gig page's, and the 404 page's (a splat route).
    expect(made.map((m) => m.queries)).toEqual([["/terms"], ["/terms", "/terms"], ["/gig/1", "/gig/2"], ["/nowhere"]]);
    // A branch's handler knows its routes only: the root and the page.
    expect(JSON.parse(JSON.stringify(made[2]!.routes))).toEqual([{ id: "root", path: "", children: [{ id: "routes/gig.$id", path: "gig/:id" }] }]);
  });

  it("answers as the whole table's handler on generated tables and paths", async () => {
    const { route, pathname } = generated();
    await fc.assert(
      fc.asyncProperty(fc.array(route(3), { minLength: 1, maxLength: 5 }), fc.array(pathname, { minLength: 1, maxLength: 8 }), async (routes, paths) => {
        const loaded = withLoaders(routes);
        let whole: ReturnType<typeof theirStaticHandler>;
        try {
          whole = theirStaticHandler(loaded as never);
        } catch {
          return; // a table the router refuses
        }
        const branch = byBranch(loaded as never);
        for (const p of paths) {
          // A table the router refuses when it first matches (an absolute child path outside its parent's): refused alike.
          const expected = await answer(whole, p).catch((error: Error) => error.message);
          expect(await answer(branch, p).catch((error: Error) => error.message), p).toEqual(expected);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("a render's route tables made once per build", () => {
  type Modules = Record<string, unknown>;
  const manifest = { root: { id: "root", path: "" }, a: { id: "a", parentId: "root", path: "a" } };
  const modules = (): Modules => ({ root: { default: "Root" }, a: { default: "A" } });

  it("makes a build's routes once, again when a route's module changes, and always for a call it does not know", () => {
    const calls: unknown[][] = [];
    const create = serverRoutesOncePerBuild((...args) => (calls.push(args), [{ path: String(calls.length) }]));
    const kept = modules();
    const first = create(manifest, kept, { v3_singleFetch: true }, false);
    const future = { v3_singleFetch: true };
    const again = create(manifest, { ...kept }, future, false);
    expect(calls).toHaveLength(2); // another future object: made again
    expect(create(manifest, { ...kept }, future, false)).toBe(again); // a new route-modules object of the same modules: kept
    expect(calls).toHaveLength(2);
    expect(create(manifest, { ...kept, a: { default: "A after a reload" } }, future, false)).not.toBe(again);
    expect(create(manifest, { ...kept, b: {} }, future, false)).not.toBe(again);
    expect(create(manifest, { root: kept.root }, future, false)).not.toBe(again);
    expect(create({ ...manifest }, kept, future, false)).not.toBe(again);
    expect(create(manifest, kept, future, true)).not.toBe(again);
    create(manifest, kept, future, false, "root");
    expect(calls.at(-1)).toHaveLength(5);
    expect(first).not.toBe(again);
  });

  it("converts a table to data routes once, filling each caller's manifest, and leaves other calls to the package", () => {
    const convert = dataRoutesOncePerTable(router.UNSAFE_convertRoutesToDataRoutes as never);
    const routes: Route[] = [
      {
        id: "root",
        path: "",
        children: [
          { id: "a", path: "a" },
          { id: "b", index: true },
        ],
      },
    ];
    const mapProps = (route: Route) => ({ hasErrorBoundary: route.id === "root" });
    const m1: Record<string, Route> = {};
    const d1 = convert(routes, mapProps, undefined, m1);
    const m2: Record<string, Route> = {};
    const d2 = convert(routes, mapProps, undefined, m2);
    expect(d2).toBe(d1);
    expect(Object.keys(m2)).toEqual(["root", "a", "b"]);
    expect(m2.a).toBe(d1[0]!.children![0]);
    expect(m2.root).toMatchObject({ hasErrorBoundary: true });
    // Another mapping, a manifest already holding routes, or a subtree: converted afresh, as the package does.
    expect(convert(routes, () => ({}), undefined, {})).not.toBe(d1);
    expect(() => convert(routes, mapProps, undefined, { root: routes[0]! })).toThrow(/route id collision/);
    expect(convert(routes, mapProps, ["0"], {})).not.toBe(d1);
  });

  it("gives react-router-dom's static router the same data routes on every render once installed", () => {
    installRouteMatching();
    const requireHere = createRequire(import.meta.url);
    const { createStaticRouter } = createRequire(requireHere.resolve("@remix-run/react"))("react-router-dom/server") as {
      createStaticRouter: (routes: Route[], context: { matches: { route: Route }[] }) => { routes: Route[]; state: { matches: { route: Route }[] } };
    };
    const routes: Route[] = [{ id: "root", path: "", children: [{ id: "a", path: "a" }] }];
    const context = (route: Route) => ({ matches: [{ route }], location: { pathname: "/a" }, loaderData: {}, actionData: null, errors: null, basename: "/" });
    const one = createStaticRouter(routes, context(routes[0]!.children![0]!));
    const two = createStaticRouter(routes, context(routes[0]!.children![0]!));
    expect(two.routes).toBe(one.routes);
    // The matches the render starts from are the kept data routes (by id), not the routes it was given.
    expect(two.state.matches[0]!.route).toBe(one.routes[0]!.children![0]);
  });
});
