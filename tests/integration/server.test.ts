import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemoData } from "../../scripts/lib/seed";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { startTestServer, type TestServer } from "../support/test-server";

const builtAssets = path.resolve(import.meta.dirname, "../../build/client/assets");

describe("server.ts (the built app, as npm start runs it)", () => {
  let t: TestDatabase;
  let server: TestServer;
  let output = "";

  beforeAll(async () => {
    t = await createTestDatabase();
    await seedDemoData(t.db);
    server = await startTestServer({ DATABASE_URL: t.url });
    server.child.stdout?.on("data", (d) => (output += d));
  });
  afterAll(async () => {
    await server?.stop();
    await t?.drop();
  });

  const get = (path: string, init?: RequestInit) => fetch(`${server.baseUrl}${path}`, { redirect: "manual", ...init });

  it("enforces a CSP whose per-request nonce is on every script tag, and no other", async () => {
    const [a, b] = await Promise.all([get("/"), get("/")]);
    const csp = a.headers.get("content-security-policy") ?? "";
    expect(a.headers.get("content-security-policy-report-only")).toBeNull();
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(/'nonce-([^']+)'/.exec(b.headers.get("content-security-policy") ?? "")?.[1]).not.toBe(nonce);
    expect(csp).toContain("script-src 'self' 'nonce-");
    expect(csp).not.toContain("unsafe-inline");
    const html = await a.text();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) {
      if (/\bsrc=/.test(tag)) continue;
      expect(tag).toContain(`nonce="${nonce}"`);
    }
  });

  it("sets helmet's headers and drops x-powered-by", async () => {
    const res = await get("/");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    expect(res.headers.get("x-powered-by")).toBeNull();
  });

  it("sends a rendered page compressed in one body, with the encoding the browser prefers, and its length", async () => {
    const raw = (headers: Record<string, string>) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        http
          .get(`${server.baseUrl}/terms`, { headers }, (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (chunk: Buffer) => chunks.push(chunk));
            res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          })
          .on("error", reject);
      });
    const brotli = await raw({ "accept-encoding": "gzip, deflate, br" });
    expect(brotli.headers["content-encoding"]).toBe("br");
    expect(brotli.headers.vary?.split(/\s*,\s*/)).toContain("Accept-Encoding");
    expect(Number(brotli.headers["content-length"])).toBe(brotli.body.length);
    const html = zlib.brotliDecompressSync(brotli.body).toString();
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain("Terms");
    const gzip = await raw({ "accept-encoding": "gzip;q=1, br;q=0.5" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(Number(gzip.headers["content-length"])).toBe(gzip.body.length);
    expect(zlib.gunzipSync(gzip.body).toString()).toMatch(/^<!DOCTYPE html>/);
    const plain = await raw({});
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(Number(plain.headers["content-length"])).toBe(plain.body.length);
    expect(plain.body.toString()).toMatch(/^<!DOCTYPE html>/);
  });

  it("compresses pages and caches hashed assets for a year", async () => {
    const res = await get("/", { headers: { "accept-encoding": "gzip" } });
    const html = await res.text();
    expect(res.headers.get("content-encoding")).toBe("gzip");
    const asset = /(\/assets\/[^"]+\.js)/.exec(html)?.[1];
    expect(asset).toBeTruthy();
    const assetRes = await get(asset!);
    expect(assetRes.status).toBe(200);
    expect(assetRes.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const icon = await get("/favicon.svg");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toContain("image/svg+xml");
  });

  it("sends scripts and stylesheets with nosniff, CORP and the year's cache but without the page headers; pages keep them all", async () => {
    const html = await (await get("/")).text();
    const assets = [...new Set([...html.matchAll(/\/assets\/[^"]+\.(?:js|css)/g)].map((m) => m[0]))];
    expect(assets.some((a) => a.endsWith(".css"))).toBe(true);
    // The chunks with brotli and gzip copies (sent as they are) and the small ones without (express.static).
    const small = fs.readdirSync(builtAssets).find((f) => f.endsWith(".js") && !fs.existsSync(path.join(builtAssets, `${f}.br`)));
    expect(small).toBeTruthy();
    for (const [asset, encoding] of [...assets.map((a) => [a, "br"]), [`/assets/${small}`, "gzip"], [assets[0]!, "identity"]] as const) {
      const res = await get(asset, { headers: { "accept-encoding": encoding } });
      expect(res.status, asset).toBe(200);
      expect(res.headers.get("x-content-type-options"), asset).toBe("nosniff");
      expect(res.headers.get("cross-origin-resource-policy"), asset).toBe("same-origin");
      expect(res.headers.get("cache-control"), asset).toBe("public, max-age=31536000, immutable");
      // A hashed file is never revalidated nor fetched in parts: no validators, no Accept-Ranges.
      for (const header of ["etag", "last-modified", "accept-ranges"]) expect(res.headers.get(header), `${asset} ${header}`).toBeNull();
      for (const header of ["content-security-policy", "cross-origin-opener-policy", "x-frame-options", "referrer-policy", "origin-agent-cluster"]) {
        expect(res.headers.get(header), `${asset} ${header}`).toBeNull();
      }
    }
    // A page, and an asset name that is not there (its 404 is a page), keep helmet's headers.
    for (const page of ["/", "/assets/not-here-0000.js"]) {
      const res = await get(page);
      expect(res.headers.get("content-security-policy"), page).toContain("script-src 'self' 'nonce-");
      expect(res.headers.get("x-frame-options"), page).toBe("SAMEORIGIN");
      expect(res.headers.get("cross-origin-opener-policy"), page).toBe("same-origin");
      expect(res.headers.get("referrer-policy"), page).toBe("strict-origin-when-cross-origin");
      expect(res.headers.get("x-content-type-options"), page).toBe("nosniff");
    }
  });

  it("serves the production build to browsers, on Preact, as npm start does (not the development one)", async () => {
    // npm test runs with NODE_ENV=test; a build made under it would ship the routers' development code, with
    // its warnings, and StrictMode checks running every effect twice (every page view counted twice).
    const html = await (await get("/")).text();
    const chunks = [...html.matchAll(/\/assets\/[^"]+\.js/g)].map((m) => m[0]);
    const code = (await Promise.all([...new Set(chunks)].map(async (c) => (await get(c)).text()))).join("\n");
    expect(code).toContain("useNavigate"); // The router is there...
    expect(code).not.toContain("You should call navigate() in a React.useEffect()"); // ...without its development warnings.
    // Preact stands in for React in the browser (ADR 046): neither React DOM's production nor its development build.
    expect(code).not.toMatch(/Minified React error #|Warning: %s|react-dom\.development/);
  });

  it("reads the landing page from Postgres", async () => {
    const html = await (await get("/")).text();
    expect(html).toContain("Graphics &amp; Design");
    expect(html).toMatch(/UGX \d{2,3},\d{3}/);
  });

  it("answers malformed requests with 4xx, never 500", async () => {
    const cases: [string, number[]][] = [
      ["/%E0%A4%A", [400]],
      ["/help?q=%ZZ%", [200, 400]],
      [`/help?q=${"a".repeat(10_000)}`, [200, 400]],
      ["/help?q=a&q=b", [200]],
      ["/help?q[]=x&q[a][b]=y", [200, 400]],
      ["/?q[]=x", [200]],
      ["/definitely/not/here", [404]],
    ];
    for (const [path, expected] of cases) {
      const res = await get(path);
      expect(expected, `${path} -> ${res.status}`).toContain(res.status);
    }
  });

  it("reports it is alive at /healthz and ready (Postgres, Redis and ClickHouse answer) at /readyz", async () => {
    for (const path of ["/healthz", "/readyz"]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(await res.json()).toEqual({ ok: true });
    }
  });

  it("refuses a socket.io handshake from another origin", async () => {
    const res = await get("/socket.io/?EIO=4&transport=polling", { headers: { origin: "http://evil.example" } });
    expect(res.status).toBe(403);
    const ok = await get("/socket.io/?EIO=4&transport=polling", { headers: { origin: server.baseUrl } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('"sid"');
  });

  it("refuses a handshake or a form post whose Origin is not a URL, and keeps serving", async () => {
    for (const origin of ["x", "null", "http://[::1"]) {
      const res = await get("/socket.io/?EIO=4&transport=polling", { headers: { origin } });
      expect(res.status).toBe(403);
      const post = await get("/login", { method: "POST", headers: { origin, "content-type": "application/x-www-form-urlencoded" }, body: "email=a" });
      expect(post.status).toBe(403);
    }
    expect((await get("/healthz")).status).toBe(200);
  });

  it("closes cleanly on SIGTERM", async () => {
    const exit = new Promise<number | null>((resolve) => server.child.once("exit", (code) => resolve(code)));
    server.child.kill("SIGTERM");
    expect(await exit).toBe(0);
    expect(output).toContain("[web] SIGTERM: closing");
    expect(output).toContain("[web] closed");
  });
});
