/**
 * The Gigs calls of the JSON API (ADR 041), against the built server: the catalog's filters, sorts and cursor
 * pages, search, featured, a category's and a seller's gigs, one gig; creating, editing, publishing, pausing,
 * resuming and deleting gigs with the editor's rules; adding images. Each answer is checked against the
 * OpenAPI document; refusals are checked to have written nothing.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { closeRedis, createRedis } from "~/server/redis.server";
import { getEnv } from "~/server/env.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createCategory, createGig, createReview, createUser, type TestUser } from "../support/factories";
import { startTestServer, type TestServer } from "../support/test-server";
import { apiClient, createAppToken, type ApiAnswer } from "../support/api";
import { words } from "../support/words";

const { prefix } = vi.hoisted(() => {
  const prefix = `t_apigigs_${process.pid}_${Date.now()}`;
  process.env.QUEUE_PREFIX = prefix;
  return { prefix };
});

let t: TestDatabase;
let server: TestServer;
let api: ReturnType<typeof apiClient>;
let uploadDir: string;
let png: Buffer;
let seller: TestUser;
let other: TestUser;
let client: TestUser;
const tokens: Record<"seller" | "other" | "client", string> = { seller: "", other: "", client: "" };

beforeAll(async () => {
  expect(getEnv().QUEUE_PREFIX).toBe(prefix);
  t = await createTestDatabase();
  uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-api-gigs-"));
  png = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#0a0" } })
    .png()
    .toBuffer();
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: prefix, TRUST_PROXY: "loopback", UPLOAD_DIR: uploadDir });
  api = apiClient(server.baseUrl);
  seller = await createUser(t.db, { role: "freelancer", name: "Nakato Sarah", username: "nakato" });
  other = await createUser(t.db, { role: "freelancer", name: "Okello Brian", username: "okello" });
  client = await createUser(t.db, { role: "client", name: "Apio Grace", username: "apio" });
  tokens.seller = await createAppToken(t.db, seller.id);
  tokens.other = await createAppToken(t.db, other.id);
  tokens.client = await createAppToken(t.db, client.id);
});
afterAll(async () => {
  await server?.stop();
  const redis = createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await closeRedis();
  await t?.drop();
  if (uploadDir) fs.rmSync(uploadDir, { recursive: true, force: true });
});

/** Each test's calls come from their own address, so the per-address limits of one test never meet another's. */
let address = 0;
const from = () => ({ "X-Forwarded-For": `198.51.${100 + Math.floor(++address / 250)}.${(address % 250) + 1}` });

/** A body the editor would publish. */
const validBody = (overrides: Record<string, unknown> = {}) => ({
  title: "I will design a modern logo for your business",
  category: "graphics-design",
  description: "Three logo concepts, your colours, and the files you need for print and the web.",
  tags: ["logo", "branding"],
  packages: {
    basic: { name: "Starter", priceUgx: 75_000, deliveryDays: 3, revisions: 2, features: ["1 concept"] },
    standard: { priceUgx: 150_000, deliveryDays: 7 },
  },
  ...overrides,
});

const gigRow = (id: number) => t.db("gigs").where({ id }).first("id", "title", "status", "seller_id");
const gigsOf = async (userId: number) => Number((await t.db("gigs").where({ seller_id: userId }).count({ n: "*" }).first())!.n);

/** Every item of a list, following nextCursor, with how many pages it took. */
async function allPages(template: string, url: string, options = {}) {
  const ids: number[] = [];
  let pages = 0;
  let cursor: string | null = null;
  do {
    const sep = url.includes("?") ? "&" : "?";
    const answer: ApiAnswer = await api.call("get", template, cursor ? `${url}${sep}cursor=${encodeURIComponent(cursor)}` : url, {
      headers: from(),
      ...options,
    });
    expect(answer.status).toBe(200);
    ids.push(...answer.body.data.items.map((g: { id: number }) => g.id));
    cursor = answer.body.data.nextCursor;
    pages++;
  } while (cursor && pages < 20);
  return { ids, pages };
}

