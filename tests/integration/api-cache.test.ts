/**
 * The JSON API's shared reads (ADR 042), against the built server with the micro-cache on: a catalog answer is
 * built once and served to every caller, visitor or member, still under each caller's rate limits; what a
 * member may see beyond a visitor (their own paused gig) is their own answer and never stored; and a change
 * shows on the next call, whether it was made through the serving process or by an operation run elsewhere.
 */
import http from "node:http";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Actor } from "~/operations/core.server";
import { pauseGig } from "~/operations/gigs.server";
import { closeRedis, createRedis } from "~/server/redis.server";
import { getEnv } from "~/server/env.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createGig, createUser, type TestUser } from "../support/factories";
import { startTestServer, type TestServer } from "../support/test-server";
import { apiClient, createAppToken } from "../support/api";

// Drops are published on a channel named by QUEUE_PREFIX: this file's own, shared with its server, so the
// operation run here reaches it.
const { prefix } = vi.hoisted(() => {
  const prefix = `t_apicache_${process.pid}_${Date.now()}`;
  process.env.QUEUE_PREFIX = prefix;
  return { prefix };
});

const TOKEN_LIMIT = 6;
const HIT = ["fresh", "stale"];

let t: TestDatabase;
let server: TestServer;
let api: ReturnType<typeof apiClient>;
let seller: TestUser;
let buyer: TestUser;
let sellerToken: string;
let buyerToken: string;
let gigId: number;

beforeAll(async () => {
  expect(getEnv().QUEUE_PREFIX).toBe(prefix);
  t = await createTestDatabase();
  seller = await createUser(t.db, { role: "freelancer", name: "Nakato Sarah", username: "nakato_cache" });
  buyer = await createUser(t.db, { role: "client", name: "Apio Grace", username: "apio_cache" });
  sellerToken = await createAppToken(t.db, seller.id);
  buyerToken = await createAppToken(t.db, buyer.id);
  ({ id: gigId } = await createGig(t.db, {
    sellerId: seller.id,
    title: "I will design a bold logo for your shop",
    packages: { basic: { priceUgx: 90_000, deliveryDays: 3 } },
  }));
  server = await startTestServer({
    DATABASE_URL: t.url,
    QUEUE_PREFIX: prefix,
    PAGE_CACHE: "on",
    TRUST_PROXY: "loopback",
    API_TOKEN_RATE_LIMIT: String(TOKEN_LIMIT),
  });
  api = apiClient(server.baseUrl);
});

afterAll(async () => {
  await server?.stop();
  const redis = createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await closeRedis();
  await t?.drop();
});

/** Each test's calls come from their own address, so the per-address limits of one test never meet another's. */
let address = 0;
const from = () => ({ "X-Forwarded-For": `198.51.100.${++address}` });

const sellerActor = (): Actor => ({
  kind: "member",
  user: {
    sessionId: "test",
    id: seller.id,
    name: seller.name,
    username: seller.username,
    email: seller.email,
    role: "freelancer",
    preferredCurrency: "UGX",
    timeZone: "EAT",
    language: "en",
  },
  client: { ip: "203.0.113.9", userAgent: "test", analyticsConsent: false, tabSessionId: null },
});

