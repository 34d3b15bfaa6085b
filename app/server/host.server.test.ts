import http from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { getEnv, parseEnv } from "./env.server";
import { log } from "./log.server";
import type { ServerBuild } from "@remix-run/node";
import {
  getAdminSiteUrl,
  getMailOrigin,
  getMainSiteUrl,
  getSiteHost,
  hostVerdict,
  isSameOrigin,
  refuseMisdirected,
  requestOrigin,
  requireLoopbackHost,
  serverBuildForSite,
  servedHostnames,
  siteOfHostname,
} from "./host.server";

const request = (url: string) => new Request(url);

describe("site hosts", () => {
  it("serves the admin portal on host names starting with admin.", () => {
    expect(getSiteHost(request("http://admin.localhost:3000/users"))).toBe("admin");
    expect(getSiteHost(request("https://ADMIN.soko.ug/"))).toBe("admin");
    expect(getSiteHost(request("http://localhost:3000/"))).toBe("main");
    expect(getSiteHost(request("https://soko.ug/admin"))).toBe("main");
    expect(getSiteHost(request("https://administrator.soko.ug/"))).toBe("main");
  });

  it("links each host to the other, keeping scheme and port", () => {
    expect(getMainSiteUrl(request("http://admin.localhost:3000/users"))).toBe("http://localhost:3000");
    expect(getMainSiteUrl(request("http://localhost:3000/help"))).toBe("http://localhost:3000");
    expect(getAdminSiteUrl(request("https://soko.ug/"))).toBe("https://admin.soko.ug");
    expect(getAdminSiteUrl(request("http://admin.localhost:3000/"))).toBe("http://admin.localhost:3000");
  });

  it("tells a host name's site the way a request's is told", () => {
    expect(siteOfHostname("admin.localhost")).toBe("admin");
    expect(siteOfHostname("Admin.Soko.UG")).toBe("admin");
    expect(siteOfHostname("localhost")).toBe("main");
    expect(siteOfHostname("administrator.soko.ug")).toBe("main");
  });

  it("gives each host a build of only the routes it serves, in the server's routes and the browser's manifest", () => {
    const ids = ["root", "routes/_index", "routes/login", "routes/help", "routes/$", "admin/users", "admin-host/users", "admin-host/dashboard"];
    const build = {
      routes: Object.fromEntries(ids.map((id) => [id, { id }])),
      assets: { version: "v1", routes: Object.fromEntries(ids.map((id) => [id, { id, module: `/${id}.js` }])) },
      future: {},
    } as unknown as ServerBuild;
    const admin = serverBuildForSite(build, "admin");
    const main = serverBuildForSite(build, "main");
    expect(Object.keys(admin.routes)).toEqual(["root", "routes/login", "routes/$", "admin-host/users", "admin-host/dashboard"]);
    expect(Object.keys(admin.assets.routes)).toEqual(Object.keys(admin.routes));
    expect(Object.keys(main.routes)).toEqual(["root", "routes/_index", "routes/login", "routes/help", "routes/$", "admin/users"]);
    expect(Object.keys(main.assets.routes)).toEqual(Object.keys(main.routes));
    expect(main.assets.version).toBe("v1");
    // Made once per build: Remix derives its router from the build on each request.
    expect(serverBuildForSite(build, "admin")).toBe(admin);
    expect(Object.keys(build.routes)).toEqual(ids);
  });
});