describe("GET /gigs", () => {
  it("lists visible gigs as cards with Money prices, filters and sorts them, and pages by cursor", async () => {
    const category = "video-animation";
    const cheap = await createGig(t.db, {
      sellerId: seller.id,
      category,
      title: "Short video edit",
      packages: { basic: { priceUgx: 50_000, deliveryDays: 1 } },
      rating: 4.8,
      reviewsCount: 3,
    });
    const mid = await createGig(t.db, {
      sellerId: seller.id,
      category,
      title: "Explainer video",
      packages: { basic: { priceUgx: 200_000, deliveryDays: 7 } },
      rating: 4.2,
      reviewsCount: 1,
    });
    const dear = await createGig(t.db, {
      sellerId: other.id,
      category,
      title: "Advert animation",
      packages: { basic: { priceUgx: 900_000, deliveryDays: 14 } },
      rating: 3.0,
    });
    await createGig(t.db, { sellerId: seller.id, category, title: "Draft video", status: "draft" });
    await createGig(t.db, { sellerId: seller.id, category, title: "Paused video", status: "paused" });

    const all = await api.call("get", "/gigs", `/gigs?category=${category}&sort=price-low`, { headers: from() });
    expect(all.status).toBe(200);
    expect(all.body.data.items.map((g: { id: number }) => g.id)).toEqual([cheap.id, mid.id, dear.id]);
    expect(all.body.data.nextCursor).toBeNull();
    const card = all.body.data.items[0];
    expect(card).toMatchObject({
      id: cheap.id,
      title: "Short video edit",
      status: "published",
      seller: { id: seller.id, name: "Nakato Sarah", username: "nakato" },
      startingPrice: { ugx: 50_000 },
      rating: 4.8,
      reviewsCount: 3,
      image: null,
      category: { slug: category, name: "Video & Animation" },
    });

    const byPrice = await api.call("get", "/gigs", `/gigs?category=${category}&price=under-100000`, { headers: from() });
    expect(byPrice.body.data.items.map((g: { id: number }) => g.id)).toEqual([cheap.id]);
    const byRating = await api.call("get", "/gigs", `/gigs?category=${category}&rating=4&sort=rating`, { headers: from() });
    expect(byRating.body.data.items.map((g: { id: number }) => g.id)).toEqual([cheap.id, mid.id]);
    const byDelivery = await api.call("get", "/gigs", `/gigs?category=${category}&delivery=7&sort=price-high`, { headers: from() });
    expect(byDelivery.body.data.items.map((g: { id: number }) => g.id)).toEqual([mid.id, cheap.id]);

    const paged = await allPages("/gigs", `/gigs?category=${category}&sort=price-low&limit=2`);
    expect(paged.ids).toEqual([cheap.id, mid.id, dear.id]);
    expect(paged.pages).toBe(2);
  });

  it("refuses a bad cursor, an unknown filter value and a limit over 100 beside each field", async () => {
    const cursor = await api.call("get", "/gigs", "/gigs?cursor=not-a-cursor", { headers: from() });
    expect(cursor.status).toBe(400);
    expect(Object.keys(cursor.body.issues)).toEqual(["query.cursor"]);
    // A real cursor of another sort does not fit this one either.
    await createGig(t.db, { sellerId: seller.id, category: "digital-marketing" });
    await createGig(t.db, { sellerId: seller.id, category: "digital-marketing" });
    const first = await api.call("get", "/gigs", "/gigs?category=digital-marketing&sort=price-low&limit=1", { headers: from() });
    const other = await api.call("get", "/gigs", `/gigs?sort=relevance&cursor=${first.body.data.nextCursor}`, { headers: from() });
    expect(other.status).toBe(400);
    expect(other.body.issues["query.cursor"]).toBeDefined();
    const bad = await api.call("get", "/gigs", "/gigs?price=cheap&limit=500", { headers: from() });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.issues).sort()).toEqual(["query.limit", "query.price"]);
  });
});

