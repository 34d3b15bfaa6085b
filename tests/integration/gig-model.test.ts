import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listCategories } from "~/models/category.server";
import { listFeaturedGigs, ownImages, recordUpload, refreshCatalog, saveGig } from "~/models/gig.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";

describe("featured gigs and categories", () => {
  let t: TestDatabase;
  let categoryId: number;
  let sellerId: number;

  async function gig(title: string, fields: Record<string, unknown>, prices: number[]) {
    const [row] = await t.db("gigs")
      .insert({ seller_id: sellerId, category_id: categoryId, title, status: "published", ...fields })
      .returning("id");
    const tiers = ["basic", "standard", "premium"];
    const days = [3, 7, 14];
    await t.db("gig_packages").insert(
      prices.map((price_ugx, i) => ({ gig_id: row.id, tier: tiers[i], name: tiers[i], price_ugx, delivery_days: days[i] })),
    );
    return row.id as number;
  }

  beforeAll(async () => {
    t = await createTestDatabase();
    [{ id: categoryId }] = await t.db("categories").insert({ slug: "web-development", name: "Web Development" }).returning("id");
    [{ id: sellerId }] = await t.db("users")
      .insert({ name: "Ivan T", username: "ivan_t", email: "ivan@example.test", role: "freelancer" })
      .returning("id");
    const [{ id: suspendedId }] = await t.db("users")
      .insert({ name: "Gone", username: "gone", email: "gone@example.test", role: "freelancer", status: "suspended" })
      .returning("id");
    await gig("Best rated", { rating: 4.9, reviews_count: 10 }, [300_000, 150_000, 500_000]);
    await gig("Featured but lower", { rating: 4.1, reviews_count: 3, featured: true }, [90_000]);
    await gig("A draft", { status: "draft", rating: 5, reviews_count: 99 }, [80_000]);
    await gig("Second best", { rating: 4.5, reviews_count: 50 }, [120_000]);
    await gig("Third", { rating: 4.5, reviews_count: 20 }, [130_000]);
    await gig("Fourth", { rating: 4.0, reviews_count: 20 }, [140_000]);
    await t.db("gigs").insert({ seller_id: suspendedId, category_id: categoryId, title: "Suspended seller's", status: "published", rating: 5 });
    // Rows written directly, as bulk loads do: the catalog's summary columns are computed afterwards.
    await refreshCatalog(t.db);
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
    const [category] = await listCategories(t.db);
    // five published by the active seller; neither the draft nor the suspended seller's gig counts
    expect(category?.gigCount).toBe(5);
  });
});

describe("saving a gig's images", () => {
  let t: TestDatabase;
  let sellerId: number;
  beforeAll(async () => {
    t = await createTestDatabase();
    await t.db("categories").insert({ slug: "graphics-design", name: "Graphics & Design" });
    [{ id: sellerId }] = await t.db("users").insert({ name: "Sarah N", username: "sarah_n", email: "sarah@example.test", role: "freelancer" }).returning("id");
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
