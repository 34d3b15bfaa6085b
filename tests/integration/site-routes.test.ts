/**
 * Hosts split in one place (app/utils/site-routes.ts, ADR 013), through the built server: every route of
 * the build is matched on exactly the hosts the table names, as the browser's route discovery
 * (/__manifest) and data requests (/x.data) see it, and a page a host does not serve is its 404 page.
 */
import http from "node:http";
import path from "node:path";
import type { ServerBuild } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SITE_HOSTS, siteServesRoute, type SiteHost } from "~/utils/site-routes";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createSession, createUser } from "../support/factories";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestDatabase;
let server: TestServer;
let build: ServerBuild;
let adminCookie: string;

beforeAll(async () => {
  t = await createTestDatabase();
  const admin = await createUser(t.db, { role: "admin", name: "Site Admin", password: null });
  adminCookie = `soko_session=${await createSession(t.db, admin.id)}`;
  build = (await import(path.resolve(import.meta.dirname, "../../build/server/index.js"))) as ServerBuild;
  server = await startTestServer({ DATABASE_URL: t.url });
});
afterAll(async () => {
  await server?.stop();
  await t?.drop();
});

/** A GET to the test server as a visitor of one host (a Host header: Node does not resolve *.localhost). */
function get(host: SiteHost, target: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const origin = host === "admin" ? server.adminUrl : server.baseUrl;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, path: target, headers: { Host: new URL(origin).host, ...headers } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** The URL path of a route of the build, its parameters filled in (a splat with a path nothing else takes). */
function samplePath(id: string): string {
  const segments: string[] = [];
  for (let route = build.routes[id]; route; route = route.parentId ? build.routes[route.parentId] : undefined) {
    if (route.path) segments.unshift(route.path);
  }
  return `/${segments.join("/")}`.replace(/:\w+/g, "1").replace(/\*$/, "no-such-page");
}

describe("every route of the build", () => {
  it("is matched on exactly the hosts site-routes.ts names, and the main host has the admin screens under /admin", async () => {
    const ids = Object.keys(build.routes);
    expect(ids).toEqual(expect.arrayContaining(["admin/users", "admin-host/users", "routes/$", "routes/_index", "admin-host/dashboard"]));
    const seen: string[] = [];
    for (const id of ids) {
      for (const host of SITE_HOSTS) {
        const p = samplePath(id);
        const res = await get(host, `/__manifest?${new URLSearchParams({ p, version: build.assets.version })}`);
        expect(res.status, `${host} ${p}`).toBe(200);
        const matched = Object.keys(JSON.parse(res.body) as Record<string, unknown>);
        expect(matched.includes(id), `${id} (${p}) on the ${host} host`).toBe(siteServesRoute(host, id));
        if (matched.includes(id) && id !== "root") seen.push(`${host} ${p}`);
      }
    }
    // The table read as addresses: what the admin host serves, and that the main host serves the rest.
    expect(seen.filter((s) => s.startsWith("admin ")).sort()).toEqual(
      [
        "/",
        "/analytics",
        "/analytics/conversion-funnel",
        "/analytics/export",
        // An optional segment, as the sampler writes it.
        "/analytics/user-journey/1?",
        "/audit",
        "/categories",
        "/consent",
        "/disputes",
        "/heatmap",
        "/language",
        "/login",
        "/logout",
        "/media/1",
        "/messages",
        "/no-such-page",
        "/pipeline",
        "/privacy",
        "/rates",
        "/reviews",
        "/users",
        "/users/1/analytics",
      ].map((p) => `admin ${p}`),
    );
    expect(seen).toEqual(
      expect.arrayContaining([
        "main /",
        "main /admin",
        "main /admin/users",
        "main /admin/messages",
        "main /admin/analytics",
        "main /messages",
        "main /help",
        "main /gig/1/edit",
      ]),
    );
    expect(seen).not.toContain("main /users");
    expect(seen).not.toContain("main /analytics");
  });
});

describe("a page the host does not serve", () => {
  it("is the 404 page in that host's layout, as a document and as a data request", async () => {
    for (const [host, target] of [
      ["admin", "/browse"],
      ["admin", "/help"],
      ["admin", "/admin/users"],
      ["main", "/users"],
      ["main", "/analytics"],
    ] as const) {
      const doc = await get(host, target, { Cookie: adminCookie });
      expect(doc.status, `${host} ${target}`).toBe(404);
      expect(doc.body).toContain("Page not found");
      expect(doc.body).toContain(`data-site="${host}"`);
      expect((await get(host, `${target}.data`, { Cookie: adminCookie })).status, `${host} ${target}.data`).toBe(404);
    }
  });

  it("is still served where it belongs, with the same data requests", async () => {
    for (const [host, target] of [
      ["admin", "/users"],
      ["admin", "/analytics"],
      ["main", "/admin/users"],
      ["main", "/help"],
    ] as const) {
      expect((await get(host, target, { Cookie: adminCookie })).status, `${host} ${target}`).toBe(200);
      expect((await get(host, `${target}.data`, { Cookie: adminCookie })).status, `${host} ${target}.data`).toBe(200);
    }
    // The root's own data (revalidation after an action) on both hosts.
    for (const host of SITE_HOSTS) expect((await get(host, "/_root.data", { Cookie: adminCookie })).status).toBe(200);
  });

  it("shows each admin screen once: the same words on the admin host's /x and the main host's /admin/x", async () => {
    const h1 = (html: string) => /<h1[^>]*>(.*?)<\/h1>/s.exec(html)?.[1];
    for (const [adminPath, mainPath, heading] of [
      ["/", "/admin", "Admin dashboard"],
      ["/users", "/admin/users", "User management"],
      ["/messages", "/admin/messages", "Message monitoring"],
      ["/analytics", "/admin/analytics", "Analytics"],
    ]) {
      const onAdmin = await get("admin", adminPath!, { Cookie: adminCookie });
      const onMain = await get("main", mainPath!, { Cookie: adminCookie });
      expect(h1(onAdmin.body)).toBe(heading);
      expect(h1(onMain.body)).toBe(heading);
      expect(/<title>(.*?)<\/title>/.exec(onAdmin.body)?.[1]).toBe(/<title>(.*?)<\/title>/.exec(onMain.body)?.[1]);
    }
    // The dashboard's links stay on their host: /users there, /admin/users here.
    expect((await get("admin", "/", { Cookie: adminCookie })).body).toContain('href="/users"');
    expect((await get("main", "/admin", { Cookie: adminCookie })).body).toContain('href="/admin/users"');
  });
});