describe("GET /gigs/search", () => {
  it("finds gigs by their words with the browse filters, and needs q", async () => {
    const cheap = await createGig(t.db, { sellerId: seller.id, title: "Zebracorn mascot drawing", packages: { basic: { priceUgx: 40_000, deliveryDays: 3 } } });
    const dear = await createGig(t.db, { sellerId: other.id, title: "Zebracorn brand book", packages: { basic: { priceUgx: 700_000, deliveryDays: 7 } } });
    await createGig(t.db, { sellerId: seller.id, title: "Zebracorn draft", status: "draft" });
    const found = await api.call("get", "/gigs/search", "/gigs/search?q=zebracorn", { headers: from() });
    expect(found.status).toBe(200);
    expect(found.body.data.items.map((g: { id: number }) => g.id).sort()).toEqual([cheap.id, dear.id].sort());
    const filtered = await api.call("get", "/gigs/search", "/gigs/search?q=zebracorn&price=above-500000", { headers: from() });
    expect(filtered.body.data.items.map((g: { id: number }) => g.id)).toEqual([dear.id]);
    const paged = await allPages("/gigs/search", "/gigs/search?q=zebracorn&limit=1");
    expect(paged.ids.sort()).toEqual([cheap.id, dear.id].sort());
    const none = await api.call("get", "/gigs/search", "/gigs/search", { headers: from() });
    expect(none.status).toBe(400);
    expect(Object.keys(none.body.issues)).toEqual(["query.q"]);
    const badCursor = await api.call("get", "/gigs/search", "/gigs/search?q=zebracorn&cursor=WyIxIl0", { headers: from() });
    expect(badCursor.status).toBe(400);
    expect(Object.keys(badCursor.body.issues)).toEqual(["query.cursor"]);
  });
});

describe("GET /gigs/featured", () => {
  it("answers the landing's featured gigs first", async () => {
    const featured = await createGig(t.db, { sellerId: other.id, featured: true, rating: 3 });
    const answer = await api.call("get", "/gigs/featured", "/gigs/featured?limit=3", { headers: from() });
    expect(answer.status).toBe(200);
    expect(answer.body.data.items[0].id).toBe(featured.id);
    expect(answer.body.data.items.length).toBeLessThanOrEqual(3);
    expect(answer.body.data.nextCursor).toBeNull();
    expect((await api.call("get", "/gigs/featured", "/gigs/featured?limit=0", { headers: from() })).status).toBe(400);
  });
});

describe("GET /gigs/category/{id}", () => {
  it("lists a category's gigs by slug or number; an unknown or hidden one is 404", async () => {
    const category = await createCategory(t.db, { slug: "local-services" });
    const gig = await createGig(t.db, { sellerId: seller.id, category: "local-services" });
    const bySlug = await api.call("get", "/gigs/category/{id}", "/gigs/category/local-services", { headers: from() });
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.data.items.map((g: { id: number }) => g.id)).toEqual([gig.id]);
    const byId = await api.call("get", "/gigs/category/{id}", `/gigs/category/${category.id}`, { headers: from() });
    expect(byId.body.data.items.map((g: { id: number }) => g.id)).toEqual([gig.id]);
    expect((await api.call("get", "/gigs/category/{id}", "/gigs/category/no-such-thing", { headers: from() })).status).toBe(404);
    const hidden = await createCategory(t.db, { slug: "hidden-things" });
    await t.db("categories").where({ id: hidden.id }).update({ hidden: true });
    expect((await api.call("get", "/gigs/category/{id}", "/gigs/category/hidden-things", { headers: from() })).status).toBe(404);
  });
});

