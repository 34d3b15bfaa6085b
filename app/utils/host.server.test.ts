import { afterEach, describe, expect, it, vi } from "vitest";
import { getEnv } from "./env.server";
import type { ServerBuild } from "@remix-run/node";
import { getAdminSiteUrl, getMailOrigin, getMainSiteUrl, getSiteHost, isSameOrigin, serverBuildForSite, siteOfHostname } from "./host.server";

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
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    for (const url of ["http://evil.example/forgot-password", "https://soko.ug/forgot-password", "http://localhost.evil.example/", "http://127.0.0.1.evil.example/"]) {
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
  it("passes no source and our own host, and refuses another host or a source that is not a URL", () => {
    expect(isSameOrigin(undefined, "localhost:3000")).toBe(true);
    expect(isSameOrigin("http://localhost:3000", "localhost:3000")).toBe(true);
    expect(isSameOrigin("http://localhost:3000/login?x=1", "localhost:3000")).toBe(true);
    expect(isSameOrigin("https://evil.example", "localhost:3000")).toBe(false);
    expect(isSameOrigin("http://localhost:3001", "localhost:3000")).toBe(false);
    for (const bad of ["x", "null", "http://[::1"]) expect(isSameOrigin(bad, "localhost:3000")).toBe(false);
    expect(isSameOrigin("http://localhost:3000", undefined)).toBe(false);
  });
});
