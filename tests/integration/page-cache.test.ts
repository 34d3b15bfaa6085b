/**
 * The micro-cache for anonymous pages (ADR 019), against the built server: a hit carries its own CSP nonce
 * (the header's, on every script tag) and its own page view, which is recorded; a visitor with a session
 * never gets a stored page and never leaves one; the currency and consent variants never mix; and a change
 * to a gig's price, the exchange rate or a gig's status shows on the next request, whether it was made in
 * the serving process (a form post) or in another one (an operation run here, heard over Redis).
 */
// Drops are published on a channel named by QUEUE_PREFIX: this file's own, shared with its server, so the
// operations run here reach it and no other file's reach it.
process.env.QUEUE_PREFIX = `t_pagecache_${process.pid}_${Date.now()}`;

import http from "node:http";
import zlib from "node:zlib";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { streamEntries } from "~/analytics/ingest-stream.server";
import type { Actor } from "~/operations/core.server";
import { setCategoryHidden } from "~/operations/categories.server";
import { setUsdRate } from "~/operations/exchange-rates.server";
import { saveGig } from "~/operations/gigs.server";
import { getEnv } from "~/server/env.server";
import { dropChannel } from "~/server/page-cache.server";
import { gigFormSchema } from "~/schemas/gig";
import { closeRedis, createRedis } from "~/server/redis.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createGig, createSession, createUser, type TestUser } from "../support/factories";
import { startTestServer, type TestServer } from "../support/test-server";

const BROWSER = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
const HTML = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
const prefix = process.env.QUEUE_PREFIX!;

let t: TestDatabase;
let server: TestServer;
let redis: Redis;
/** This file's own listener on the drop channel, and how many drops it has heard. */
let listener: Redis;
let dropsHeard = 0;
let seller: TestUser;
let buyer: TestUser;
let admin: TestUser;
let sellerToken: string;
let buyerToken: string;
let gigId: number;

const client = { ip: "203.0.113.9", userAgent: BROWSER, analyticsConsent: false, tabSessionId: null };
const member = (u: TestUser): Actor => ({
  kind: "member",
  user: {
    sessionId: "test",
    id: u.id,
    name: u.name,
    username: u.username,
    email: u.email,
    role: u.role,
    preferredCurrency: "UGX",
    timeZone: "EAT",
    language: "en",
  },
  client,
});

beforeAll(async () => {
  t = await createTestDatabase();
  seller = await createUser(t.db, { role: "freelancer", name: "Sarah Namuli" });
  buyer = await createUser(t.db, { role: "client", name: "Brian Okot" });
  admin = await createUser(t.db, { role: "admin", name: "Agnes Admin" });
  sellerToken = await createSession(t.db, seller.id);
  buyerToken = await createSession(t.db, buyer.id);
  ({ id: gigId } = await createGig(t.db, {
    sellerId: seller.id,
    title: "I will design a bold logo for your shop",
    packages: { basic: { priceUgx: 90_000, deliveryDays: 3 } },
  }));
  await setUsdRate(member(admin), { ugxPerUsd: 3_600 }, { db: t.db });
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: prefix, PAGE_CACHE: "on" });
  redis = createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: null });
  listener = createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: null });
  listener.on("message", () => dropsHeard++);
  await listener.subscribe(dropChannel(prefix));
});

afterAll(async () => {
  await listener?.quit();
  await server?.stop();
  if (redis) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  }
  await closeRedis();
  await t?.drop();
});

type Page = { status: number; cache: string | null; html: string; nonce: string };

async function get(path: string, { cookie, headers = {} }: { cookie?: string; headers?: Record<string, string> } = {}): Promise<Page> {
  const res = await fetch(`${server.baseUrl}${path}`, {
    redirect: "manual",
    headers: { Accept: HTML, "User-Agent": BROWSER, ...(cookie ? { Cookie: cookie } : {}), ...headers },
  });
  const csp = res.headers.get("content-security-policy") ?? "";
  return {
    status: res.status,
    cache: res.headers.get("x-page-cache"),
    html: await res.text(),
    nonce: /'nonce-([^']+)'/.exec(csp)?.[1] ?? "",
  };
}