describe("GET /gigs/user/{id}", () => {
  it("lists a seller's published gigs; the seller also sees their drafts and paused gigs", async () => {
    const maker = await createUser(t.db, { role: "freelancer", username: "mukasa" });
    const published = await createGig(t.db, { sellerId: maker.id });
    const draft = await createGig(t.db, { sellerId: maker.id, status: "draft", packages: {} });
    const paused = await createGig(t.db, { sellerId: maker.id, status: "paused" });
    const publicly = await api.call("get", "/gigs/user/{id}", "/gigs/user/mukasa", { headers: from() });
    expect(publicly.status).toBe(200);
    expect(publicly.body.data.items.map((g: { id: number }) => g.id)).toEqual([published.id]);
    const toOther = await api.call("get", "/gigs/user/{id}", `/gigs/user/${maker.id}`, { headers: from(), token: tokens.other });
    expect(toOther.body.data.items.map((g: { id: number }) => g.id)).toEqual([published.id]);
    const own = await allPages("/gigs/user/{id}", `/gigs/user/${maker.id}?limit=2`, { token: await createAppToken(t.db, maker.id) });
    expect(own.ids).toEqual([paused.id, draft.id, published.id]);
    expect(own.pages).toBe(2);
    expect((await api.call("get", "/gigs/user/{id}", "/gigs/user/nobody_here", { headers: from() })).status).toBe(404);
    const bad = await api.call("get", "/gigs/user/{id}", "/gigs/user/mukasa?cursor=abc", { headers: from() });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.issues)).toEqual(["query.cursor"]);
  });
});

describe("GET /gigs/{id}", () => {
  it("answers the gig page's data: packages by tier with Money, the seller, the newest reviews", async () => {
    const gig = await createGig(t.db, {
      sellerId: seller.id,
      title: "Wedding photography in Kampala",
      description: "A day of photos.",
      packages: { basic: { priceUgx: 300_000, deliveryDays: 7 }, premium: { priceUgx: 1_200_000, deliveryDays: 14 } },
    });
    await createReview(t.db, { gigId: gig.id, reviewerId: client.id, rating: 5, comment: "Beautiful pictures" });
    const answer = await api.call("get", "/gigs/{id}", `/gigs/${gig.id}`, { headers: from() });
    expect(answer.status).toBe(200);
    const data = answer.body.data;
    expect(data).toMatchObject({ id: gig.id, title: "Wedding photography in Kampala", status: "published", seller: { id: seller.id, username: "nakato" } });
    expect(data.packages.basic.price.ugx).toBe(300_000);
    expect(data.packages.standard).toBeNull();
    expect(data.packages.premium).toMatchObject({ deliveryDays: 14, price: { ugx: 1_200_000 } });
    expect(data.startingPrice.ugx).toBe(300_000);
    expect(data.reviews.items).toEqual([expect.objectContaining({ rating: 5, comment: "Beautiful pictures", reviewerName: "Apio Grace" })]);
    expect(JSON.stringify(data)).not.toMatch(/@example\.ug|password/);
  });

  it("a draft or paused gig is 404 to everyone but its seller", async () => {
    const draft = await createGig(t.db, { sellerId: seller.id, status: "draft" });
    const paused = await createGig(t.db, { sellerId: seller.id, status: "paused" });
    for (const id of [draft.id, paused.id]) {
      expect((await api.call("get", "/gigs/{id}", `/gigs/${id}`, { headers: from() })).status).toBe(404);
      expect((await api.call("get", "/gigs/{id}", `/gigs/${id}`, { headers: from(), token: tokens.other })).status).toBe(404);
      const own = await api.call("get", "/gigs/{id}", `/gigs/${id}`, { headers: from(), token: tokens.seller });
      expect(own.status).toBe(200);
    }
    const notNumber = await api.call("get", "/gigs/{id}", "/gigs/abc", { headers: from() });
    expect(notNumber.status).toBe(400);
    expect(Object.keys(notNumber.body.issues)).toEqual(["path.id"]);
  });
});

describe("a refusal's words (ADR 047)", () => {
  it("are in the caller's language: a visitor's Accept-Language, a member's own choice", async () => {
    const lg = { headers: { ...from(), "Accept-Language": "lg-UG" } };
    const browse = await api.call("get", "/gigs", "/gigs?limit=many", lg);
    expect(browse.status).toBe(400);
    expect(browse.body.issues["query.limit"][0].message).toBe(words('api.field.numberFrom|{"field":"limit","min":1,"max":100}', "lg"));
    const search = await api.call("get", "/gigs/search", "/gigs/search", lg);
    expect(search.body.issues["query.q"][0].message).toBe(words("api.gigs.query", "lg"));
    expect(search.body.message).toBe(words("api.gigs.query", "lg"));

    const swahili = await createUser(t.db, { role: "freelancer", name: "Muuzaji Swahili" });
    await t.db("users").where({ id: swahili.id }).update({ language: "sw" });
    const token = await createAppToken(t.db, swahili.id);
    const { title: _title, ...untitled } = validBody({ packages: { basic: { priceUgx: "75000", deliveryDays: 3 } } });
    const refused = await api.call("post", "/gigs", "/gigs", { token, headers: { ...from(), "Accept-Language": "en" }, body: untitled });
    expect(refused.status).toBe(400);
    expect(refused.body.issues.title[0].message).toBe(words("dashboard.gigForm.titleRequired", "sw"));
    expect(refused.body.issues["packages.basic.priceUgx"][0].message).toBe(words("api.gigs.priceNumber", "sw"));
    expect(refused.body.issues.title[0].message).not.toBe(words("dashboard.gigForm.titleRequired", "en"));
  });
});

