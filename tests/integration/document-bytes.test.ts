/**
 * Rendered documents are exactly the UTF-8 of their text: no NUL byte and no U+FFFD anywhere. React 18's
 * node renderer encodes into 2 KB views and, where a character of two to four bytes did not fit at the end of
 * a view, sent the whole view with its unwritten tail of zero bytes. So the pages here are checked with the
 * demo data and with a seller whose name, bio, gigs and reviews are many short runs of multi-byte characters
 * (Luganda's ŋ, "★", "—", "é", emoji) of varied lengths, so that view boundaries fall inside characters at
 * every offset; each as sent raw, gzipped and brotli'd, rendered and from the anonymous page cache.
 */
// The page cache's drops go over a channel named by QUEUE_PREFIX: this file's own.
process.env.QUEUE_PREFIX = `t_docbytes_${process.pid}_${Date.now()}`;

import http from "node:http";
import zlib from "node:zlib";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEnv } from "~/server/env.server";
import { closeRedis, createRedis } from "~/server/redis.server";
import { seedDemoData } from "../../scripts/lib/seed";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createGig, createReview, createSession, createUser, type TestUser } from "../support/factories";
import { decode } from "../support/html";
import { startTestServer, type TestServer } from "../support/test-server";

const prefix = process.env.QUEUE_PREFIX!;

// One to four bytes each in UTF-8, so a run's byte length is not a multiple of any one of them.
const CHARACTERS = ["ŋ", "Ŋ", "★", "—", "é", "😀", "a", " ", "ü", "🇺🇬", "ñ", "“", "”", "ẅ"];

/** `length` characters drawn from CHARACTERS by a fixed sequence (the same text on every run). */
function mixed(length: number, seed: number): string {
  let out = "";
  let x = seed * 7919 + 17;
  while (out.length < length) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += CHARACTERS[x % CHARACTERS.length];
  }
  return out;
}

let t: TestDatabase;
let rendered: TestServer;
let cached: TestServer;
let redis: Redis;
let seller: TestUser;
let sellerToken: string;
const gigIds: number[] = [];
let demoGigId: number;
let demoSeller: string;
const titles: string[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  await seedDemoData(t.db);
  seller = await createUser(t.db, { role: "freelancer", name: `Ŋaŋga Nakato ${mixed(20, 1)}`, username: "nganga_nakato" });
  await t
    .db("users")
    .where({ id: seller.id })
    .update({ bio: mixed(600, 2), location: `Kampala — ${mixed(9, 3)}` });
  sellerToken = await createSession(t.db, seller.id);
  const reviewers = await Promise.all(
    Array.from({ length: 9 }, (_, i) => createUser(t.db, { name: `Ékù ${mixed(5 + i, 40 + i)}`, username: `mb_reviewer_${i}` })),
  );
  for (let g = 0; g < 4; g++) {
    const title = `Ŋ ${mixed(40 + g * 7, 10 + g)}`;
    titles.push(title);
    const { id } = await createGig(t.db, {
      sellerId: seller.id,
      title,
      description: Array.from({ length: 12 }, (_, p) => mixed(90 + ((p * 37 + g * 11) % 300), 100 + g * 20 + p)).join("\n\n"),
      tags: [mixed(8, 200 + g), mixed(11, 300 + g)],
      packages: {
        basic: { priceUgx: 75_000, deliveryDays: 3, description: mixed(80 + g, 400 + g), features: [mixed(20, 500 + g), mixed(23, 600 + g)] },
        standard: { priceUgx: 150_000, deliveryDays: 7, description: mixed(95 + g, 700 + g) },
      },
    });
    gigIds.push(id);
    for (const [r, reviewer] of reviewers.entries()) {
      await createReview(t.db, {
        gigId: id,
        reviewerId: reviewer.id,
        rating: 1 + ((r + g) % 5),
        comment: mixed(31 + ((r * 53 + g * 29) % 560), 1000 + g * 50 + r),
      });
    }
  }
  const demo = await t
    .db("gigs")
    .join("users", "users.id", "gigs.seller_id")
    .where("gigs.status", "published")
    .orderBy("gigs.reviews_count", "desc")
    .first("gigs.id", "users.username");
  demoGigId = Number(demo.id);
  demoSeller = demo.username;
  [rendered, cached] = await Promise.all([
    startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: `${prefix}_off` }),
    startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: prefix, PAGE_CACHE: "on" }),
  ]);
  redis = createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  await Promise.all([rendered?.stop(), cached?.stop()]);
  if (redis) {
    const keys = [...(await redis.keys(`${prefix}:*`)), ...(await redis.keys(`${prefix}_off:*`))];
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  }
  await closeRedis();
  await t?.drop();
});

