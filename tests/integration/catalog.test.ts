/**
 * The catalog model against real Postgres: filters and sorts over a hand-built fixture whose expected order
 * is written out here (never computed by sorting in the test), keyset paging, full-text search with
 * spelling correction, the catalog's URL vocabulary, and saving gigs (form rules, ownership, visibility).
 */
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GigInputError, deleteGig, getGigPage, getGigPageWithReviews, getOwnGig, recordUpload, saveGig, setGigStatus } from "~/models/gig.server";
import { COUNT_CAP, EMPTY_QUERY, PAGE_SIZE, listCatalog } from "~/models/catalog-search.server";
import { correctQuery } from "~/models/catalog-spelling.server";
import { QUERY_MAX, catalogSearch, gigFormSchema, parseCatalogQuery, type CatalogQuery, type GigIntent, type Sort, type Tier } from "~/schemas/gig";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createCategory, createGig, createReview, createUser } from "../support/factories";
import { words } from "../support/words";

// ---------------------------------------------------------------------------------------------------------
// Helpers

type GigRow = {
  seller: number;
  /** The category's slug. */
  category: string;
  title: string;
  status?: "draft" | "published" | "paused";
  rating?: number;
  reviews?: number;
  featured?: boolean;
  published?: string | null;
  description?: string;
  tags?: string[];
  /** tier → [price in UGX, delivery days] */
  packages?: Partial<Record<Tier, [number, number]>>;
  /** Image keys, the cover first. */
  images?: string[];
};

/** A fixture gig, through the factory (the model computes its starting price, fastest delivery and search words). */
async function insertGig(db: Knex, g: GigRow): Promise<number> {
  const packages = Object.fromEntries(Object.entries(g.packages ?? {}).map(([tier, [priceUgx, deliveryDays]]) => [tier, { priceUgx, deliveryDays }]));
  const { id } = await createGig(db, {
    sellerId: g.seller,
    category: g.category,
    title: g.title,
    status: g.status ?? "published",
    rating: g.rating ?? 0,
    reviewsCount: g.reviews ?? 0,
    featured: g.featured ?? false,
    publishedAt: g.published ?? null,
    description: g.description ?? "",
    tags: g.tags ?? [],
    packages,
    images: g.images ?? [],
  });
  return id;
}

/** A member named after their username (amara_n is "amara n"). */
async function insertUser(db: Knex, username: string, role: "client" | "freelancer" | "admin", status: "active" | "suspended" = "active"): Promise<number> {
  return (await createUser(db, { role, name: username.replace("_", " "), username, email: `${username}@example.ug`, status })).id;
}

async function insertCategory(db: Knex, slug: string, name: string): Promise<string> {
  return (await createCategory(db, { slug, name })).slug;
}

const query = (over: Partial<CatalogQuery> = {}): CatalogQuery => ({ ...EMPTY_QUERY, ...over });
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const SORTS: Sort[] = ["relevance", "rating", "price-low", "price-high", "newest"];

// ---------------------------------------------------------------------------------------------------------
// 1. Filters and sorts over a fixture with hand-written expected orders.

// Visible gigs (published, active seller, with packages). Columns: category, featured, rating/reviews,
// starting price (cheapest package), fastest delivery (quickest package), published.
const LOGO = "Logo design for your brand"; //   design  -      4.90/120   80,000   3d  01-05
const REACT = "Full website in React"; //        web     feat   4.70/40   500,001   7d  01-10
const CARDS = "Business cards"; //              design  -      4.50/10    99,999   1d  01-02
const LANDING = "Landing page"; //             web     -      4.00/8    100,000   3d  01-08
const FLYER = "Flyer design"; //                design  feat   3.50/3    250,000   7d  01-12
const WORDPRESS = "WordPress fixes"; //         web     -      3.40/2    500,000  14d  01-01
const MOBILE = "Mobile app prototype"; //       web     -      4.49/30   750,000   3d (standard) 01-03
const ILLUSTRATION = "Illustration pack"; //   design  -      0.00/0    120,000   3d  01-15
const BRAND = "Brand identity kit"; //          design  -      4.90/60   300,000   7d  01-09
const SEO = "SEO audit"; //                     web     -      4.00/8    180,000   3d  01-07 (inserted after LANDING)
// Never visible: a draft, a paused gig, a suspended seller's gig, a published gig without packages.
const HIDDEN = ["Draft logo idea", "Paused website audit", "Suspended seller logo", "Gig without packages"];

