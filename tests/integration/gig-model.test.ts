import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listCategories } from "~/models/category.server";
import { listFeaturedGigs } from "~/models/catalog-search.server";
import { correctQuery } from "~/models/catalog-spelling.server";
import { ownImages, recordUpload, refreshCatalog, saveGig } from "~/models/gig.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createGig, createUser } from "../support/factories";

describe("featured gigs and categories", () => {
  let t: TestDatabase;
  let sellerId: number;

  type Fields = { status?: "draft"; rating: number; reviewsCount: number; featured?: boolean };
  /** A gig of Ivan's with packages at these prices (Basic in 3 days, Standard in 7, Premium in 14). */
  async function gig(title: string, fields: Fields, prices: number[]) {
    const [basic, standard, premium] = prices.map((priceUgx, i) => ({ priceUgx, deliveryDays: [3, 7, 14][i]! }));
    return (await createGig(t.db, { sellerId, category: "web-development", title, ...fields, packages: { basic, standard, premium } })).id;
  }

  beforeAll(async () => {
    t = await createTestDatabase();
    ({ id: sellerId } = await createUser(t.db, { role: "freelancer", name: "Ivan T", email: "ivan@example.test" }));
    const suspended = await createUser(t.db, { role: "freelancer", name: "Gone", username: "gone", status: "suspended" });
    await gig("Best rated", { rating: 4.9, reviewsCount: 10 }, [300_000, 150_000, 500_000]);
    await gig("Featured but lower", { rating: 4.1, reviewsCount: 3, featured: true }, [90_000]);
    await gig("A draft", { status: "draft", rating: 5, reviewsCount: 99 }, [80_000]);
    await gig("Second best", { rating: 4.5, reviewsCount: 50 }, [120_000]);
    await gig("Third", { rating: 4.5, reviewsCount: 20 }, [130_000]);
    await gig("Fourth", { rating: 4.0, reviewsCount: 20 }, [140_000]);
    await createGig(t.db, { sellerId: suspended.id, category: "web-development", title: "Suspended seller's", rating: 5 });
  });
  afterAll(() => t.drop());

  it("puts featured gigs first, then the best rated, and hides drafts and suspended sellers", async () => {
    const featured = await listFeaturedGigs(t.db);
    expect(featured.map((g) => g.title)).toEqual(["Featured but lower", "Best rated", "Second best", "Third"]);
  });

  it("gives the lowest package price as the starting price, with category and seller", async () => {
    const [, best] = await listFeaturedGigs(t.db);
    expect(best).toMatchObject({
      startingPriceUgx: 150_000,
      categoryName: "Web Development",
      categorySlug: "web-development",
      sellerUsername: "ivan_t",
      rating: 4.9,
      reviewsCount: 10,
    });
  });

  it("counts only the gigs a buyer can see per category", async () => {
    const category = (await listCategories(t.db)).find((c) => c.slug === "web-development");
    // five published by the active seller; neither the draft nor the suspended seller's gig counts
    expect(category?.gigCount).toBe(5);
  });
});

describe("saving a gig's images", () => {
  let t: TestDatabase;
  let sellerId: number;
  beforeAll(async () => {
    t = await createTestDatabase();
    ({ id: sellerId } = await createUser(t.db, { role: "freelancer", name: "Sarah N", email: "sarah@example.test" }));
  });
  afterAll(() => t.drop());

  it("forgets an image taken off the gig, so it cannot be put back on a form", async () => {
    for (const key of ["image-a", "image-b"]) await recordUpload(t.db, sellerId, key);
    const value = {
      title: "I will draw your logo",
      categorySlug: "graphics-design",
      description: "Two concepts.",
      tags: [],
      images: ["image-a", "image-b"],
      packages: [{ tier: "basic" as const, name: "Basic", description: "", priceUgx: 75_000, deliveryDays: 3, revisions: 1, features: [] }],
    };
    const { id } = await saveGig(t.db, sellerId, value, "draft");
    const saved = await saveGig(t.db, sellerId, { ...value, images: ["image-a"] }, "draft", id);
    expect(saved.removedImages).toEqual(["image-b"]);
    expect(await t.db("uploads").orderBy("storage_key").pluck("storage_key")).toEqual(["image-a"]);
    expect(await ownImages(t.db, sellerId, ["image-a", "image-b"], ["image-a"])).toEqual(["image-a"]);
  });
});

describe("gigs written in bulk", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.drop());

  it("get their starting price, fastest delivery and search words from refreshCatalog", async () => {
    const seller = await createUser(t.db, { role: "freelancer" });
    const { id } = await createGig(t.db, {
      sellerId: seller.id,
      title: "Kitenge pattern design",
      packages: { basic: { priceUgx: 300_000, deliveryDays: 14 } },
    });
    // Past the model, as the demo data and the catalog benchmark load their rows: the summary goes stale.
    await t.db("gig_packages").where({ gig_id: id }).update({ price_ugx: 45_000, delivery_days: 1 });
    await t.db("gigs").where({ id }).update({ description: "Zanzibar colours." });
    expect(await correctQuery(t.db, "zanzibr")).toBeNull();

    await refreshCatalog(t.db);
    expect(await t.db("gigs").where({ id }).first("starting_price_ugx", "fastest_delivery_days")).toEqual({
      starting_price_ugx: 45_000,
      fastest_delivery_days: 1,
    });
    expect(await correctQuery(t.db, "zanzibr")).toBe("zanzibar");
  });
});
