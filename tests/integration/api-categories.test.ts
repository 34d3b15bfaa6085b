/**
 * The Categories calls of the JSON API (ADR 041, ADR 026), against the built server: the categories buyers
 * browse, with their gig counts, paged; one by number or slug; a hidden category only for an admin's token.
 * Each answer is checked against the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { closeRedis } from "~/server/redis.server";
import { getEnv } from "~/server/env.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createCategory, createGig, createUser } from "../support/factories";
import { startTestServer, type TestServer } from "../support/test-server";
import { apiClient, createAppToken } from "../support/api";

const { prefix } = vi.hoisted(() => {
  const prefix = `t_apicats_${process.pid}_${Date.now()}`;
  process.env.QUEUE_PREFIX = prefix;
  return { prefix };
});

let t: TestDatabase;
let server: TestServer;
let api: ReturnType<typeof apiClient>;
let adminToken: string;
let memberToken: string;
let hidden: { id: number; slug: string };

beforeAll(async () => {
  expect(getEnv().QUEUE_PREFIX).toBe(prefix);
  t = await createTestDatabase();
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: prefix, TRUST_PROXY: "loopback" });
  api = apiClient(server.baseUrl);
  const seller = await createUser(t.db, { role: "freelancer" });
  await createGig(t.db, { sellerId: seller.id, category: "web-development" });
  await createGig(t.db, { sellerId: seller.id, category: "web-development" });
  await createGig(t.db, { sellerId: seller.id, category: "web-development", status: "draft" });
  hidden = await createCategory(t.db, { slug: "retired-things", name: "Retired Things" });
  await t.db("categories").where({ id: hidden.id }).update({ hidden: true });
  const admin = await createUser(t.db, { role: "admin" });
  adminToken = await createAppToken(t.db, admin.id, { admin: true });
  memberToken = await createAppToken(t.db, seller.id);
});
afterAll(async () => {
  await server?.stop();
  await closeRedis();
  await t?.drop();
});

let address = 0;
const from = () => ({ "X-Forwarded-For": `203.0.113.${++address}` });

describe("GET /categories", () => {
  it("lists the visible categories in order with what a buyer can find in each", async () => {
    const answer = await api.call("get", "/categories", "/categories", { headers: from() });
    expect(answer.status).toBe(200);
    const items: { slug: string; gigCount: number; hidden: boolean }[] = answer.body.data.items;
    expect(items.map((c) => c.slug)).toEqual([
      "graphics-design",
      "web-development",
      "writing-translation",
      "video-animation",
      "digital-marketing",
      "local-services",
    ]);
    expect(items.find((c) => c.slug === "web-development")).toMatchObject({ name: "Web Development", gigCount: 2, hidden: false });
    expect(answer.body.data.nextCursor).toBeNull();
    const member = await api.call("get", "/categories", "/categories", { headers: from(), token: memberToken });
    expect(member.body.data.items.map((c: { slug: string }) => c.slug)).not.toContain("retired-things");
  });

  it("shows an admin the hidden ones too", async () => {
    const answer = await api.call("get", "/categories", "/categories", { headers: from(), token: adminToken });
    expect(answer.body.data.items.find((c: { slug: string }) => c.slug === "retired-things")).toMatchObject({ hidden: true, name: "Retired Things" });
  });

  it("pages by cursor; a bad cursor or limit is 400 beside it", async () => {
    const first = await api.call("get", "/categories", "/categories?limit=4", { headers: from() });
    expect(first.body.data.items).toHaveLength(4);
    const second = await api.call("get", "/categories", `/categories?limit=4&cursor=${first.body.data.nextCursor}`, { headers: from() });
    expect(second.body.data.items.map((c: { slug: string }) => c.slug)).toEqual(["digital-marketing", "local-services"]);
    expect(second.body.data.nextCursor).toBeNull();
    const bad = await api.call("get", "/categories", "/categories?cursor=next", { headers: from() });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.issues)).toEqual(["query.cursor"]);
    const past = await api.call("get", "/categories", "/categories?cursor=999", { headers: from() });
    expect(past.status).toBe(400);
    expect(Object.keys(past.body.issues)).toEqual(["query.cursor"]);
    const limit = await api.call("get", "/categories", "/categories?limit=101", { headers: from() });
    expect(Object.keys(limit.body.issues)).toEqual(["query.limit"]);
  });
});

describe("GET /categories/{id}", () => {
  it("finds a category by slug or number; a hidden one is 404 except to an admin", async () => {
    const bySlug = await api.call("get", "/categories/{id}", "/categories/web-development", { headers: from() });
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.data).toMatchObject({ slug: "web-development", gigCount: 2 });
    const byId = await api.call("get", "/categories/{id}", `/categories/${bySlug.body.data.id}`, { headers: from() });
    expect(byId.body.data).toEqual(bySlug.body.data);
    expect((await api.call("get", "/categories/{id}", "/categories/retired-things", { headers: from() })).status).toBe(404);
    expect((await api.call("get", "/categories/{id}", `/categories/${hidden.id}`, { headers: from(), token: memberToken })).status).toBe(404);
    const admin = await api.call("get", "/categories/{id}", `/categories/${hidden.id}`, { headers: from(), token: adminToken });
    expect(admin.body.data).toMatchObject({ slug: "retired-things", hidden: true });
    expect((await api.call("get", "/categories/{id}", "/categories/no-such-one", { headers: from() })).status).toBe(404);
    const bad = await api.call("get", "/categories/{id}", "/categories/Not%20A%20Slug", { headers: from() });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.issues)).toEqual(["path.id"]);
  });
});

describe("categories in the reader's language", () => {
  it("names a category in the language asked for where it has a translation, in English where it has none", async () => {
    await t
      .db("categories")
      .where({ slug: "web-development" })
      .update({ translations: JSON.stringify({ lg: { name: "Okukola Emikutu", description: "Emikutu n'apu ez'oku ssimu." } }) });
    const lg = { ...from(), "Accept-Language": "lg-UG" };
    const list = await api.call("get", "/categories", "/categories", { headers: lg });
    expect(list.body.data.items.find((c: { slug: string }) => c.slug === "web-development")).toMatchObject({
      name: "Okukola Emikutu",
      description: "Emikutu n'apu ez'oku ssimu.",
    });
    // A category with no Luganda keeps its own (English) name.
    const admin = await api.call("get", "/categories", "/categories", { headers: lg, token: adminToken });
    expect(admin.body.data.items.find((c: { slug: string }) => c.slug === "retired-things")).toMatchObject({ name: "Retired Things" });
    const one = await api.call("get", "/categories/{id}", "/categories/web-development", { headers: lg });
    expect(one.body.data.name).toBe("Okukola Emikutu");
    // A gig's card says its category in the same words.
    const gigs = await api.call("get", "/gigs", "/gigs?category=web-development", { headers: lg });
    expect(gigs.status).toBe(200);
    expect(gigs.body.data.items.map((g: { category: { name: string } }) => g.category.name)).toEqual(["Okukola Emikutu", "Okukola Emikutu"]);
    // Its Swahili was replaced above by none: English.
    const sw = await api.call("get", "/categories/{id}", "/categories/web-development", { headers: { ...from(), "Accept-Language": "sw" } });
    expect(sw.body.data.name).toBe("Web Development");
  });
});