describe("the origin of links in mail", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it("comes from a request to this machine itself (any port, the admin host too)", () => {
    expect(getMailOrigin(request("http://localhost:3000/forgot-password"))).toBe("http://localhost:3000");
    expect(getMailOrigin(request("http://127.0.0.1:4123/forgot-password"))).toBe("http://127.0.0.1:4123");
    expect(getMailOrigin(request("http://[::1]:4123/forgot-password"))).toBe("http://[::1]:4123");
    expect(getMailOrigin(request("http://admin.localhost:3000/users"))).toBe("http://localhost:3000");
  });

  it("never comes from a foreign Host header: without PUBLIC_URL it is this machine, with a warning in the log", () => {
    const warn = vi.spyOn(log, "warn").mockImplementation(() => {});
    for (const url of [
      "http://evil.example/forgot-password",
      "https://soko.ug/forgot-password",
      "http://localhost.evil.example/",
      "http://127.0.0.1.evil.example/",
    ]) {
      expect(getMailOrigin(request(url)), url).toBe(`http://localhost:${getEnv().PORT}`);
    }
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toContain("Set PUBLIC_URL");
  });

  it("is PUBLIC_URL when set, whatever the request says", async () => {
    vi.stubEnv("PUBLIC_URL", "https://soko.ug/");
    vi.resetModules();
    const fresh = await import("./host.server");
    expect(fresh.getMailOrigin(request("http://evil.example/forgot-password"))).toBe("https://soko.ug");
    expect(fresh.getMailOrigin(request("http://localhost:3000/forgot-password"))).toBe("https://soko.ug");
  });
});

describe("isSameOrigin", () => {
  it("passes no source and our own origin, and refuses another host or a source that is not a URL", () => {
    expect(isSameOrigin(undefined, "http://localhost:3000")).toBe(true);
    expect(isSameOrigin("http://localhost:3000", "http://localhost:3000")).toBe(true);
    expect(isSameOrigin("http://localhost:3000/login?x=1", "http://localhost:3000")).toBe(true);
    expect(isSameOrigin("https://evil.example", "http://localhost:3000")).toBe(false);
    for (const bad of ["x", "null", "http://[::1"]) expect(isSameOrigin(bad, "http://localhost:3000")).toBe(false);
    expect(isSameOrigin("http://localhost:3000", null)).toBe(false);
  });

  it("compares the scheme and the port as well as the host", () => {
    expect(isSameOrigin("https://localhost:3000", "http://localhost:3000")).toBe(false);
    expect(isSameOrigin("http://soko.ug", "https://soko.ug")).toBe(false);
    expect(isSameOrigin("http://localhost:3001", "http://localhost:3000")).toBe(false);
    expect(isSameOrigin("https://soko.ug:8443/x", "https://soko.ug")).toBe(false);
    // Default ports are the same origin written either way.
    expect(isSameOrigin("https://soko.ug/", "https://soko.ug")).toBe(true);
    expect(isSameOrigin("https://SOKO.ug:443/", "https://soko.ug")).toBe(true);
  });
});

describe("requestOrigin", () => {
  const trustNone = () => false;
  const trustAll = () => true;
  const req = (headers: Record<string, string>, socket: { remoteAddress?: string; encrypted?: boolean } = { remoteAddress: "127.0.0.1" }) => ({
    headers,
    socket,
  });

  it("is the scheme of the connection and the Host header, default ports left out", () => {
    expect(requestOrigin(req({ host: "localhost:3000" }), trustNone)).toBe("http://localhost:3000");
    expect(requestOrigin(req({ host: "Admin.Localhost:3000" }), trustNone)).toBe("http://admin.localhost:3000");
    expect(requestOrigin(req({ host: "soko.ug:80" }), trustNone)).toBe("http://soko.ug");
    expect(requestOrigin(req({ host: "soko.ug" }, { remoteAddress: "10.0.0.1", encrypted: true }), trustNone)).toBe("https://soko.ug");
    expect(requestOrigin(req({}), trustNone)).toBeNull();
  });

  it("takes X-Forwarded-Proto from a trusted proxy only, and only http or https", () => {
    expect(requestOrigin(req({ host: "soko.ug", "x-forwarded-proto": "https" }), trustNone)).toBe("http://soko.ug");
    expect(requestOrigin(req({ host: "soko.ug", "x-forwarded-proto": "https" }), trustAll)).toBe("https://soko.ug");
    expect(requestOrigin(req({ host: "soko.ug", "x-forwarded-proto": "HTTPS, http" }), trustAll)).toBe("https://soko.ug");
    const byAddress = (address: string) => address === "10.0.0.2";
    expect(requestOrigin(req({ host: "soko.ug", "x-forwarded-proto": "https" }, { remoteAddress: "10.0.0.2" }), byAddress)).toBe("https://soko.ug");
    expect(requestOrigin(req({ host: "soko.ug", "x-forwarded-proto": "https" }, { remoteAddress: "10.0.0.3" }), byAddress)).toBe("http://soko.ug");
    // A scheme whose URLs have no origin ("null") would equal a page's `Origin: null`.
    expect(requestOrigin(req({ host: "soko.ug", "x-forwarded-proto": "foo" }), trustAll)).toBeNull();
  });
});