const pageviewOf = (html: string) => /<meta name="soko-pageview" content="([^"]+)"/.exec(html)?.[1] ?? null;
const scriptNonces = (html: string) => [...html.matchAll(/<script[^>]*\snonce="([^"]*)"/g)].map((m) => m[1]);
const queuedIds = async () => new Set((await streamEntries(redis, prefix)).flatMap((entry) => entry.events.map((e) => e.event_id)));

/**
 * Runs an operation here, in another process than the server's, and returns once a listener of the drop
 * channel has heard its drop. Redis answers the PUBLISH before it has necessarily written the message to every
 * subscriber (on a loaded machine the test's next request could reach the server first); once a listener has
 * it, Redis has written it to all of them, the server's included, and the server reads it in the same turn as
 * a request sent after (ADR 019).
 */
async function fromAnotherProcess<T>(operation: () => Promise<T>): Promise<T> {
  const before = dropsHeard;
  const result = await operation();
  await expect.poll(() => dropsHeard, { timeout: 5_000, interval: 5 }).toBeGreaterThan(before);
  return result;
}

/** Asks until the answer comes from the cache (a first request may meet a build another one started). */
async function cached(path: string, cookie?: string): Promise<Page> {
  await get(path, { cookie });
  const page = await get(path, { cookie });
  expect(page.cache).toBe("fresh");
  return page;
}

