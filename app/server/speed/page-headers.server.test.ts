import type { AddressInfo } from "node:net";
import express, { type RequestHandler, type Response } from "express";
import helmet from "helmet";
import { afterAll, describe, expect, it } from "vitest";
import { pageHeaders } from "./page-headers.server";

// server.ts's helmet options, with HSTS and upgrade-insecure-requests on (as behind https).
const helmetOptions = {
  contentSecurityPolicy: {
    useDefaults: true,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'", (_req: unknown, res: unknown) => `'nonce-${(res as Response).locals.cspNonce}'`],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", "data:"],
      frameAncestors: ["'none'"],
      upgradeInsecureRequests: [],
    },
  },
  strictTransportSecurity: true,
  crossOriginEmbedderPolicy: false,
  referrerPolicy: { policy: "strict-origin-when-cross-origin" as const },
};

const servers: ReturnType<express.Express["listen"]>[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

/** An Express app with these middlewares before a page that shows its nonce; its base URL. */
async function appWith(...middlewares: RequestHandler[]): Promise<string> {
  const app = express();
  app.use(...middlewares);
  app.get("/", (_req, res) => res.send(`nonce ${res.locals.cspNonce as string}`));
  const server = app.listen(0, "127.0.0.1");
  servers.push(server);
  await new Promise((resolve) => server.once("listening", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The response's headers in order, the nonce written as <nonce>, without those that differ by response anyway. */
async function headersOf(url: string) {
  const res = await fetch(url);
  const nonce = (await res.text()).replace("nonce ", "");
  return {
    nonce,
    headers: [...res.headers]
      .filter(([name]) => !["date", "etag", "content-length", "keep-alive", "connection"].includes(name))
      .map(([name, value]) => [name, value.replaceAll(nonce, "<nonce>")]),
  };
}

describe("a page's security headers", () => {
  it("are helmet's own, in its order, with each response's own nonce", async () => {
    const nonceFirst: RequestHandler = (_req, res, next) => {
      res.locals.cspNonce = Math.random().toString(36).slice(2);
      next();
    };
    const byHelmet = await appWith(nonceFirst, helmet(helmetOptions));
    const ours = await appWith(pageHeaders(helmet(helmetOptions)));
    const expected = await headersOf(byHelmet);
    const first = await headersOf(ours);
    const second = await headersOf(ours);
    expect(first.headers).toEqual(expected.headers);
    expect(second.headers).toEqual(expected.headers);
    expect(Object.fromEntries(first.headers)["content-security-policy"]).toContain("script-src 'self' 'nonce-<nonce>'");
    expect(Object.fromEntries(first.headers)["strict-transport-security"]).toBe("max-age=31536000; includeSubDomains");
    // 16 random bytes, a new one each time.
    expect(Buffer.from(first.nonce, "base64")).toHaveLength(16);
    expect(second.nonce).not.toBe(first.nonce);
  });

  it("give every response a nonce of its own, also past the pool's 256", async () => {
    const ours = await appWith(pageHeaders(helmet(helmetOptions)));
    const nonces = new Set<string>();
    for (let i = 0; i < 300; i++) nonces.add((await headersOf(ours)).nonce);
    expect(nonces.size).toBe(300);
  });
});
