/**
 * A relevance search ranks a bounded candidate set (ADR 022, see CANDIDATES in app/models/catalog-search.server.ts):
 * the matches at the highest popularity level that has enough of them come first, by text rank, then the
 * other matches. The fixture is small, so the tests pass a small `candidates`; the expected orders are
 * written out by hand. Levels: floor(rating × ln(1 + reviews) ÷ 5), at most 6, all six when featured.
 */
import type { Knex } from "knex";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CANDIDATES, EMPTY_QUERY, listCatalog } from "~/models/catalog-search.server";
import type { CatalogQuery } from "~/schemas/gig";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createCategory, createGig, createReview, createUser } from "../support/factories";

const query = (over: Partial<CatalogQuery> = {}): CatalogQuery => ({ ...EMPTY_QUERY, sort: "relevance", ...over });

// 'widget' in the title once (equal text rank) unless said otherwise; level in brackets.
const BLUE = "Blue widget"; //          5.00 / 500 reviews   [6]
const REPAIR = "Widget repair"; //      4.80 / 400           [5]
const GREEN = "Green widget"; //        4.50 / 60            [3]
const DESIGN = "Widget design"; //      4.00 / 10            [1]
const RED = "Red widget"; //            3.00 / 2             [0]
const PLAIN = "Plain widget"; //        0.00 / 0, featured   [6]
const STATIONERY = "Stationery set"; // 5.00 / 800, 'widget' only in its description (lower text rank) [6]