describe("catalog filters and sorts", () => {
  let t: TestDatabase;
  let db: Knex;

  beforeAll(async () => {
    t = await createTestDatabase();
    db = t.db;
    const design = await insertCategory(db, "graphic-design", "Graphic Design");
    const web = await insertCategory(db, "web-development", "Web Development");
    await insertCategory(db, "writing", "Writing");
    const amara = await insertUser(db, "amara_n", "freelancer");
    const brian = await insertUser(db, "brian_k", "freelancer");
    const held = await insertUser(db, "held_seller", "freelancer", "suspended");

    const day = (d: number) => `2026-01-${String(d).padStart(2, "0")}T09:00:00Z`;
    await insertGig(db, {
      seller: amara,
      category: design,
      title: LOGO,
      rating: 4.9,
      reviews: 120,
      published: day(5),
      packages: { basic: [80_000, 3], standard: [150_000, 7], premium: [300_000, 14] },
      images: ["img-first", "img-second"],
    });
    await insertGig(db, {
      seller: amara,
      category: web,
      title: REACT,
      rating: 4.7,
      reviews: 40,
      featured: true,
      published: day(10),
      packages: { basic: [500_001, 7], premium: [900_000, 14] },
    });
    await insertGig(db, { seller: brian, category: design, title: CARDS, rating: 4.5, reviews: 10, published: day(2), packages: { basic: [99_999, 1] } });
    await insertGig(db, {
      seller: brian,
      category: web,
      title: LANDING,
      rating: 4.0,
      reviews: 8,
      published: day(8),
      packages: { basic: [100_000, 3], standard: [200_000, 7] },
    });
    await insertGig(db, {
      seller: amara,
      category: design,
      title: FLYER,
      rating: 3.5,
      reviews: 3,
      featured: true,
      published: day(12),
      packages: { basic: [250_000, 7] },
    });
    await insertGig(db, {
      seller: brian,
      category: web,
      title: WORDPRESS,
      rating: 3.4,
      reviews: 2,
      published: day(1),
      packages: { basic: [500_000, 14], standard: [600_000, 21] },
    });
    await insertGig(db, {
      seller: amara,
      category: web,
      title: MOBILE,
      rating: 4.49,
      reviews: 30,
      published: day(3),
      packages: { basic: [750_000, 14], standard: [800_000, 3], premium: [1_200_000, 30] },
    });
    await insertGig(db, { seller: brian, category: design, title: ILLUSTRATION, published: day(15), packages: { basic: [120_000, 3] } });
    await insertGig(db, {
      seller: amara,
      category: design,
      title: "Draft logo idea",
      status: "draft",
      rating: 5,
      reviews: 99,
      featured: true,
      packages: { basic: [50_000, 1] },
    });
    await insertGig(db, {
      seller: brian,
      category: web,
      title: "Paused website audit",
      status: "paused",
      rating: 5,
      reviews: 50,
      featured: true,
      published: day(30),
      packages: { basic: [60_000, 1] },
    });
    await insertGig(db, {
      seller: held,
      category: design,
      title: "Suspended seller logo",
      rating: 5,
      reviews: 200,
      featured: true,
      published: day(20),
      packages: { basic: [70_000, 1] },
    });
    await insertGig(db, {
      seller: brian,
      category: design,
      title: BRAND,
      rating: 4.9,
      reviews: 60,
      published: day(9),
      packages: { basic: [300_000, 7], standard: [450_000, 14] },
    });
    await insertGig(db, { seller: amara, category: web, title: SEO, rating: 4.0, reviews: 8, published: day(7), packages: { basic: [180_000, 3] } });
    await insertGig(db, { seller: amara, category: web, title: "Gig without packages", rating: 5, reviews: 10, featured: true, published: day(25) });
  });
  afterAll(() => t?.drop());

  const cases: [string, Partial<CatalogQuery>, string[]][] = [
    // sorts
    ["relevance: featured first, then rating, reviews, newer id", {}, [REACT, FLYER, LOGO, BRAND, CARDS, MOBILE, SEO, LANDING, WORDPRESS, ILLUSTRATION]],
    ["rating: rating, then reviews, then newer id", { sort: "rating" }, [LOGO, BRAND, REACT, CARDS, MOBILE, SEO, LANDING, FLYER, WORDPRESS, ILLUSTRATION]],
    ["price-low", { sort: "price-low" }, [LOGO, CARDS, LANDING, ILLUSTRATION, SEO, FLYER, BRAND, WORDPRESS, REACT, MOBILE]],
    ["price-high", { sort: "price-high" }, [MOBILE, REACT, WORDPRESS, BRAND, FLYER, SEO, ILLUSTRATION, LANDING, CARDS, LOGO]],
    ["newest", { sort: "newest" }, [ILLUSTRATION, FLYER, REACT, BRAND, LANDING, SEO, LOGO, MOBILE, CARDS, WORDPRESS]],
    // category
    ["category graphic-design", { category: "graphic-design" }, [FLYER, LOGO, BRAND, CARDS, ILLUSTRATION]],
    ["category web-development", { category: "web-development" }, [REACT, MOBILE, SEO, LANDING, WORDPRESS]],
    ["a category with no gigs", { category: "writing" }, []],
    ["a category that does not exist", { category: "no-such-category" }, []],
    // price, on the starting price, boundaries included exactly
    ["price under 100,000 (≤ 99,999)", { price: "under-100000" }, [LOGO, CARDS]],
    ["price 100,000 to 500,000 (both included)", { price: "100000-500000" }, [FLYER, BRAND, SEO, LANDING, WORDPRESS, ILLUSTRATION]],
    ["price above 500,000 (≥ 500,001)", { price: "above-500000" }, [REACT, MOBILE]],
    // rating
    ["rating 4.5 and up (4.49 excluded)", { rating: "4.5" }, [REACT, LOGO, BRAND, CARDS]],
    ["rating 4 and up (4.00 included)", { rating: "4" }, [REACT, LOGO, BRAND, CARDS, MOBILE, SEO, LANDING]],
    ["rating 3.5 and up (3.50 in, 3.40 out)", { rating: "3.5" }, [REACT, FLYER, LOGO, BRAND, CARDS, MOBILE, SEO, LANDING]],
    // delivery: the fastest package, whichever tier it is
    ["delivery within 1 day", { delivery: "1" }, [CARDS]],
    ["delivery up to 3 days (Mobile's Standard delivers in 3)", { delivery: "3" }, [LOGO, CARDS, MOBILE, SEO, LANDING, ILLUSTRATION]],
    ["delivery up to 7 days", { delivery: "7" }, [REACT, FLYER, LOGO, BRAND, CARDS, MOBILE, SEO, LANDING, ILLUSTRATION]],
    // combinations
    ["design + 100k–500k, price-low", { category: "graphic-design", price: "100000-500000", sort: "price-low" }, [ILLUSTRATION, FLYER, BRAND]],
    ["web + rating 4, newest", { category: "web-development", rating: "4", sort: "newest" }, [REACT, LANDING, SEO, MOBILE]],
    ["delivery 3, price-high", { delivery: "3", sort: "price-high" }, [MOBILE, SEO, ILLUSTRATION, LANDING, CARDS, LOGO]],
    ["above 500k + delivery 3", { price: "above-500000", delivery: "3" }, [MOBILE]],
    ["above 500k + delivery 1: nothing", { price: "above-500000", delivery: "1" }, []],
    ["design + rating 4.5 + delivery 3, rating sort", { category: "graphic-design", rating: "4.5", delivery: "3", sort: "rating" }, [LOGO, CARDS]],
  ];

  it.each(cases)("%s", async (_name, over, expected) => {
    const page = await listCatalog(db, query(over));
    expect(page.gigs.map((g) => g.title)).toEqual(expected);
    expect(page.total).toBe(expected.length);
    expect(page.nextCursor).toBeNull();
    expect(page.searchedFor).toBeNull();
  });

  it("never shows drafts, paused gigs, suspended sellers' gigs or gigs without packages, under any sort or filter", async () => {
    for (const sort of SORTS) {
      for (const over of [{}, { delivery: "1" as const }, { price: "under-100000" as const }, { rating: "4.5" as const }, { category: "graphic-design" }]) {
        const { gigs } = await listCatalog(db, query({ ...over, sort }), { limit: 100 });
        for (const title of HIDDEN)
          expect(
            gigs.map((g) => g.title),
            `${sort} ${JSON.stringify(over)}`,
          ).not.toContain(title);
      }
    }
  });

  it("counts all matches even when the page is smaller, and skips the count when not asked", async () => {
    const page = await listCatalog(db, query(), { limit: 3 });
    expect(page.gigs.map((g) => g.title)).toEqual([REACT, FLYER, LOGO]);
    expect(page.total).toBe(10);
    expect(page.nextCursor).not.toBeNull();
    const uncounted = await listCatalog(db, query({ category: "web-development" }), { limit: 2, count: false });
    expect(uncounted.total).toBeNull();
    expect(uncounted.gigs.map((g) => g.title)).toEqual([REACT, MOBILE]);
    expect(PAGE_SIZE).toBe(12);
    expect(COUNT_CAP).toBe(1000);
  });

  it("fills a card: starting price from the cheapest package, category, seller and first image", async () => {
    const { gigs } = await listCatalog(db, query({ price: "under-100000" }));
    expect(gigs[0]).toEqual({
      id: expect.any(Number),
      title: LOGO,
      categoryName: "Graphic Design",
      categorySlug: "graphic-design",
      rating: 4.9,
      reviewsCount: 120,
      startingPriceUgx: 80_000,
      sellerName: "amara n",
      sellerUsername: "amara_n",
      imageKey: "img-first",
    });
    expect(gigs[1]).toMatchObject({ title: CARDS, startingPriceUgx: 99_999, sellerUsername: "brian_k", imageKey: null });
    const rows = await db("gigs")
      .whereIn("title", [REACT, MOBILE, "Gig without packages"])
      .orderBy("title")
      .select("title", "starting_price_ugx", "fastest_delivery_days");
    expect(rows).toEqual([
      { title: REACT, starting_price_ugx: 500_001, fastest_delivery_days: 7 },
      { title: "Gig without packages", starting_price_ugx: null, fastest_delivery_days: null },
      { title: MOBILE, starting_price_ugx: 750_000, fastest_delivery_days: 3 },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// 2. Keyset paging.

describe("catalog paging", () => {
  let t: TestDatabase;
  let db: Knex;
  let design: string;
  let seller: number;

  beforeAll(async () => {
    t = await createTestDatabase();
    db = t.db;
    design = await insertCategory(db, "graphic-design", "Graphic Design");
    const web = await insertCategory(db, "web-development", "Web Development");
    seller = await insertUser(db, "amara_n", "freelancer");
    const other = await insertUser(db, "brian_k", "freelancer");
    const ratings = [4.5, 4.25, 5, 3, 4.5, 0];
    const reviews = [10, 10, 3];
    const prices = [50_000, 100_000, 100_000, 250_000, 75_000];
    for (let i = 0; i < 40; i++) {
      const nn = String(i).padStart(2, "0");
      await insertGig(db, {
        seller: i % 2 ? seller : other,
        category: i % 3 ? design : web,
        title: `${i % 3 === 0 ? "Widget" : "Gadget"} ${nn}`,
        description: i % 4 === 0 ? "A widget widget widget for you" : "A widget for you",
        rating: ratings[i % ratings.length]!,
        reviews: reviews[i % reviews.length]!,
        featured: i % 7 === 0,
        // six distinct instants with microseconds, so many gigs share one
        published: `2026-01-0${(i % 6) + 1} 10:00:00.12345${i % 6}+00`,
        packages: { basic: [prices[i % prices.length]!, [1, 3, 7, 14][i % 4]!] },
      });
    }
    await insertGig(db, { seller, category: design, title: "Widget draft", status: "draft", rating: 5, packages: { basic: [50_000, 1] } });
  });
  afterAll(() => t?.drop());

  async function walk(q: CatalogQuery, limit: number, between?: (page: number) => Promise<void>) {
    const ids: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await listCatalog(db, { ...q, cursor }, { limit });
      ids.push(...page.gigs.map((g) => g.id));
      cursor = page.nextCursor;
      pages++;
      if (pages > 60) throw new Error("paging does not end");
      if (between) await between(pages);
    } while (cursor);
    return { ids, pages };
  }

  const variants: [string, Partial<CatalogQuery>, number][] = [
    ["browse", {}, 40],
    ["search 'widget'", { q: "widget" }, 40],
    ["price 100k–500k", { price: "100000-500000" }, 24],
    ["design + rating 4", { category: "graphic-design", rating: "4" }, 20],
  ];

  for (const sort of SORTS) {
    it.each(variants)(`${sort}: %s, in pages of 5 and 7, equals one big page without repeats`, async (_name, over, count) => {
      const q = query({ ...over, sort });
      const big = await listCatalog(db, q, { limit: 100 });
      const ids = big.gigs.map((g) => g.id);
      expect(ids).toHaveLength(count);
      expect(big.total).toBe(count);
      expect(big.nextCursor).toBeNull();
      expect(new Set(ids).size).toBe(count);
      for (const limit of [5, 7]) {
        const walked = await walk(q, limit);
        expect(walked.ids).toEqual(ids);
        expect(walked.pages).toBe(Math.ceil(count / limit));
      }
    });
  }

  it("a page of exactly the remaining gigs has no next cursor", async () => {
    const walked = await walk(query({ sort: "rating" }), 8);
    expect(walked.pages).toBe(5);
    expect(walked.ids).toHaveLength(40);
  });

  it.each(SORTS)("a garbage cursor gives the first page (%s), never an error", async (sort) => {
    const first = (await listCatalog(db, query({ sort }), { limit: 5 })).gigs.map((g) => g.id);
    const otherSort = (await listCatalog(db, query({ sort: sort === "rating" ? "relevance" : "rating" }), { limit: 5 })).nextCursor;
    const garbage = [
      "xyz",
      "!!!!",
      "%00%ff",
      "a".repeat(200),
      b64({ a: 1 }),
      b64(null),
      b64("2026-01-01"),
      b64([]),
      b64(["1"]),
      b64([1, 2, 3, 4]),
      b64(["x", "y"]),
      b64(["' OR 1=1 --", "1"]),
      b64(["1); DROP TABLE gigs; --", "1", "1"]),
      otherSort!,
    ];
    for (const cursor of garbage) {
      const page = await listCatalog(db, query({ sort, cursor }), { limit: 5 });
      expect(
        page.gigs.map((g) => g.id),
        cursor,
      ).toEqual(first);
    }
    expect(await db("gigs").count<{ n: string }[]>({ n: "*" })).toEqual([{ n: 41 }]);
  });

  // Cursors are read from the URL: one holding a date that does not exist must not reach a ::timestamptz cast.
  it("a newest-sort cursor holding an impossible timestamp gives the first page, never an error", async () => {
    const first = (await listCatalog(db, query({ sort: "newest" }), { limit: 5 })).gigs.map((g) => g.id);
    for (const cursor of [b64(["9999-99-99 99:99:99", "1"]), b64(["----------", "1"]), b64(["2026-02-30 10:00:00+00", "5"])]) {
      const page = await listCatalog(db, query({ sort: "newest", cursor }), { limit: 5 });
      expect(page.gigs.map((g) => g.id)).toEqual(first);
    }
  });

  it("gigs added between page fetches cause no repeats: one sorting before the cursor is not shown, one after is", async () => {
    for (const [sort, before, after] of [
      ["newest", { published: "2027-01-01T00:00:00Z" }, { published: "2020-01-01T00:00:00Z" }],
      ["price-low", { packages: { basic: [1_000, 3] } }, { packages: { basic: [99_000_000, 3] } }],
      ["price-high", { packages: { basic: [99_000_000, 3] } }, { packages: { basic: [1_000, 3] } }],
      ["rating", { rating: 5, reviews: 500 }, { rating: 0, reviews: 0 }],
    ] as [Sort, Partial<GigRow>, Partial<GigRow>][]) {
      const q = query({ sort });
      const expected = (await listCatalog(db, q, { limit: 100 })).gigs.map((g) => g.id);
      let lateIds: number[] = [];
      const walked = await walk(q, 5, async (page) => {
        if (page !== 2) return;
        const base = { seller, category: design, published: "2026-01-03T00:00:00Z", packages: { basic: [200_000, 3] as [number, number] } };
        lateIds = [
          await insertGig(db, { ...base, title: `Late before ${sort}`, ...before }),
          await insertGig(db, { ...base, title: `Late after ${sort}`, ...after }),
        ];
      });
      expect(new Set(walked.ids).size, sort).toBe(walked.ids.length);
      expect(walked.ids, sort).toEqual([...expected, lateIds[1]]);
      await db("gigs").whereIn("id", lateIds).delete();
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// 3. Search.

describe("catalog search", () => {
  let t: TestDatabase;
  let db: Knex;

  beforeAll(async () => {
    t = await createTestDatabase();
    db = t.db;
    const design = await insertCategory(db, "graphic-design", "Graphic Design");
    const web = await insertCategory(db, "web-development", "Web Development");
    const amara = await insertUser(db, "amara_n", "freelancer");
    const held = await insertUser(db, "held_seller", "freelancer", "suspended");
    const day = (d: number) => `2026-01-${String(d).padStart(2, "0")}T09:00:00Z`;
    await insertGig(db, {
      seller: amara,
      category: design,
      title: "Logo design for your brand",
      description: "I draw a clean mark for your business.",
      tags: ["branding"],
      rating: 4.0,
      published: day(1),
      packages: { basic: [80_000, 3] },
    });
    // 'logo' only in the description, and better rated: a title match must still rank above it
    await insertGig(db, {
      seller: amara,
      category: design,
      title: "Business stationery",
      description: "Cards and letterheads, with a matching logo if you need one.",
      rating: 5.0,
      reviews: 90,
      featured: true,
      published: day(2),
      packages: { basic: [60_000, 3] },
    });
    await insertGig(db, {
      seller: amara,
      category: web,
      title: "Website design in Webflow",
      description: "Responsive sites that load fast.",
      rating: 4.8,
      published: day(3),
      packages: { basic: [300_000, 7] },
    });
    await insertGig(db, {
      seller: amara,
      category: design,
      title: "Logo animation",
      description: "Your logo brought to life with motion design.",
      rating: 4.2,
      published: day(4),
      packages: { basic: [400_000, 7] },
    });
    await insertGig(db, { seller: amara, category: design, title: "Logo design draft", status: "draft", rating: 5, packages: { basic: [10_000, 1] } });
    await insertGig(db, { seller: held, category: design, title: "Logo design cheap", rating: 5, published: day(5), packages: { basic: [10_000, 1] } });
  });
  afterAll(() => t?.drop());

  const titles = async (over: Partial<CatalogQuery>) => {
    const page = await listCatalog(db, query(over));
    return { titles: page.gigs.map((g) => g.title), total: page.total, searchedFor: page.searchedFor };
  };

  it("ranks a title match above a description-only match, whatever the rating", async () => {
    // 'Logo animation' has 'logo' in its title and its description, 'Logo design…' in its title only
    expect(await titles({ q: "logo" })).toEqual({
      titles: ["Logo animation", "Logo design for your brand", "Business stationery"],
      total: 3,
      searchedFor: null,
    });
    // without the search, the description-only gig would come first (featured, 5.0)
    expect((await titles({ category: "graphic-design" })).titles[0]).toBe("Business stationery");
  });

  it("matches words by stem and ignores letter case", async () => {
    expect(await titles({ q: "LOGOS" })).toMatchObject({ titles: ["Logo animation", "Logo design for your brand", "Business stationery"], total: 3 });
    // two equal title matches, the better rated first; then the description-only match
    expect(await titles({ q: "designs" })).toMatchObject({ titles: ["Website design in Webflow", "Logo design for your brand", "Logo animation"], total: 3 });
  });

  it("corrects 'logo desing' to 'logo design' and says so", async () => {
    expect(await correctQuery(db, "logo desing")).toBe("logo design");
    expect(await correctQuery(db, "logo design")).toBeNull();
    expect(await titles({ q: "logo desing" })).toEqual({ titles: ["Logo design for your brand", "Logo animation"], total: 2, searchedFor: "logo design" });
    expect(await titles({ q: "logo design" })).toEqual({ titles: ["Logo design for your brand", "Logo animation"], total: 2, searchedFor: null });
  });

  it("returns nothing, with a total of 0, for a query no gig matches", async () => {
    expect(await titles({ q: "xylophone" })).toEqual({ titles: [], total: 0, searchedFor: null });
    expect(await titles({ q: "logo webflow" })).toEqual({ titles: [], total: 0, searchedFor: null });
  });

  it("never finds a draft or a suspended seller's gig", async () => {
    expect(await titles({ q: "cheap" })).toEqual({ titles: [], total: 0, searchedFor: null });
    for (const q of ["logo design draft", "logo design cheap", "logo"]) {
      const found = await titles({ q });
      expect(found.titles, q).not.toContain("Logo design draft");
      expect(found.titles, q).not.toContain("Logo design cheap");
    }
    expect((await titles({ q: "logo design" })).total).toBe(2);
  });

  it("combines search with a filter and a sort", async () => {
    expect(await titles({ q: "logo", category: "graphic-design", sort: "price-low" })).toMatchObject({
      titles: ["Business stationery", "Logo design for your brand", "Logo animation"],
      total: 3,
    });
    expect(await titles({ q: "logo", sort: "price-high", price: "100000-500000" })).toMatchObject({ titles: ["Logo animation"], total: 1 });
    expect(await titles({ q: "design", category: "web-development", sort: "newest" })).toMatchObject({ titles: ["Website design in Webflow"], total: 1 });
    expect(await titles({ q: "logo", rating: "4.5", sort: "rating" })).toMatchObject({ titles: ["Business stationery"], total: 1 });
    expect(await titles({ q: "logo desing", sort: "newest" })).toEqual({
      titles: ["Logo animation", "Logo design for your brand"],
      total: 2,
      searchedFor: "logo design",
    });
  });

  it("survives very long and SQL- or regex-special queries", async () => {
    const specials = [
      "%_'\";--",
      "' OR '1'='1",
      "logo'; DROP TABLE gigs; --",
      "\\",
      ".*(?:[",
      "logo & | ! ( ) : * <-> ''",
      "<script>alert(1)</script>",
      "ლოგო 🎨",
      "a".repeat(10_000),
      "logo ".repeat(2_000),
      "desing ".repeat(2_000),
    ];
    for (const q of specials) {
      const page = await listCatalog(db, query({ q }));
      expect(page.total, q.slice(0, 20)).toBe(page.gigs.length);
    }
    expect((await listCatalog(db, query({ q: "logo ".repeat(2_000) }))).total).toBe(3);
    expect(await db("gigs").count<{ n: string }[]>({ n: "*" })).toEqual([{ n: 6 }]);
  });

  // Postgres refuses NUL in text ('invalid byte sequence for encoding "UTF8": 0x00'): the URL reader drops
  // control characters, and the model itself never passes one on.
  it("survives a NUL character in the query, as a URL can carry it", async () => {
    const q = parseCatalogQuery(new URLSearchParams("q=logo%00")).q;
    expect(q).toBe("logo");
    const page = await listCatalog(db, query({ q: "logo\u0000" }));
    expect(page.total).toBe(page.gigs.length);
    expect(page.total).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------------------------------------
// 4. The catalog's URL.

describe("parseCatalogQuery and catalogSearch", () => {
  const parse = (s: string) => parseCatalogQuery(new URLSearchParams(s));

  it("reads every known value", () => {
    expect(parse("q=logo&category=graphic-design&price=100000-500000&rating=4.5&delivery=3&sort=price-low&cursor=abc&vetted=1")).toEqual({
      q: "logo",
      category: "graphic-design",
      price: "100000-500000",
      rating: "4.5",
      delivery: "3",
      sort: "price-low",
      cursor: "abc",
      vetted: true,
    });
    expect(parse("")).toEqual(EMPTY_QUERY);
  });

  it("ignores unknown values and malformed categories", () => {
    expect(parse("sort=cheapest&price=0-100&rating=5&delivery=2&category=Graphic%20Design")).toEqual(EMPTY_QUERY);
    for (const sort of ["", "RATING", "toString", "__proto__", "constructor"]) expect(parse(`sort=${sort}`).sort).toBe("relevance");
    for (const price of ["under-99999", "toString", "hasOwnProperty"]) expect(parse(`price=${price}`).price).toBeNull();
    for (const rating of ["4.0", "3", "4.50", "valueOf"]) expect(parse(`rating=${rating}`).rating).toBeNull();
    for (const delivery of ["0", "14", "01", "1 "]) expect(parse(`delivery=${encodeURIComponent(delivery)}`).delivery).toBeNull();
    for (const category of ["../etc", "a_b", "UPPER", "", "a".repeat(61), "x'--", "émoji"])
      expect(parse(`category=${encodeURIComponent(category)}`).category).toBeNull();
    expect(parse(`category=${"a".repeat(60)}`).category).toBe("a".repeat(60));
  });

  it("trims q, folds its spaces and caps it at 100 characters", () => {
    expect(parse("q=%20%20logo%20%20%20design%20").q).toBe("logo design");
    expect(QUERY_MAX).toBe(100);
    expect(parse(`q=${"x".repeat(500)}`).q).toBe("x".repeat(100));
    expect(parse(`q=${encodeURIComponent(" ab ".repeat(100))}`).q).toHaveLength(100);
    expect(parse(`cursor=${"c".repeat(500)}`).cursor).toHaveLength(200);
  });

  it("catalogSearch writes only what differs from the defaults, and round-trips", () => {
    expect(catalogSearch(EMPTY_QUERY)).toBe("");
    expect(catalogSearch(query({ sort: "newest" }))).toBe("?sort=newest");
    const states: CatalogQuery[] = [
      query({ q: "logo & co / 100%", category: "graphic-design", price: "above-500000", rating: "3.5", delivery: "7", sort: "price-high" }),
      query({ q: "web", sort: "rating", cursor: "WyIxIiwiMiJd" }),
      query({ delivery: "1" }),
    ];
    for (const state of states) expect(parse(catalogSearch(state).slice(1))).toEqual(state);
    // without a cursor unless one is given
    expect(catalogSearch({ ...states[1]!, cursor: undefined })).toBe("?q=web&sort=rating");
  });
});

// ---------------------------------------------------------------------------------------------------------
// 5. The gig form and saving gigs.

const NO_TIER = { name: "", description: "", price: "", delivery: "", revisions: "", features: "" };

function form(over: Record<string, unknown> = {}) {
  return {
    title: "Logo design for your brand",
    category: "graphic-design",
    description: "I design a logo you will love.",
    tags: ["logo", "branding"],
    images: [] as string[],
    basic: { name: "Starter", description: "One concept", price: "75,000", delivery: "14", revisions: "2", features: "Source file\nPNG" },
    standard: { ...NO_TIER },
    premium: { ...NO_TIER },
    ...over,
  };
}

/** Every issue as "path: message". */
function problems(intent: GigIntent, input: unknown): string[] {
  const result = gigFormSchema(intent).safeParse(input);
  // Said as an English reader reads them (the schema's messages are catalogue keys).
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${words(i.message)}`);
}

function valid(intent: GigIntent, input: unknown) {
  const result = gigFormSchema(intent).safeParse(input);
  if (!result.success) throw new Error(JSON.stringify(result.error.issues));
  return result.data;
}

describe("the gig form", () => {
  it("accepts a complete gig and converts it", () => {
    const value = valid(
      "publish",
      form({ tags: [" Logo ", "logo", "LOGO", "brand   identity", ""], standard: { ...NO_TIER, price: "UGX 150,000", delivery: "3" } }),
    );
    expect(value).toEqual({
      title: "Logo design for your brand",
      categorySlug: "graphic-design",
      description: "I design a logo you will love.",
      tags: ["Logo", "brand identity"],
      images: [],
      packages: [
        { tier: "basic", name: "Starter", description: "One concept", priceUgx: 75_000, deliveryDays: 14, revisions: 2, features: ["Source file", "PNG"] },
        { tier: "standard", name: "Standard", description: "", priceUgx: 150_000, deliveryDays: 3, revisions: 1, features: [] },
      ],
    });
  });

  it.each([
    ["12.5", "UGX has no cents: enter a whole number of shillings"],
    ["-5", "The price must be more than zero"],
    ["0", "The price must be more than zero"],
    ["100000001", "The price can be at most UGX 100,000,000"],
    ["abc", "Enter the price in whole shillings, such as 75000"],
    ["1e5", "Enter the price in whole shillings, such as 75000"],
  ])("refuses the price %j", (price, message) => {
    for (const intent of ["publish", "draft"] as const) {
      expect(problems(intent, form({ basic: { ...form().basic, price } }))).toEqual([`basic.price: ${message}`]);
    }
    expect(problems("draft", form({ premium: { ...NO_TIER, price, delivery: "30" } }))).toEqual([`premium.price: ${message}`]);
  });

  it("accepts the price limits 1 and 100,000,000", () => {
    expect(valid("publish", form({ basic: { ...form().basic, price: "1" } })).packages[0]?.priceUgx).toBe(1);
    expect(valid("publish", form({ basic: { ...form().basic, price: "100,000,000" } })).packages[0]?.priceUgx).toBe(100_000_000);
  });

  it("refuses a delivery time not offered for the tier", () => {
    expect(problems("publish", form({ standard: { ...NO_TIER, price: "150000", delivery: "1" } }))).toEqual([
      "standard.delivery: Choose 3, 7, 14, 21 days for Standard",
    ]);
    expect(problems("publish", form({ basic: { ...form().basic, delivery: "2" } }))).toEqual(["basic.delivery: Choose 1, 3, 7, 14 days for Basic"]);
    expect(problems("draft", form({ premium: { ...NO_TIER, price: "1000000", delivery: "14" } }))).toEqual([]);
    expect(problems("draft", form({ premium: { ...NO_TIER, price: "1000000", delivery: "3" } }))).toEqual([
      "premium.delivery: Choose 7, 14, 21, 30 days for Premium",
    ]);
  });

  it("refuses an 81-character title and accepts 80", () => {
    expect(problems("publish", form({ title: "t".repeat(81) }))).toEqual(["title: A title can have at most 80 characters"]);
    expect(problems("draft", form({ title: "t".repeat(81) }))).toEqual(["title: A title can have at most 80 characters"]);
    expect(problems("publish", form({ title: "t".repeat(80) }))).toEqual([]);
    expect(problems("draft", form({ title: "   " }))).toEqual(["title: Give your gig a title"]);
  });

  it("refuses 30 tags and a 200-character tag, accepts 10 tags of 30 characters", () => {
    expect(problems("publish", form({ tags: Array.from({ length: 30 }, (_, i) => `tag${i}`) }))).toEqual(["tags: A gig can have at most 10 tags"]);
    expect(problems("publish", form({ tags: ["logo", "x".repeat(200)] }))).toEqual(["tags.1: Each tag can have at most 30 characters"]);
    expect(problems("publish", form({ tags: Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(30, "x")) }))).toEqual([]);
  });

  it("publishing needs a description and the Basic price and delivery", () => {
    expect(problems("publish", form({ basic: { ...NO_TIER } }))).toEqual([
      "basic.price: Enter the Basic price in UGX",
      "basic.delivery: Choose the Basic delivery time",
    ]);
    expect(problems("publish", form({ basic: { ...form().basic, price: "" } }))).toEqual(["basic.price: Enter the Basic price in UGX"]);
    expect(problems("publish", form({ basic: { ...form().basic, delivery: "" } }))).toEqual(["basic.delivery: Choose the Basic delivery time"]);
    expect(problems("publish", form({ description: "   " }))).toEqual(["description: Describe what the buyer gets before you publish"]);
  });

  it("a draft needs only a title and a category", () => {
    const value = valid("draft", { title: "Logo ideas", category: "graphic-design" });
    expect(value).toEqual({ title: "Logo ideas", categorySlug: "graphic-design", description: "", tags: [], images: [], packages: [] });
    expect(problems("draft", { category: "graphic-design" })).toEqual(["title: Give your gig a title"]);
    expect(problems("draft", { title: "Logo ideas" })).toEqual(["category: Choose a category"]);
    expect(problems("publish", { title: "Logo ideas", category: "graphic-design" })).not.toEqual([]);
  });
});

describe("saving, showing and removing gigs", () => {
  let t: TestDatabase;
  let db: Knex;
  let seller: number;
  let rival: number;
  let client: number;
  let admin: number;
  let held: number;

  const counts = async () => ({
    gigs: Number((await db("gigs").count<{ n: string }[]>({ n: "*" }))[0]!.n),
    packages: Number((await db("gig_packages").count<{ n: string }[]>({ n: "*" }))[0]!.n),
    images: Number((await db("gig_images").count<{ n: string }[]>({ n: "*" }))[0]!.n),
  });

  beforeAll(async () => {
    t = await createTestDatabase();
    db = t.db;
    await insertCategory(db, "graphic-design", "Graphic Design");
    await insertCategory(db, "web-development", "Web Development");
    seller = await insertUser(db, "amara_n", "freelancer");
    rival = await insertUser(db, "brian_k", "freelancer");
    client = await insertUser(db, "cathy_c", "client");
    admin = await insertUser(db, "admin_a", "admin");
    held = await insertUser(db, "held_seller", "freelancer", "suspended");
  });
  afterAll(() => t?.drop());

  async function publishOne(over: Record<string, unknown> = {}, owner = seller) {
    return saveGig(db, owner, valid("publish", form(over)), "published");
  }

  it("stores a gig with its packages, images, starting price and fastest delivery, and makes it searchable", async () => {
    const images = [randomUUID(), randomUUID()];
    for (const key of images) await recordUpload(db, seller, key);
    const { id, removedImages } = await publishOne({
      title: "Quokka mascot logo",
      images,
      standard: { ...NO_TIER, price: "150000", delivery: "3" },
      premium: { ...NO_TIER, name: "Everything", price: "300000", delivery: "7" },
    });
    expect(removedImages).toEqual([]);
    const row = await db("gigs").where({ id }).first();
    expect(row).toMatchObject({
      seller_id: seller,
      title: "Quokka mascot logo",
      status: "published",
      starting_price_ugx: 75_000,
      fastest_delivery_days: 3,
      tags: ["logo", "branding"],
    });
    expect(row.published_at).toBeInstanceOf(Date);
    const packages = await db("gig_packages")
      .where({ gig_id: id })
      .orderBy("price_ugx")
      .select("tier", "name", "price_ugx", "delivery_days", "revisions", "features", "popular");
    expect(packages).toEqual([
      { tier: "basic", name: "Starter", price_ugx: 75_000, delivery_days: 14, revisions: 2, features: ["Source file", "PNG"], popular: false },
      { tier: "standard", name: "Standard", price_ugx: 150_000, delivery_days: 3, revisions: 1, features: [], popular: true },
      { tier: "premium", name: "Everything", price_ugx: 300_000, delivery_days: 7, revisions: 1, features: [], popular: false },
    ]);
    const page = await getGigPage(db, id, null);
    expect(page?.images).toEqual(images);
    expect(page?.packages.map((p) => p.tier)).toEqual(["basic", "standard", "premium"]);
    const found = await listCatalog(db, query({ q: "quokka", delivery: "3" }));
    expect(found.gigs.map((g) => g.id)).toEqual([id]);
    expect(found.gigs[0]).toMatchObject({ startingPriceUgx: 75_000, imageKey: images[0] });
    expect(await correctQuery(db, "quoka")).toBe("quokka");
  });

  it("saves a draft without packages: hidden from the catalog and from other people", async () => {
    const { id } = await saveGig(db, seller, valid("draft", { title: "Zebra sketch", category: "graphic-design" }), "draft");
    expect(await db("gigs").where({ id }).first("status", "starting_price_ugx", "fastest_delivery_days", "published_at")).toEqual({
      status: "draft",
      starting_price_ugx: null,
      fastest_delivery_days: null,
      published_at: null,
    });
    expect((await listCatalog(db, query({ q: "zebra" }))).total).toBe(0);
    expect(await correctQuery(db, "zebraa")).toBeNull();
  });

  it("refuses an unknown category and stores nothing", async () => {
    const before = await counts();
    const attempt = saveGig(db, seller, valid("publish", form({ category: "no-such-category" })), "published");
    await expect(attempt).rejects.toBeInstanceOf(GigInputError);
    await expect(saveGig(db, seller, valid("publish", form({ category: "no-such-category" })), "published")).rejects.toMatchObject({ field: "category" });
    await expect(saveGig(db, seller, valid("draft", { title: "x", category: "" }), "draft")).rejects.toMatchObject({ field: "category" });
    expect(await counts()).toEqual(before);
  });

  it("refuses an image another member uploaded, or nobody did, and stores nothing", async () => {
    const mine = randomUUID();
    const theirs = randomUUID();
    await recordUpload(db, seller, mine);
    await recordUpload(db, rival, theirs);
    await recordUpload(db, seller, theirs); // a second claim on the same key changes nothing
    const before = await counts();
    for (const images of [[mine, theirs], [randomUUID()]]) {
      const attempt = saveGig(db, seller, valid("publish", form({ images })), "published");
      await expect(attempt).rejects.toBeInstanceOf(GigInputError);
      await expect(attempt).rejects.toMatchObject({ field: "images" });
    }
    expect(await counts()).toEqual(before);
  });

  it("edits only the seller's own gig", async () => {
    const { id } = await publishOne({ title: "Original title" });
    const before = await db("gigs").where({ id }).first();
    const beforePackages = await db("gig_packages").where({ gig_id: id }).orderBy("id");
    const edit = valid("publish", form({ title: "Hijacked", basic: { ...form().basic, price: "1" } }));
    await expect(saveGig(db, rival, edit, "published", id)).rejects.toBeInstanceOf(GigInputError);
    await expect(saveGig(db, rival, edit, "draft", id)).rejects.toMatchObject({ field: "form" });
    expect(await db("gigs").where({ id }).first()).toEqual(before);
    expect(await db("gig_packages").where({ gig_id: id }).orderBy("id")).toEqual(beforePackages);
    expect(await getOwnGig(db, id, rival)).toBeNull();

    // the owner's edit keeps the first publication date and re-prices the gig
    await saveGig(db, seller, edit, "published", id);
    const after = await db("gigs").where({ id }).first();
    expect(after).toMatchObject({ title: "Hijacked", starting_price_ugx: 1, published_at: before.published_at });
    expect(await getOwnGig(db, id, seller)).toMatchObject({ id, title: "Hijacked", category: "graphic-design", status: "published" });
  });

  it("returns the images an edit drops, and keeps the ones it keeps", async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    await recordUpload(db, seller, a);
    await recordUpload(db, seller, b);
    const { id } = await publishOne({ images: [a, b] });
    const edited = await saveGig(db, seller, valid("publish", form({ images: [b] })), "published", id);
    expect(edited).toEqual({ id, removedImages: [a] });
    expect(await db("gig_images").where({ gig_id: id }).pluck("storage_key")).toEqual([b]);
  });

  it("pauses and publishes again only for the owner", async () => {
    const { id } = await publishOne({ title: "Pausable pelican" });
    const inCatalog = async () => (await listCatalog(db, query({ q: "pelican" }))).gigs.map((g) => g.id);
    expect(await inCatalog()).toEqual([id]);
    expect(await setGigStatus(db, rival, id, "paused")).toBe(false);
    expect(await db("gigs").where({ id }).first("status")).toEqual({ status: "published" });
    expect(await setGigStatus(db, seller, id, "published")).toBe(false); // already published
    expect(await setGigStatus(db, seller, id, "paused")).toBe(true);
    expect(await db("gigs").where({ id }).first("status")).toEqual({ status: "paused" });
    expect(await inCatalog()).toEqual([]);
    expect(await getGigPage(db, id, null)).toBeNull();
    expect(await getGigPage(db, id, { id: seller, role: "freelancer" })).toMatchObject({ id, status: "paused" });
    expect(await setGigStatus(db, rival, id, "published")).toBe(false);
    expect(await db("gigs").where({ id }).first("status")).toEqual({ status: "paused" });
    expect(await setGigStatus(db, seller, id, "published")).toBe(true);
    expect(await inCatalog()).toEqual([id]);

    const draft = await saveGig(db, seller, valid("draft", { title: "Never published", category: "graphic-design" }), "draft");
    expect(await setGigStatus(db, seller, draft.id, "paused")).toBe(false);
    expect(await setGigStatus(db, seller, draft.id, "published")).toBe(false);
    expect(await db("gigs").where({ id: draft.id }).first("status")).toEqual({ status: "draft" });
  });

  it("deletes only the owner's gig, returning its images and forgetting their uploads", async () => {
    const key = randomUUID();
    await recordUpload(db, seller, key);
    const { id } = await publishOne({ images: [key] });
    expect(await deleteGig(db, rival, id)).toBeNull();
    expect(await db("gigs").where({ id }).first("id")).toEqual({ id });
    expect(await deleteGig(db, seller, id)).toEqual([key]);
    expect(await db("gigs").where({ id }).first()).toBeUndefined();
    expect(await db("gig_packages").where({ gig_id: id })).toEqual([]);
    expect(await db("uploads").where({ storage_key: key })).toEqual([]);
    expect(await deleteGig(db, seller, id)).toBeNull();
  });

  it("shows a draft to its owner and admins only, a published gig to everyone", async () => {
    const draft = await saveGig(db, seller, valid("draft", { title: "Secret draft", category: "graphic-design" }), "draft");
    const published = await publishOne({ title: "Public gig" });
    expect(await getGigPage(db, draft.id, { id: seller, role: "freelancer" })).toMatchObject({
      id: draft.id,
      title: "Secret draft",
      status: "draft",
      packages: [],
    });
    expect(await getGigPage(db, draft.id, { id: admin, role: "admin" })).toMatchObject({ id: draft.id, status: "draft" });
    expect(await getGigPage(db, draft.id, null)).toBeNull();
    expect(await getGigPage(db, draft.id, { id: client, role: "client" })).toBeNull();
    expect(await getGigPage(db, draft.id, { id: rival, role: "freelancer" })).toBeNull();
    for (const viewer of [null, { id: client, role: "client" }, { id: rival, role: "freelancer" }, { id: seller, role: "freelancer" }]) {
      expect(await getGigPage(db, published.id, viewer)).toMatchObject({
        id: published.id,
        title: "Public gig",
        status: "published",
        category: { slug: "graphic-design", name: "Graphic Design" },
        seller: { id: seller, username: "amara_n" },
        packages: [{ tier: "basic", priceUgx: 75_000, deliveryDays: 14, popular: false }],
      });
    }
  });

  it("hides a suspended seller's gig, and answers null for ids that are not gigs", async () => {
    const { id } = await publishOne({ title: "Held seller's gig" }, held);
    expect(await getGigPage(db, id, null)).toBeNull();
    expect(await getGigPage(db, id, { id: client, role: "client" })).toBeNull();
    expect(await getGigPage(db, id, { id: rival, role: "freelancer" })).toBeNull();
    expect((await listCatalog(db, query({ q: "held" }))).total).toBe(0);
    await db("users").where({ id: held }).update({ status: "active" });
    expect(await getGigPage(db, id, null)).toMatchObject({ id }); // the same gig is shown once the seller is active
    await db("users").where({ id: held }).update({ status: "suspended" });
    for (const bad of [0, -1, Number.NaN, 1.5, Number.POSITIVE_INFINITY, 2 ** 60, 999_999]) {
      expect(await getGigPage(db, bad, { id: admin, role: "admin" }), String(bad)).toBeNull();
      expect(await getOwnGig(db, bad, seller), String(bad)).toBeNull();
    }
  });

  it("stores HTML and script in a description verbatim", async () => {
    const description = `<script>alert("x")</script><img src=x onerror=alert(1)> & "quotes" 'single' <b>bold</b>`;
    const { id } = await publishOne({ description, title: "<b>Bold</b> title" });
    const page = await getGigPage(db, id, null);
    expect(page?.description).toBe(description);
    expect(page?.title).toBe("<b>Bold</b> title");
  });

  it("reads the gig page, its packages, images and a page of reviews in one statement, also once planned generically", async () => {
    const images = [randomUUID(), randomUUID()];
    for (const key of images) await recordUpload(db, seller, key);
    const { id } = await publishOne({ title: "Okapi poster", images, premium: { ...NO_TIER, price: "300000", delivery: "7" } });
    const other = await publishOne({ title: "Other poster" });
    const start = Date.UTC(2026, 10, 1, 9, 0, 0, 123);
    // Twelve reviews a minute apart, and one of the same minute as the last (the newer id comes first).
    for (let i = 1; i <= 12; i++)
      await createReview(db, { gigId: id, reviewerId: client, rating: 1 + (i % 5), comment: `Okapi review ${i}`, createdAt: new Date(start + i * 60_000) });
    await createReview(db, { gigId: id, reviewerId: client, rating: 5, comment: "Okapi review 13", createdAt: new Date(start + 12 * 60_000) });
    await createReview(db, { gigId: other.id, reviewerId: client, rating: 2, comment: "Not about the okapi", createdAt: new Date(start + 99 * 60_000) });
    const seen: string[] = [];
    const record = (q: { sql: string }) => seen.push(q.sql);
    for (let run = 1; run <= 7; run++) {
      // Runs 6 and later use Postgres's generic plan of the prepared statement: the same answer.
      if (run === 7) db.on("query", record);
      const first = await getGigPageWithReviews(db, id, null, 1);
      db.off("query", record);
      expect(first?.gig).toMatchObject({ id, title: "Okapi poster", images });
      expect(first?.gig.packages.map((p) => [p.tier, p.priceUgx])).toEqual([
        ["basic", 75_000],
        ["premium", 300_000],
      ]);
      expect(
        first?.reviews.map((r) => r.comment),
        `run ${run}`,
      ).toEqual([13, 12, 11, 10, 9, 8, 7, 6, 5, 4].map((n) => `Okapi review ${n}`));
      expect(first?.reviews[1]).toMatchObject({ rating: 3, reviewerName: expect.any(String), gigId: id, gigTitle: "Okapi poster" });
      expect(first?.reviews[1]?.createdAt).toEqual(new Date(start + 12 * 60_000));
      expect(first?.hasMore).toBe(true);
      const second = await getGigPageWithReviews(db, id, null, 2);
      expect(second?.reviews.map((r) => r.comment)).toEqual(["Okapi review 3", "Okapi review 2", "Okapi review 1"]);
      expect(second?.hasMore).toBe(false);
    }
    expect(seen).toHaveLength(1);
    expect(await getGigPageWithReviews(db, id, null, 3)).toMatchObject({ reviews: [], hasMore: false });
    await setGigStatus(db, seller, id, "paused");
    expect(await getGigPageWithReviews(db, id, null, 1)).toBeNull();
    expect(await getGigPageWithReviews(db, id, { id: seller, role: "freelancer" }, 1)).toMatchObject({ gig: { id, status: "paused" }, hasMore: true });
  });
});