describe("POST /gigs", () => {
  it("creates a draft, or a published gig buyers can find", async () => {
    const draft = await api.call("post", "/gigs", "/gigs", {
      headers: from(),
      token: tokens.seller,
      body: { title: "Just a title", category: "writing-translation" },
    });
    expect(draft.status).toBe(201);
    expect(draft.body.data).toMatchObject({ title: "Just a title", status: "draft", startingPrice: null, packages: { basic: null } });
    expect(await gigRow(draft.body.data.id)).toMatchObject({ status: "draft", seller_id: seller.id });

    const published = await api.call("post", "/gigs", "/gigs", {
      headers: from(),
      token: tokens.seller,
      body: validBody({ category: "writing-translation", publish: true }),
    });
    expect(published.status).toBe(201);
    expect(published.body.data).toMatchObject({
      status: "published",
      packages: { basic: { name: "Starter", revisions: 2, price: { ugx: 75_000 } }, standard: { name: "Standard" } },
    });
    const listed = await api.call("get", "/gigs", "/gigs?category=writing-translation", { headers: from() });
    expect(listed.body.data.items.map((g: { id: number }) => g.id)).toEqual([published.body.data.id]);
  });

  it("refuses what the editor refuses, beside the body's fields, and writes nothing", async () => {
    const before = await gigsOf(seller.id);
    const answer = await api.call("post", "/gigs", "/gigs", {
      headers: from(),
      token: tokens.seller,
      body: validBody({ description: "", publish: true, packages: { basic: { priceUgx: 0, deliveryDays: 2 }, premium: { priceUgx: 10.5, deliveryDays: 7 } } }),
    });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe("request.invalid");
    expect(Object.keys(answer.body.issues).sort()).toEqual([
      "description",
      "packages.basic.deliveryDays",
      "packages.basic.priceUgx",
      "packages.premium.priceUgx",
    ]);
    const unknown = await api.call("post", "/gigs", "/gigs", {
      headers: from(),
      token: tokens.seller,
      body: validBody({ category: "no-such-category", isFeatured: true }),
    });
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.body.issues)).toEqual(["form"]);
    const category = await api.call("post", "/gigs", "/gigs", { headers: from(), token: tokens.seller, body: validBody({ category: "no-such-category" }) });
    expect(category.status).toBe(400);
    expect(category.body.issues.category[0].code).toBe("gig.category_unknown");
    const image = await api.call("post", "/gigs", "/gigs", {
      headers: from(),
      token: tokens.seller,
      body: validBody({ images: ["00000000-0000-0000-0000-000000000000"] }),
    });
    expect(image.status).toBe(400);
    expect(image.body.issues.images[0].code).toBe("gig.image_not_yours");
    expect(await gigsOf(seller.id)).toBe(before);
  });

  it("with an Idempotency-Key, a repeat gets the first answer and creates nothing more", async () => {
    const before = await gigsOf(other.id);
    const headers = { ...from(), "Idempotency-Key": "create-gig-once-1" };
    const first = await api.call("post", "/gigs", "/gigs", { headers, token: tokens.other, body: validBody({ title: "Only once" }) });
    const again = await api.call("post", "/gigs", "/gigs", { headers, token: tokens.other, body: validBody({ title: "Only once" }) });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(await gigsOf(other.id)).toBe(before + 1);
  });

  it("is 403 for a client's token and 401 without one", async () => {
    const before = await gigsOf(client.id);
    const asClient = await api.call("post", "/gigs", "/gigs", { headers: from(), token: tokens.client, body: validBody() });
    expect(asClient.status).toBe(403);
    expect(asClient.body.code).toBe("seller.only_sellers");
    expect((await api.call("post", "/gigs", "/gigs", { headers: from(), body: validBody() })).status).toBe(401);
    expect(await gigsOf(client.id)).toBe(before);
  });
});