const ENCODINGS = ["identity", "gzip", "br"] as const;

/** The page's body as the browser has it once the Content-Encoding is taken off (read raw: fetch would decode it). */
function bodyOf(server: TestServer, path: string, encoding: (typeof ENCODINGS)[number], cookie?: string) {
  return new Promise<{ status: number; bytes: Buffer; cache: string | undefined }>((resolve, reject) => {
    const headers = { "accept-encoding": encoding, accept: "text/html", ...(cookie ? { cookie } : {}) };
    http
      .get(`${server.baseUrl}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const raw = Buffer.concat(chunks);
          const sent = res.headers["content-encoding"];
          const bytes = sent === "gzip" ? zlib.gunzipSync(raw) : sent === "br" ? zlib.brotliDecompressSync(raw) : raw;
          resolve({ status: res.statusCode!, bytes, cache: res.headers["x-page-cache"] as string | undefined });
        });
      })
      .on("error", reject);
  });
}

/** Fails naming the page, the place and the bytes around it. */
function expectCleanUtf8(page: string, bytes: Buffer) {
  const nul = bytes.indexOf(0);
  expect(
    nul,
    `${page}: a 0x00 byte at ${nul} of ${bytes.length}, around ${JSON.stringify(bytes.subarray(Math.max(0, nul - 24), nul + 8).toString("latin1"))}`,
  ).toBe(-1);
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  const bad = text.indexOf("\uFFFD");
  expect(bad, `${page}: U+FFFD at character ${bad}: ${JSON.stringify(text.slice(Math.max(0, bad - 24), bad + 8))}`).toBe(-1);
  // Decoding again strictly throws on any byte sequence that is not UTF-8.
  expect(() => new TextDecoder("utf-8", { fatal: true }).decode(bytes), page).not.toThrow();
  return text;
}

describe("rendered documents hold exactly their text's UTF-8", () => {
  const visitorPages = () => [
    "/",
    "/browse",
    "/browse?sort=rating",
    `/gig/${demoGigId}`,
    `/user/${demoSeller}`,
    ...gigIds.map((id) => `/gig/${id}`),
    `/user/${seller.username}`,
    `/user/${seller.username}?reviews=2`,
    `/search?q=${encodeURIComponent(titles[0]!.split(" ").slice(0, 3).join(" "))}`,
    `/search?q=${encodeURIComponent("logo — ŋ ★")}`,
    "/help",
    "/terms",
    "/no/such/page/ŋ★",
  ];

  it("a visitor's pages, rendered, in every encoding", async () => {
    let multiByte = 0;
    for (const path of visitorPages()) {
      for (const encoding of ENCODINGS) {
        const { status, bytes } = await bodyOf(rendered, path, encoding);
        expect([200, 404], `${path} ${status}`).toContain(status);
        const text = expectCleanUtf8(`${path} (${encoding})`, bytes);
        if (titles.some((title) => decode(text).includes(title))) multiByte++;
      }
    }
    // The seller's gigs, profile and search really showed the multi-byte titles.
    expect(multiByte).toBeGreaterThanOrEqual(3 * (gigIds.length + 2));
  });

  it("the seller's own pages, signed in", async () => {
    const cookie = `soko_session=${sellerToken}`;
    for (const path of ["/", "/dashboard", ...gigIds.map((id) => `/gig/${id}`), `/user/${seller.username}`, "/settings", `/gig/${gigIds[0]}/edit`]) {
      const { status, bytes } = await bodyOf(rendered, path, "identity", cookie);
      expect(status, path).toBe(200);
      expectCleanUtf8(`${path} (signed in)`, bytes);
    }
  });

  it("a visitor's pages from the anonymous page cache: the miss that stores them and the hits", async () => {
    for (const path of visitorPages()) {
      for (const encoding of ENCODINGS) {
        const first = await bodyOf(cached, path, encoding);
        expectCleanUtf8(`${path} (${encoding}, ${first.cache})`, first.bytes);
        const again = await bodyOf(cached, path, encoding);
        expectCleanUtf8(`${path} (${encoding}, ${again.cache})`, again.bytes);
      }
    }
  });
});
