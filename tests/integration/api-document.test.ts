/**
 * The JSON API's OpenAPI document against what serves the calls (ADR 041): every route the router made from the
 * list of calls is in the document and every call the document names has a route; the document is the same
 * each time it is made; Redocly's linter (its recommended rules, redocly.yaml) finds no error in it; and the
 * readable reference at /api/docs, rendered from it on the built server, lists every call.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Router } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_CALLS } from "~/api/calls.server";
import { openApiDocument } from "~/api/openapi.server";
import { API_PREFIX, apiRouter } from "~/api/router.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { startTestServer, type TestServer } from "../support/test-server";

const root = path.resolve(import.meta.dirname, "../..");
const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

type Document = { paths: Record<string, Record<string, { operationId: string; summary: string; responses: Record<string, unknown> }>> };
const documentOf = (fresh = false) => openApiDocument(API_CALLS, { fresh }) as Document;

/** `METHOD /path` of every route the router has under /api/v1 (with `{id}` for `:id`), but its catch-all. */
function routesOf(router: Router): string[] {
  const routes: string[] = [];
  for (const layer of router.stack as { route?: { path: string; methods: Record<string, boolean> } }[]) {
    if (!layer.route || !layer.route.path.startsWith(`${API_PREFIX}/`)) continue;
    const template = layer.route.path.slice(API_PREFIX.length).replace(/:(\w+)/g, "{$1}");
    if (template === "/*") continue;
    for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== "_all") routes.push(`${method.toUpperCase()} ${template}`);
  }
  return routes.sort();
}

function documentedCalls(document: Document): string[] {
  return Object.entries(document.paths)
    .flatMap(([template, item]) =>
      Object.keys(item)
        .filter((m) => METHODS.has(m))
        .map((m) => `${m.toUpperCase()} ${template}`),
    )
    .sort();
}

describe("the document and the router", () => {
  it("describe the same calls: every route is documented, every documented call has a route", () => {
    const routes = routesOf(apiRouter(API_CALLS));
    const documented = documentedCalls(documentOf());
    expect(routes.length).toBe(API_CALLS.length);
    expect(new Set(routes).size, "no two routes share a method and path").toBe(routes.length);
    expect(
      routes.filter((r) => !documented.includes(r)),
      "routes missing from the document",
    ).toEqual([]);
    expect(
      documented.filter((d) => !routes.includes(d)),
      "documented calls without a route",
    ).toEqual([]);
    // The router's catch-all (405 or 404 as JSON) is the one route left out above.
    const all = (apiRouter(API_CALLS).stack as { route?: { path: string } }[]).flatMap((l) => (l.route ? [l.route.path] : []));
    expect(all.length).toBe(routes.length + 1);
    expect(all.at(-1)).toBe(`${API_PREFIX}/*`);
  });

  it("is made the same every time, and its operationIds are unique", () => {
    const first = JSON.stringify(documentOf(true));
    expect(JSON.stringify(documentOf(true))).toBe(first);
    expect(JSON.stringify(documentOf())).toBe(first);
    const ids = Object.values(documentOf().paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(API_CALLS.length);
  });
});

type LintProblem = { ruleId: string; severity: "error" | "warn"; message: string; location?: { pointer?: string }[] };

describe("Redocly's linter", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-openapi-"));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("finds no error in the document (its warnings are listed)", async () => {
    const file = path.join(dir, "openapi.json");
    fs.writeFileSync(file, JSON.stringify(documentOf(true), null, 2));
    const bin = path.join(root, "node_modules/.bin/redocly");
    // Offline and quiet: no telemetry, no check for a newer version. The linter exits 1 when it finds errors.
    const run = await promisify(execFile)(bin, ["lint", file, "--format=json", `--config=${path.join(root, "redocly.yaml")}`], {
      cwd: root,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
      maxBuffer: 32 * 1024 * 1024,
      timeout: 90_000,
    }).catch((error: { stdout?: string; stderr?: string; code?: number }) => ({
      stdout: error.stdout ?? "",
      stderr: `${error.stderr ?? ""} (exit ${error.code})`,
    }));
    const start = run.stdout.indexOf("{");
    expect(start, `redocly printed no JSON: ${run.stdout}${run.stderr}`).toBeGreaterThanOrEqual(0);
    const report = JSON.parse(run.stdout.slice(start)) as { totals: { errors: number; warnings: number }; problems: LintProblem[] };
    const line = (p: LintProblem) => `${p.ruleId} at ${p.location?.[0]?.pointer ?? "?"}: ${p.message}`;
    const warnings = report.problems.filter((p) => p.severity === "warn").map(line);
    if (warnings.length) console.info(`redocly lint: ${warnings.length} warnings\n${warnings.join("\n")}`);
    expect(report.problems.filter((p) => p.severity === "error").map(line)).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 120_000);
});

describe("the reference at /api/docs", () => {
  let t: TestDatabase;
  let server: TestServer;
  beforeAll(async () => {
    t = await createTestDatabase();
    server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: `apidoc_${process.pid}_${Date.now()}` });
  });
  afterAll(async () => {
    await server?.stop();
    await t?.drop();
  });

  it("lists every call with its method, path and summary, without JavaScript of its own, within the CSP", async () => {
    const res = await fetch(`${server.baseUrl}/api/docs`);
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const call of API_CALLS) {
      const section = new RegExp(`<section id="${call.operationId}"[^>]*>(.*?)</section>`, "s").exec(html)?.[1];
      expect(section, `${call.operationId} has its section`).toBeDefined();
      expect(section).toContain(`>${call.method.toUpperCase()}</span>`);
      expect(section).toContain(`>${call.path}</code>`);
      expect(section).toContain(escapeHtml(call.summary));
      for (const status of Object.keys(documentOf().paths[call.path]![call.method]!.responses)) expect(section).toContain(`>${status}</span>`);
    }
    expect(html).toContain('href="/api/v1/openapi.json"');
    // Nothing from another site: every script and stylesheet is our own.
    const loaded = [...html.matchAll(/<script[^>]+src="([^"]+)"|<link[^>]+rel="(?:stylesheet|modulepreload)"[^>]+href="([^"]+)"/g)].map((m) => m[1] ?? m[2]!);
    expect(loaded.length).toBeGreaterThan(0);
    for (const url of loaded) expect(url, url).toMatch(/^\/(?!\/)/);
    expect(res.headers.get("content-security-policy")).toMatch(/script-src 'self' 'nonce-/);
    expect(html).not.toMatch(/ style="/);
  });

  it("is linked from the help centre, and only the marketplace serves it", async () => {
    expect(await (await fetch(`${server.baseUrl}/help`)).text()).toContain('href="/api/docs"');
    // Node does not resolve *.localhost: the admin host is named by the Host header.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = http.get({ host: "127.0.0.1", port: server.port, path: "/api/docs", headers: { Host: new URL(server.adminUrl).host } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on("error", reject);
    });
    expect(status).toBe(404);
  });
});

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