describe("the host names served", () => {
  const env = (over: Partial<{ PUBLIC_URL: string; ADMIN_HOST_PREFIX: string; ALLOWED_HOSTS: string[] }> = {}) => ({
    ADMIN_HOST_PREFIX: "admin.",
    ALLOWED_HOSTS: [],
    ...over,
  });
  const verdict = (host: string | undefined, served: Set<string>, forwarded?: string) =>
    hostVerdict({ ...(host === undefined ? {} : { host }), ...(forwarded === undefined ? {} : { "x-forwarded-host": forwarded }) }, served);

  it("are PUBLIC_URL's, its admin host's and ALLOWED_HOSTS; without PUBLIC_URL only the list", () => {
    expect([...servedHostnames(env({ PUBLIC_URL: "https://Soko.UG/", ALLOWED_HOSTS: ["soko.example"] }))].sort()).toEqual([
      "admin.soko.ug",
      "soko.example",
      "soko.ug",
    ]);
    expect([...servedHostnames(env({ PUBLIC_URL: "http://localhost:3000", ADMIN_HOST_PREFIX: "Staff-" }))].sort()).toEqual(["localhost", "staff-localhost"]);
    expect([...servedHostnames(env())]).toEqual([]);
  });

  it("serves loopback names on any port, and the configured names on any port", () => {
    const served = servedHostnames(env({ PUBLIC_URL: "https://soko.ug", ALLOWED_HOSTS: ["soko.example", "192.0.2.10"] }));
    for (const host of [
      "localhost",
      "localhost:3000",
      "LOCALHOST:1",
      "admin.localhost:3000",
      "x.y.localhost",
      "127.0.0.1:4000",
      "[::1]:4000",
      "localhost.:3000",
      "soko.ug",
      "SOKO.UG:443",
      "soko.ug.",
      "admin.soko.ug",
      "soko.example:8080",
      "192.0.2.10",
    ]) {
      expect(verdict(host, served), host).toBe("served");
    }
    // HTTP/1.0 without a Host: the main site, as before (no browser sends that).
    expect(verdict(undefined, served)).toBe("served");
  });

  it("refuses every other name, look-alikes of ours included", () => {
    const served = servedHostnames(env({ PUBLIC_URL: "https://soko.ug", ALLOWED_HOSTS: ["soko.example"] }));
    for (const host of [
      "evil.example",
      "evil.example:3000",
      "localhost.evil.example",
      "127.0.0.1.evil.example",
      "soko.ug.evil.example",
      "evilsoko.ug",
      "admin.soko.example",
      "admin.evil.example",
      "www.soko.ug",
      "10.0.0.5",
      "127.0.0.2",
      "[::2]",
    ]) {
      expect(verdict(host, served), host).toBe("misdirected");
    }
    expect(verdict("evil.example", servedHostnames(env()))).toBe("misdirected");
  });

  it("calls a Host that is no host name malformed", () => {
    for (const host of ["", "local host", "localhost/x", "localhost:abc", "user@localhost", "[::1", "localhost?x", "a\\b"]) {
      expect(verdict(host, new Set()), JSON.stringify(host)).toBe("malformed");
    }
  });

  it("checks every name a forwarding header adds too", () => {
    const served = servedHostnames(env({ PUBLIC_URL: "https://soko.ug" }));
    expect(verdict("127.0.0.1:3000", served, "soko.ug")).toBe("served");
    expect(verdict("127.0.0.1:3000", served, "soko.ug, admin.soko.ug")).toBe("served");
    expect(verdict("127.0.0.1:3000", served, "evil.example")).toBe("misdirected");
    expect(verdict("evil.example", served, "localhost")).toBe("misdirected");
    expect(verdict("localhost", served, "soko.ug, evil.example")).toBe("misdirected");
  });
});

