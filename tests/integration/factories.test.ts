/**
 * The test-data factories write rows the app itself accepts: a member who can sign in, a gig the catalog
 * shows with its packages, reviews that add up to the gig's and the seller's rating.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listCatalog, EMPTY_QUERY } from "~/models/catalog-search.server";
import { getGigPage } from "~/models/gig.server";
import { getSessionUser } from "~/models/session.server";
import { verifyPassword } from "~/server/password.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { DEFAULT_PASSWORD, createCategory, createGig, createReview, createSession, createUser } from "../support/factories";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t?.drop());

describe("test-data factories", () => {
  it("makes members who can sign in, with a session the app accepts", async () => {
    const seller = await createUser(t.db, { role: "freelancer", name: "Amara N" });
    const other = await createUser(t.db, { password: "another-pass-1" });
    const held = await createUser(t.db, { status: "suspended" });
    expect(seller).toMatchObject({ username: "amara_n", email: "amara.n@example.ug", password: DEFAULT_PASSWORD, role: "freelancer" });
    const stored = (id: number) =>
      t
        .db("users")
        .where({ id })
        .first("password_hash", "status", "level")
        .then((r) => r!);
    expect(await verifyPassword(DEFAULT_PASSWORD, (await stored(seller.id)).password_hash)).toBe(true);
    expect(await verifyPassword("another-pass-1", (await stored(other.id)).password_hash)).toBe(true);
    expect(await stored(held.id)).toMatchObject({ status: "suspended", level: "member" });
    expect(await createUser(t.db, { password: null }).then((u) => stored(u.id))).toMatchObject({ password_hash: null });
    const token = await createSession(t.db, seller.id);
    expect(await getSessionUser(t.db, token)).toMatchObject({ id: seller.id, username: "amara_n" });
  });

  it("makes a gig the catalog shows with its packages, and reviews that add up to its rating", async () => {
    await createCategory(t.db, { slug: "web-development" });
    const seller = await createUser(t.db, { role: "freelancer" });
    const buyer = await createUser(t.db);
    const { id } = await createGig(t.db, {
      sellerId: seller.id,
      category: "web-development",
      title: "Factory website",
      packages: { standard: { priceUgx: 200_000, deliveryDays: 7 }, basic: { priceUgx: 90_000, deliveryDays: 3 } },
    });
    await createGig(t.db, { sellerId: seller.id, title: "Factory draft", status: "draft" });
    const page = await getGigPage(t.db, id, null);
    expect(page?.packages.map((p) => [p.tier, p.priceUgx])).toEqual([
      ["basic", 90_000],
      ["standard", 200_000],
    ]);
    expect((await listCatalog(t.db, { ...EMPTY_QUERY, category: "web-development" })).gigs).toEqual([
      expect.objectContaining({ id, title: "Factory website", categoryName: "Web Development", startingPriceUgx: 90_000 }),
    ]);
    await createReview(t.db, { gigId: id, reviewerId: buyer.id, rating: 5 });
    await createReview(t.db, { gigId: id, reviewerId: buyer.id, rating: 4 });
    expect(await t.db("gigs").where({ id }).first("rating", "reviews_count")).toEqual({ rating: 4.5, reviews_count: 2 });
    expect(await t.db("users").where({ id: seller.id }).first("rating", "reviews_count")).toEqual({ rating: 4.5, reviews_count: 2 });
  });
});