describe("anonymous page cache", () => {
  it("gives every hit its own nonce, on the CSP header and every script tag, and its own page view, which is recorded", async () => {
    const first = await get("/terms");
    const hits = [await get("/terms"), await get("/terms"), await get("/terms")];
    expect(first.cache).toBe("miss");
    expect(hits.map((h) => h.cache)).toEqual(["fresh", "fresh", "fresh"]);
    const all = [first, ...hits];
    for (const page of all) {
      expect(page.status).toBe(200);
      expect(page.html).toContain("Terms of Service");
      expect(page.nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
      const nonces = scriptNonces(page.html);
      expect(nonces.length).toBeGreaterThan(0);
      expect(new Set(nonces)).toEqual(new Set([page.nonce]));
      expect(page.html).not.toMatch(/pcn[0-9a-f]{24}|pcv[0-9a-f]{24}/);
    }
    expect(new Set(all.map((p) => p.nonce)).size).toBe(all.length);

    const views = all.map((p) => pageviewOf(p.html));
    for (const view of views) expect(view).toMatch(/^[0-9a-f-]{36} \d{13}$/);
    expect(new Set(views).size).toBe(all.length);
    // The tracker's copy in the loader data is the same view.
    for (const [i, page] of all.entries()) expect(page.html.split(views[i]!).length - 1).toBe(2);
    const ids = views.map((v) => v!.split(" ")[0]!);
    await expect
      .poll(
        async () => {
          const queued = await queuedIds();
          return ids.filter((id) => queued.has(id));
        },
        { timeout: 5_000 },
      )
      .toEqual(ids);
  });

  it("sends hits gzipped from parts compressed once per page: a valid stream (CRC and length) with the response's own nonce and page view", async () => {
    const raw = (encoding: string) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const req = http.get(
          `${server.baseUrl}/browse?ref=gzip`,
          { headers: { Accept: HTML, "User-Agent": BROWSER, "Accept-Encoding": encoding }, agent: false },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          },
        );
        req.on("error", reject);
      });
    const answers = [await raw("gzip"), await raw("gzip"), await raw("gzip, br"), await raw("identity")];
    expect(answers.map((a) => a.headers["x-page-cache"])).toEqual(["miss", "fresh", "fresh", "fresh"]);
    const pages = answers.map(({ headers, body }, i) => {
      // The miss goes through compression() as any page does (chunked); hits carry their length.
      if (i > 0) expect(Number(headers["content-length"])).toBe(body.length);
      const gzipped = headers["content-encoding"] === "gzip";
      // gunzipSync checks the trailer's CRC-32 and length against what it decompressed.
      const html = (gzipped ? zlib.gunzipSync(body) : body).toString("utf8");
      const nonce = /'nonce-([^']+)'/.exec(String(headers["content-security-policy"]))![1]!;
      expect(new Set(scriptNonces(html))).toEqual(new Set([nonce]));
      expect(html).toContain("I will design a bold logo for your shop");
      expect(html).toContain("streamController.close()"); // the whole document, to its last script
      return { gzipped, html, nonce, view: pageviewOf(html) };
    });
    expect(pages.map((p) => p.gzipped)).toEqual([true, true, true, false]);
    expect(new Set(pages.map((p) => p.nonce)).size).toBe(4);
    expect(new Set(pages.map((p) => p.view)).size).toBe(4);
    // Apart from the nonce and the page view, every answer is the same page.
    const plain = (p: (typeof pages)[number]) => p.html.replaceAll(p.nonce, "N").replaceAll(p.view!, "V");
    expect(new Set(pages.map(plain)).size).toBe(1);
  });

  it("never serves a stored page to a visitor with a session, and never stores theirs", async () => {
    const anonymous = await cached(`/gig/${gigId}`);
    expect(anonymous.html).not.toContain(buyer.name);

    const signedIn = await get(`/gig/${gigId}`, { cookie: `soko_session=${buyerToken}` });
    expect(signedIn.status).toBe(200);
    expect(signedIn.cache).toBeNull();
    expect(signedIn.html).toContain(buyer.name);

    // A member's page of a path nobody has asked for is not kept for the next visitor either.
    const theirs = await get("/help?from=member", { cookie: `soko_session=${sellerToken}` });
    expect(theirs.cache).toBeNull();
    expect(theirs.html).toContain(seller.name);
    const next = await get("/help?from=member");
    expect(next.cache).toBe("miss");
    expect(next.html).not.toContain(seller.name);

    // Pages that show state no drop reaches (a reset link's) are never cached, for anyone.
    await get("/reset-password?token=not-a-token");
    expect((await get("/reset-password?token=not-a-token")).cache).toBeNull();
    // A session cookie that names no session still bypasses the cache, and so does a Bearer token.
    expect((await get(`/gig/${gigId}`, { cookie: "soko_session=not-a-session" })).cache).toBeNull();
    expect((await get(`/gig/${gigId}`, { headers: { Authorization: `Bearer ${buyerToken}` } })).cache).toBeNull();
  });

  it("keeps the currency and consent variants apart", async () => {
    const path = `/gig/${gigId}?ref=variants`;
    const ugx = await cached(path);
    expect(ugx.html).toContain("UGX 90,000");
    expect(ugx.html).toContain('id="consent-banner-title"');

    const usd = await get(path, { cookie: "soko_currency=USD" });
    expect(usd.cache).toBe("miss");
    expect(usd.html).toContain("USD 25.00");
    expect(usd.html).not.toContain("UGX 90,000");
    expect((await get(path, { cookie: "soko_currency=USD" })).cache).toBe("fresh");

    const denied = await get(path, { cookie: "soko_consent=denied" });
    expect(denied.cache).toBe("miss");
    expect(denied.html).not.toContain('id="consent-banner-title"');
    const deniedUsd = await get(path, { cookie: "soko_consent=denied; soko_currency=USD" });
    expect(deniedUsd.cache).toBe("miss");
    expect(deniedUsd.html).toContain("USD 25.00");
    expect(deniedUsd.html).not.toContain('id="consent-banner-title"');

    // Each variant still answers with its own page; cookies the page does not read share one.
    const again = await get(path, { cookie: "soko_sid=abc; soko_currency=USD" });
    expect(again.cache).toBe("fresh");
    expect(again.html).toContain("USD 25.00");
    const plain = await get(path);
    expect(plain.cache).toBe("fresh");
    expect(plain.html).toContain("UGX 90,000");
    expect(plain.html).toContain('id="consent-banner-title"');
    // The query's order does not make another page.
    expect((await get(`/browse?sort=newest&category=graphics-design`)).status).toBe(200);
    expect((await get(`/browse?category=graphics-design&sort=newest`)).cache).toBe("fresh");
  });

  it("shows a price or exchange-rate change made in another process on the next request", async () => {
    const path = `/gig/${gigId}`;
    expect((await cached(path)).html).toContain("UGX 90,000");
    expect((await cached(path, "soko_currency=USD")).html).toContain("USD 25.00");

    const value = gigFormSchema("publish").parse({
      title: "I will design a bold logo for your shop",
      category: "graphics-design",
      description: "Three concepts and the files for print and the web.",
      basic: { price: "120000", delivery: "3" },
      standard: {},
      premium: {},
    });
    const saved = await fromAnotherProcess(() => saveGig(member(seller), { intent: "publish", gig: value, gigId }, { db: t.db }));
    expect(saved.ok).toBe(true);
    const after = await get(path);
    expect(after.cache).toBe("miss");
    expect(after.html).toContain("UGX 120,000");
    expect(after.html).not.toContain("UGX 90,000");

    expect((await fromAnotherProcess(() => setUsdRate(member(admin), { ugxPerUsd: 4_000 }, { db: t.db }))).ok).toBe(true);
    const usd = await get(path, { cookie: "soko_currency=USD" });
    expect(usd.cache).toBe("miss");
    expect(usd.html).toContain("USD 30.00");
  });

  it("serves data requests from the cache too, without a page view", async () => {
    const path = `/gig/${gigId}.data?_routes=routes%2Fgig.%24id`;
    const first = await get(path);
    const hit = await get(path);
    expect(first.cache).toBe("miss");
    expect(hit.cache).toBe("fresh");
    expect(hit.html).toBe(first.html);
    expect(hit.html).toContain("I will design a bold logo for your shop");
    expect(hit.html).not.toMatch(/pcn[0-9a-f]{24}|pcv[0-9a-f]{24}/);
  });

  it("drops the landing page and the catalog's category choices when an admin hides or shows a category", async () => {
    const local = await t.db("categories").where({ slug: "local-services" }).first("id");
    const card = 'href="/browse?category=local-services"';
    const choice = '<option value="local-services"';
    expect((await cached("/")).html).toContain(card);
    expect((await cached("/browse")).html).toContain(choice);
    expect((await fromAnotherProcess(() => setCategoryHidden(member(admin), { intent: "hide", categoryId: local.id }, { db: t.db }))).ok).toBe(true);
    const home = await get("/");
    expect(home.cache).toBe("miss");
    expect(home.html).not.toContain(card);
    expect((await get("/browse")).html).not.toContain(choice);
    expect((await fromAnotherProcess(() => setCategoryHidden(member(admin), { intent: "show", categoryId: local.id }, { db: t.db }))).ok).toBe(true);
    expect((await get("/")).html).toContain(card);
  });

  it("shows a change made through the serving process itself on the next request", async () => {
    const browse = await cached("/browse?category=graphics-design");
    expect(browse.html).toContain("I will design a bold logo for your shop");
    const paused = await fetch(`${server.baseUrl}/gig/${gigId}/edit`, {
      method: "POST",
      redirect: "manual",
      headers: { Cookie: `soko_session=${sellerToken}`, Origin: server.baseUrl, "Content-Type": "application/x-www-form-urlencoded" },
      body: "intent=pause",
    });
    expect(paused.status).toBe(302);
    const after = await get("/browse?category=graphics-design");
    expect(after.cache).toBe("miss");
    expect(after.html).not.toContain("I will design a bold logo for your shop");
    expect((await get(`/gig/${gigId}`)).status).toBe(404);
  });
});
