import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { copiesEqual, installLoaderRequests, loaderRequestsAsIs } from "./loader-requests.server";

// The runtime's own callRouteLoader (this file never installs ours over it) against ours.
const require = createRequire(import.meta.url);
const data = require("@remix-run/server-runtime/dist/data.js");
const responses = require("@remix-run/server-runtime/dist/responses.js");
const theirs = data.callRouteLoader;
const ours = loaderRequestsAsIs(theirs, responses);

function request(url: string) {
  return new Request(url, { headers: { Cookie: "soko_session=abc", Accept: "text/html" }, signal: new AbortController().signal });
}

/** What a loader saw of its request, and what the call answered, through `call`. */
async function seen(call: typeof theirs, req: Request, ...answer: [unknown?]) {
  let got: Request | undefined;
  const result = await call({
    loadContext: { ctx: 1 },
    loader: ({ request: r }: { request: Request }) => ((got = r), answer.length ? answer[0] : { ok: 1 }),
    params: { id: "7" },
    request: req,
    routeId: "routes/gig.$id",
    singleFetch: true,
  });
  return { got: got!, result, view: { url: got!.url, method: got!.method, headers: [...got!.headers], aborted: got!.signal.aborted } };
}

describe("a loader's request", () => {
  it("is the request itself when its URL has no query string, else the runtime's copy", async () => {
    const plain = request("http://localhost/gig/7");
    const mine = await seen(ours, plain);
    expect(mine.got).toBe(plain);
    expect(mine.view).toEqual((await seen(theirs, plain)).view);
    expect(mine.result).toEqual({ ok: 1 });

    for (const url of ["http://localhost/browse?index", "http://localhost/gig/7.data?_routes=root,routes/gig.$id", "http://localhost/search?q=logo%20design"]) {
      const req = request(url);
      const a = await seen(ours, req);
      const b = await seen(theirs, req);
      expect(a.got, url).not.toBe(req);
      expect(a.view, url).toEqual(b.view);
    }
    // The runtime takes `index` and `_routes` out, and re-serialises the rest.
    expect((await seen(ours, request("http://localhost/browse?index&_routes=root&q=a%20b"))).view.url).toBe("http://localhost/browse?q=a+b");
  });

  it("answers as the runtime does: the loader's value, an error for undefined, a thrown response", async () => {
    const req = request("http://localhost/terms");
    const redirect = new Response(null, { status: 302, headers: { Location: "/login" } });
    expect((await seen(ours, req, redirect)).result).toBe(redirect);
    expect((await seen(ours, req, null)).result).toBeNull();
    const undefinedError = async (call: typeof theirs) => (await seen(call, req, undefined).catch((e: Error) => ({ result: e.message }))).result;
    expect(await undefinedError(ours)).toBe(await undefinedError(theirs));
    expect(await undefinedError(ours)).toMatch(/routes\/gig\.\$id/);
    const thrown = new Response("Not Found", { status: 404 });
    const throwing = (call: typeof theirs) =>
      call({ loadContext: {}, loader: () => Promise.reject(thrown), params: {}, request: req, routeId: "r", singleFetch: true }).catch((e: unknown) => e);
    expect(await throwing(ours)).toBe(thrown);
  });

  it("takes the runtime's path whenever the copy's URL would differ", () => {
    fc.assert(
      fc.property(fc.webPath(), fc.option(fc.webQueryParameters(), { nil: undefined }), (path, query) => {
        const url = `http://localhost${path.startsWith("/") ? path : `/${path}`}${query === undefined ? "" : `?${query}`}`;
        let href: string;
        try {
          href = new Request(url).url;
        } catch {
          return;
        }
        // The runtime's copy: the URL with `index` and `_routes` deleted (see data.js).
        const copy = new URL(href);
        copy.searchParams.delete("index");
        copy.searchParams.delete("_routes");
        if (copiesEqual(href)) expect(copy.href).toBe(href);
      }),
      { numRuns: 2000 },
    );
  });

  it("is installed over the runtime's data module, which its routes call", () => {
    expect(installLoaderRequests()).toBe(true);
    expect(data.callRouteLoader).not.toBe(theirs);
    expect(data.callRouteLoader.name).toBe("callRouteLoader");
  });
});