describe("PUT /gigs/{id}", () => {
  it("edits the seller's gig; a published gig stays published when publish is left out", async () => {
    const gig = await createGig(t.db, { sellerId: seller.id, description: "Before" });
    const answer = await api.call("put", "/gigs/{id}", `/gigs/${gig.id}`, { headers: from(), token: tokens.seller, body: validBody({ title: "A new title" }) });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ id: gig.id, title: "A new title", status: "published" });
    expect(await gigRow(gig.id)).toMatchObject({ title: "A new title", status: "published" });
    const draft = await api.call("put", "/gigs/{id}", `/gigs/${gig.id}`, { headers: from(), token: tokens.seller, body: validBody({ publish: false }) });
    expect(draft.body.data.status).toBe("draft");
  });

  it("another seller's gig is 404 and unchanged; bad input is 400 and unchanged", async () => {
    const gig = await createGig(t.db, { sellerId: other.id, title: "Okello's gig" });
    const answer = await api.call("put", "/gigs/{id}", `/gigs/${gig.id}`, { headers: from(), token: tokens.seller, body: validBody({ title: "Taken over" }) });
    expect(answer.status).toBe(404);
    expect(JSON.stringify(answer.body)).not.toContain("Okello");
    const bad = await api.call("put", "/gigs/{id}", `/gigs/${gig.id}`, { headers: from(), token: tokens.other, body: validBody({ title: "" }) });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.issues)).toEqual(["title"]);
    expect(await gigRow(gig.id)).toMatchObject({ title: "Okello's gig", status: "published" });
  });
});

describe("DELETE /gigs/{id}", () => {
  it("deletes the seller's gig; another seller's is 404 and stays", async () => {
    const mine = await createGig(t.db, { sellerId: seller.id });
    const theirs = await createGig(t.db, { sellerId: other.id });
    expect((await api.call("delete", "/gigs/{id}", `/gigs/${theirs.id}`, { headers: from(), token: tokens.seller })).status).toBe(404);
    expect(await gigRow(theirs.id)).toBeDefined();
    const answer = await api.call("delete", "/gigs/{id}", `/gigs/${mine.id}`, { headers: from(), token: tokens.seller });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ id: mine.id });
    expect(await gigRow(mine.id)).toBeUndefined();
  });
});

describe("POST /gigs/{id}/publish, /pause, /resume", () => {
  it("publishes a complete draft, pauses and resumes it; an incomplete draft is refused beside its fields", async () => {
    const incomplete = await createGig(t.db, { sellerId: seller.id, status: "draft", packages: {} });
    const refused = await api.call("post", "/gigs/{id}/publish", `/gigs/${incomplete.id}/publish`, { headers: from(), token: tokens.seller });
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.issues).sort()).toEqual(["description", "packages.basic.deliveryDays", "packages.basic.priceUgx"]);
    expect(await gigRow(incomplete.id)).toMatchObject({ status: "draft" });

    const draft = await createGig(t.db, { sellerId: seller.id, status: "draft", description: "All there" });
    const published = await api.call("post", "/gigs/{id}/publish", `/gigs/${draft.id}/publish`, { headers: from(), token: tokens.seller });
    expect(published.status).toBe(200);
    expect(published.body.data.status).toBe("published");
    const paused = await api.call("post", "/gigs/{id}/pause", `/gigs/${draft.id}/pause`, { headers: from(), token: tokens.seller });
    expect(paused.body.data.status).toBe("paused");
    expect((await api.call("get", "/gigs/{id}", `/gigs/${draft.id}`, { headers: from() })).status).toBe(404);
    const again = await api.call("post", "/gigs/{id}/pause", `/gigs/${draft.id}/pause`, { headers: from(), token: tokens.seller });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("gig.not_published");
    const resumed = await api.call("post", "/gigs/{id}/resume", `/gigs/${draft.id}/resume`, { headers: from(), token: tokens.seller });
    expect(resumed.body.data.status).toBe("published");
  });

  it("another seller's gig is 404 and unchanged; a client's token is 403", async () => {
    const gig = await createGig(t.db, { sellerId: other.id });
    for (const action of ["pause", "publish"]) {
      const answer = await api.call("post", `/gigs/{id}/${action}`, `/gigs/${gig.id}/${action}`, { headers: from(), token: tokens.seller });
      expect(answer.status).toBe(404);
    }
    expect((await api.call("post", "/gigs/{id}/publish", `/gigs/${gig.id}/publish`, { headers: from(), token: tokens.client })).status).toBe(403);
    expect(await gigRow(gig.id)).toMatchObject({ status: "published" });
  });
});