describe("requireLoopbackHost", () => {
  const status = (headers: Record<string, string>) => {
    try {
      requireLoopbackHost(new Request("http://localhost/dev/outbox", { headers }));
      return 200;
    } catch (error) {
      return (error as Response).status;
    }
  };

  it("lets through a loopback name, any port", () => {
    for (const host of ["localhost:3000", "admin.localhost:3000", "127.0.0.1:4123", "[::1]:4123", "localhost"]) expect(status({ host }), host).toBe(200);
  });

  it("is 404 for any other name, served or not, for one a forwarding header adds, and for none", () => {
    for (const host of ["evil.example", "evil.example:3000", "soko.ug", "localhost.evil.example", "192.0.2.10", "local host"])
      expect(status({ host }), host).toBe(404);
    expect(status({ host: "localhost:3000", "x-forwarded-host": "evil.example" })).toBe(404);
    expect(status({})).toBe(404);
  });
});

describe("refuseMisdirected's word at start", () => {
  afterEach(() => vi.restoreAllMocks());
  const prod = { NODE_ENV: "production", DATABASE_URL: "postgres://db/x", REDIS_URL: "redis://r:6379", CLICKHOUSE_URL: "http://ch:8123" };
  const said = (vars: Record<string, string>) => {
    const info = vi.spyOn(log, "info").mockImplementation(() => {});
    const warn = vi.spyOn(log, "warn").mockImplementation(() => {});
    refuseMisdirected(http.createServer(), parseEnv({ ...prod, ...vars }));
    const lines = { log: info.mock.calls.map((c) => String(c[0])), warn: warn.mock.calls.map((c) => String(c[0])) };
    vi.restoreAllMocks();
    return lines;
  };

  it("names the names served", () => {
    expect(said({ PUBLIC_URL: "http://soko.ug", ALLOWED_HOSTS: "soko.example" }).log).toEqual([
      "[web] serving the host names soko.example, soko.ug, admin.soko.ug, localhost, *.localhost, 127.0.0.1 and [::1] on any port; any other Host is answered 421 Misdirected Request",
    ]);
  });

  it("warns when production on every interface has no PUBLIC_URL, not when it listens on 127.0.0.1 alone", () => {
    expect(said({ HOST: "0.0.0.0" }).warn).toEqual([expect.stringContaining("[web] PUBLIC_URL is not set: only localhost names are served.")]);
    expect(said({}).warn).toEqual([expect.stringContaining("[web] PUBLIC_URL is not set")]);
    expect(said({ ALLOWED_HOSTS: "soko.example" }).warn).toEqual([expect.stringContaining("only localhost names and ALLOWED_HOSTS are served")]);
    expect(said({ HOST: "127.0.0.1" }).warn).toEqual([]);
    expect(said({ PUBLIC_URL: "http://soko.ug" }).warn).toEqual([]);
  });

  it("warns when PUBLIC_URL is https and no proxy is trusted to say so", () => {
    expect(said({ PUBLIC_URL: "https://soko.ug" }).warn).toEqual([expect.stringContaining("TRUST_PROXY is unset")]);
    expect(said({ PUBLIC_URL: "https://soko.ug", TRUST_PROXY: "1" }).warn).toEqual([]);
  });
});