describe("relevance search over a bounded candidate set", () => {
  let t: TestDatabase;
  let db: Knex;
  let seller: number;
  let category: string;
  const ids = new Map<string, number>();

  beforeAll(async () => {
    t = await createTestDatabase();
    db = t.db;
    category = (await createCategory(db, { slug: "gadgets", name: "Gadgets" })).slug;
    seller = (await createUser(db, { role: "freelancer", name: "Amara N", username: "amara_n", email: "amara@example.ug" })).id;
    const gig = async (title: string, rating: number, reviewsCount: number, more: { featured?: boolean; description?: string; price?: number } = {}) => {
      const { id } = await createGig(db, {
        sellerId: seller,
        category,
        title,
        rating,
        reviewsCount,
        featured: more.featured ?? false,
        description: more.description ?? "",
        packages: { basic: { priceUgx: more.price ?? 100_000, deliveryDays: 3 } },
      });
      ids.set(title, id);
    };
    await gig(BLUE, 5, 500);
    await gig(REPAIR, 4.8, 400);
    await gig(GREEN, 4.5, 60);
    await gig(DESIGN, 4, 10);
    await gig(RED, 3, 2);
    await gig(PLAIN, 0, 0, { featured: true });
    await gig(STATIONERY, 5, 800, { description: "Letterheads and cards, with a widget sticker.", price: 900_000 });
  });
  afterAll(() => t?.drop());

  const titles = async (over: Partial<CatalogQuery>, options: { candidates?: number; limit?: number } = {}) =>
    (await listCatalog(db, query(over), options)).gigs.map((g) => g.title);

  /** Every page from the first, with this page size: the titles in order. */
  async function walk(over: Partial<CatalogQuery>, options: { candidates: number; limit: number }, between?: (page: number) => Promise<void>) {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 1; page <= 20; page++) {
      const result = await listCatalog(db, query({ ...over, cursor }), options);
      seen.push(...result.gigs.map((g) => g.title));
      cursor = result.nextCursor;
      if (!cursor) return seen;
      if (between) await between(page);
    }
    throw new Error("paging does not end");
  }

  it("orders a search matching at most CANDIDATES gigs by text rank alone, as before", async () => {
    const byRank = [BLUE, REPAIR, GREEN, DESIGN, RED, PLAIN, STATIONERY];
    expect(CANDIDATES).toBeGreaterThanOrEqual(100);
    expect(await titles({ q: "widget" })).toEqual(byRank);
    expect(await titles({ q: "widget" }, { candidates: Infinity })).toEqual(byRank);
    expect((await listCatalog(db, query({ q: "widget" }), { candidates: 3 })).total).toBe(7);
  });

  it("ranks the candidates of the highest level with enough of them first, then the other matches", async () => {
    // Level 6 holds three matches (Blue, Plain, Stationery): enough for 3 candidates. The description-only
    // match still ranks below the title matches among them; the rest follow by text rank, then rating.
    expect(await titles({ q: "widget" }, { candidates: 3 })).toEqual([BLUE, PLAIN, STATIONERY, REPAIR, GREEN, DESIGN, RED]);
    // Four need level 5 (adds Repair); five need level 3 (adds Green).
    expect(await titles({ q: "widget" }, { candidates: 4 })).toEqual([BLUE, REPAIR, PLAIN, STATIONERY, GREEN, DESIGN, RED]);
    expect(await titles({ q: "widget" }, { candidates: 5 })).toEqual([BLUE, REPAIR, GREEN, PLAIN, STATIONERY, DESIGN, RED]);
    // The count of all matches stays exact whichever level is taken (or none).
    for (const candidates of [1, 3, 4, 5, 7, 8]) expect((await listCatalog(db, query({ q: "widget" }), { candidates })).total, `${candidates}`).toBe(7);
    expect((await listCatalog(db, query({ q: "widget" }), { candidates: 3, count: false })).total).toBeNull();
  });

  it("counts candidates after the filters", async () => {
    // Rated 4.5 and up: level 6 has Blue and Stationery only, so level 5 (adding Repair) makes the three.
    expect(await titles({ q: "widget", rating: "4.5" }, { candidates: 3 })).toEqual([BLUE, REPAIR, STATIONERY, GREEN]);
    expect((await listCatalog(db, query({ q: "widget", rating: "4.5" }), { candidates: 3 })).total).toBe(4);
    // Up to 500,000: Stationery is out; level 6 keeps Blue and Plain, level 5 adds Repair.
    expect(await titles({ q: "widget", price: "100000-500000" }, { candidates: 3 })).toEqual([BLUE, REPAIR, PLAIN, GREEN, DESIGN, RED]);
  });

  it("pages across the candidates' end without repeating or skipping a gig", async () => {
    const whole = await titles({ q: "widget" }, { candidates: 3, limit: 100 });
    for (const limit of [1, 2, 3, 4]) expect(await walk({ q: "widget" }, { candidates: 3, limit }), `limit ${limit}`).toEqual(whole);
  });

  it("keeps the first page's candidate level on later pages while gigs change level", async () => {
    const stationery = ids.get(STATIONERY)!;
    try {
      // After the first page (Blue, Plain), Stationery loses its reviews and drops out of level 6.
      const seen = await walk({ q: "widget" }, { candidates: 3, limit: 2 }, async (page) => {
        if (page === 1) await db("gigs").where({ id: stationery }).update({ reviews_count: 0 });
      });
      expect(seen).toEqual([BLUE, PLAIN, REPAIR, GREEN, DESIGN, RED, STATIONERY]);
    } finally {
      await db("gigs").where({ id: stationery }).update({ reviews_count: 800 });
    }
  });

  it("never lets a buyer's words match the level markers", async () => {
    for (const q of ["level", "level 6", "~level 6", "'~level 6'", "level6"]) {
      expect((await listCatalog(db, query({ q }), { candidates: 1 })).total, q).toBe(0);
    }
  });

  it("moves a gig into the candidates when reviews raise its level", async () => {
    const client = (await createUser(db, { role: "client", name: "Brian K", username: "brian_k", email: "brian@example.ug" })).id;
    const { id: gadget } = await createGig(db, {
      sellerId: seller,
      category,
      title: "Gadget gadget tune-up",
      packages: { basic: { priceUgx: 90_000, deliveryDays: 3 } },
    });
    const { id: rated } = await createGig(db, {
      sellerId: seller,
      category,
      title: "Gadget cleaning",
      rating: 5,
      reviewsCount: 3,
      packages: { basic: { priceUgx: 90_000, deliveryDays: 3 } },
    });
    const order = async () => (await listCatalog(db, query({ q: "gadget" }), { candidates: 1 })).gigs.map((g) => g.id);
    // 'gadget' twice in its title ranks the tune-up higher, but only the rated gig is at level 1.
    expect(await order()).toEqual([rated, gadget]);
    expect((await listCatalog(db, query({ q: "gadget" }), { candidates: Infinity })).gigs.map((g) => g.id)).toEqual([gadget, rated]);
    // Three reviews of 4 stars: 4 × ln 4 ÷ 5 = 1.1, level 1 as well: both are candidates, by text rank.
    for (let i = 0; i < 3; i++) await createReview(db, { gigId: gadget, reviewerId: client, rating: 4 });
    expect(await order()).toEqual([gadget, rated]);
  });
});