describe("POST /gigs/{id}/images", () => {
  const upload = (gigId: number, token: string, file: Blob, name = "photo.png") => {
    const form = new FormData();
    form.append("file", file, name);
    return api.call("post", "/gigs/{id}/images", `/gigs/${gigId}/images`, { headers: from(), token, raw: form });
  };
  const pngFile = () => new Blob([new Uint8Array(png)], { type: "image/png" });
  const imagesOf = (gigId: number) => t.db("gig_images").where({ gig_id: gigId }).orderBy("position").pluck("storage_key");

  it("stores an image and adds it to the gig, which keeps its status", async () => {
    const gig = await createGig(t.db, { sellerId: seller.id, status: "paused" });
    const answer = await upload(gig.id, tokens.seller, pngFile());
    expect(answer.status).toBe(201);
    const [image] = answer.body.data.images;
    expect(image.thumb).toBe(`/media/${image.key}-thumb.webp`);
    expect(await imagesOf(gig.id)).toEqual([image.key]);
    expect(await gigRow(gig.id)).toMatchObject({ status: "paused" });
    const second = await upload(gig.id, tokens.seller, pngFile());
    expect(second.body.data.images.map((i: { key: string }) => i.key)).toEqual(await imagesOf(gig.id));
    expect(second.body.data.images).toHaveLength(2);
  });

  it("refuses a file that is no image beside `file`, one too large with 413, a sixth image, and another seller's gig", async () => {
    const gig = await createGig(t.db, { sellerId: seller.id });
    const uploadsBefore = await t.db("uploads").count({ n: "*" }).first();
    const text = await upload(gig.id, tokens.seller, new Blob(["just some words"], { type: "image/png" }), "notes.png");
    expect(text.status).toBe(400);
    expect(Object.keys(text.body.issues)).toEqual(["file"]);
    const huge = await upload(gig.id, tokens.seller, new Blob([new Uint8Array(6 * 1024 * 1024).fill(1)], { type: "image/png" }));
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe("image.too_many_bytes");
    const theirs = await createGig(t.db, { sellerId: other.id });
    expect((await upload(theirs.id, tokens.seller, pngFile())).status).toBe(404);
    expect(await imagesOf(gig.id)).toEqual([]);
    expect(await imagesOf(theirs.id)).toEqual([]);
    expect(await t.db("uploads").count({ n: "*" }).first()).toEqual(uploadsBefore);
    const asClient = await upload(gig.id, tokens.client, pngFile());
    expect(asClient.status).toBe(403);
    const json = await api.send("post", `/gigs/${gig.id}/images`, { headers: from(), token: tokens.seller, body: { file: "x" } });
    expect(json.status).toBe(415);

    for (let i = 0; i < 5; i++) expect((await upload(gig.id, tokens.seller, pngFile())).status).toBe(201);
    const sixth = await upload(gig.id, tokens.seller, pngFile());
    expect(sixth.status).toBe(400);
    expect(sixth.body.issues.file[0].code).toBe("gig.too_many_images");
    expect(await imagesOf(gig.id)).toHaveLength(5);
  });
});