describe("shared reads", () => {
  it("builds a catalog page once and serves the same answer to a visitor and to members, each checked against the document", async () => {
    const headers = from();
    const path = "/gigs?category=graphics-design&sort=rating";
    const first = await api.call("get", "/gigs", path, { headers });
    const byBuyer = await api.call("get", "/gigs", path, { token: buyerToken, headers });
    const bySeller = await api.call("get", "/gigs", path, { token: sellerToken, headers });
    expect(first.status).toBe(200);
    expect(first.headers.get("x-page-cache")).toBe("miss");
    // A hit: fresh, or stale (being rebuilt) when a slow machine took over 5 s between the calls.
    expect(HIT).toContain(byBuyer.headers.get("x-page-cache"));
    expect(HIT).toContain(bySeller.headers.get("x-page-cache"));
    expect(first.body.data.items.map((g: { id: number }) => g.id)).toEqual([gigId]);
    expect(byBuyer.body).toEqual(first.body);
    expect(bySeller.body).toEqual(first.body);
    // The same query spelt with its default filled in is the same answer.
    expect(HIT).toContain((await api.send("get", `${path}&limit=20`, { headers })).headers.get("x-page-cache"));
    for (const answer of [first, byBuyer]) expect(answer.headers.get("cache-control")).toBe("no-store");
  });

  it("sends a hit gzipped when the caller accepts it, decoding to the same answer", async () => {
    const headers = from();
    const plain = (await api.send("get", `/gigs/${gigId}`, { headers })).body;
    // node:http, not fetch, which would decode the body before the test sees it.
    const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get(`${server.baseUrl}/api/v1/gigs/${gigId}`, { headers: { ...headers, "Accept-Encoding": "gzip" } }, resolve).on("error", reject),
    );
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    expect(HIT).toContain(res.headers["x-page-cache"]);
    expect(res.headers["content-encoding"]).toBe("gzip");
    const body = JSON.parse(zlib.gunzipSync(Buffer.concat(chunks)).toString("utf8"));
    expect(body).toEqual(plain);
    expect(body.data.startingPrice.ugx).toBe(90_000);
  });

  it("still counts every call, hit or not, against the caller's token", async () => {
    const member = await createUser(t.db, { role: "client", name: "Okot Brian", username: "okot_cache" });
    const token = await createAppToken(t.db, member.id);
    const headers = from();
    const statuses: number[] = [];
    for (let i = 0; i < TOKEN_LIMIT + 1; i++) statuses.push((await api.send("get", "/gigs/featured", { token, headers })).status);
    expect(statuses).toEqual([...Array(TOKEN_LIMIT).fill(200), 429]);
  });

  it("gives the seller their own paused gig and never stores it for anyone else; a visitor's 404 is not stored either", async () => {
    const { id: pausedId } = await createGig(t.db, { sellerId: seller.id, title: "A paused gig of the seller", status: "paused" });
    const headers = from();
    const visitor = await api.call("get", "/gigs/{id}", `/gigs/${pausedId}`, { headers });
    expect(visitor.status).toBe(404);
    const own = await api.call("get", "/gigs/{id}", `/gigs/${pausedId}`, { token: sellerToken, headers });
    expect(own.status).toBe(200);
    expect(own.body.data).toMatchObject({ id: pausedId, status: "paused", title: "A paused gig of the seller" });
    const buyerSees = await api.call("get", "/gigs/{id}", `/gigs/${pausedId}`, { token: buyerToken, headers });
    expect(buyerSees.status).toBe(404);
    expect((await api.send("get", `/gigs/${pausedId}`, { headers })).headers.get("x-page-cache")).toBe("miss");
  });

  it("shows a change on the next call: a gig paused by an operation in another process is gone from the catalog and its page", async () => {
    const { id } = await createGig(t.db, {
      sellerId: seller.id,
      title: "I will paint a shop sign in a day",
      packages: { basic: { priceUgx: 50_000, deliveryDays: 1 } },
    });
    const headers = from();
    await api.send("get", `/gigs/${id}`, { headers });
    await api.send("get", "/gigs/search?q=shop+sign", { headers });
    const hit = await api.send("get", `/gigs/${id}`, { headers });
    expect(HIT).toContain(hit.headers.get("x-page-cache"));
    expect((await api.send("get", "/gigs/search?q=shop+sign", { headers })).body.data.items.map((g: { id: number }) => g.id)).toContain(id);

    // Run here, not in the server: the drop reaches the server over Redis before the operation returns.
    const paused = await pauseGig(sellerActor(), { gigId: id }, { db: t.db });
    expect(paused.ok).toBe(true);
    const after = await api.send("get", `/gigs/${id}`, { headers });
    expect(after.status).toBe(404);
    const search = await api.send("get", "/gigs/search?q=shop+sign", { headers });
    expect(search.headers.get("x-page-cache")).toBe("miss");
    expect(search.body.data.items.map((g: { id: number }) => g.id)).not.toContain(id);
  });

  it("refuses bad input before the cache: a bad cursor is 400 and not stored", async () => {
    const headers = from();
    for (let i = 0; i < 2; i++) {
      const answer = await api.call("get", "/gigs", "/gigs?cursor=not-a-cursor", { headers });
      expect(answer.status).toBe(400);
      expect(answer.body.issues["query.cursor"]).toBeDefined();
      expect(answer.headers.get("x-page-cache")).toBe("miss");
    }
  });
});
