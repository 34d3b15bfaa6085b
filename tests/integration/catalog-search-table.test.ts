/**
 * Search reads gig_search (migration 20261126210001; ADR 022): one row per gig a buyer may see, written by
 * triggers on gigs and users. These tests change gigs the ways the app does (the operations a seller and an
 * admin call, a review, the platform's featured flag) and check that search shows the change at once and
 * that the table holds exactly the visible gigs with the level their rating gives; and that a broad search's
 * first page is one statement after the spelling check, also once Postgres plans it generically.
 */
import type { Knex } from "knex";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changeUserStatus } from "~/operations/admin-users.server";
import { deleteGig, pauseGig, resumeGig, saveGig } from "~/operations/gigs.server";
import { EMPTY_QUERY, listCatalog } from "~/models/catalog-search.server";
import { createDb } from "~/server/db.server";
import { gigFormSchema, type CatalogQuery } from "~/schemas/gig";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createCategory, createGig, createReview, createUser, type TestUser } from "../support/factories";
import { memberActor } from "../support/orders";

process.env.QUEUE_PREFIX = `t_search_table_${process.pid}_${Date.now()}`;

const query = (over: Partial<CatalogQuery> = {}): CatalogQuery => ({ ...EMPTY_QUERY, ...over });

describe("gig_search follows every change to a gig and its seller", () => {
  let t: TestDatabase;
  let db: Knex;
  let seller: TestUser;
  let admin: TestUser;
  let client: TestUser;

  beforeAll(async () => {
    t = await createTestDatabase();
    db = t.db;
    await createCategory(db, { slug: "graphics-design", name: "Graphics & Design" });
    seller = await createUser(db, { role: "freelancer", name: "Amara N" });
    admin = await createUser(db, { role: "admin", name: "Soko Admin" });
    client = await createUser(db, { role: "client", name: "Brian K" });
  });
  afterAll(() => t?.drop());

  const ids = async (over: Partial<CatalogQuery>) => (await listCatalog(db, query(over))).gigs.map((g) => g.id);
  const gig = (fields: Record<string, unknown>) =>
    gigFormSchema("publish").parse({
      title: "Okapi mascot logo",
      category: "graphics-design",
      description: "A mascot for your brand.",
      tags: ["logo"],
      basic: { price: "90000", delivery: "3" },
      standard: {},
      premium: {},
      ...fields,
    });
  const save = async (fields: Record<string, unknown>, gigId?: number) => {
    const result = await saveGig(memberActor(seller), { intent: "publish", gig: gig(fields), gigId }, { db });
    if (!result.ok) throw new Error(JSON.stringify(result));
    return result.value.id;
  };

  /** What gig_search should hold, worked out from gigs and users by the visibility and level rules. */
  async function expectInStep() {
    const expected = await db("gigs as g")
      .join("users as u", "u.id", "g.seller_id")
      .where({ "g.status": "published", "u.status": "active" })
      .whereNotNull("g.starting_price_ugx")
      .orderBy("g.id")
      .select(
        "g.id",
        db.raw("CASE WHEN g.featured THEN 6 ELSE least(6, floor(g.rating * ln(1 + g.reviews_count) / 5)) END::int AS level"),
        "g.starting_price_ugx",
        "g.rating",
        "g.reviews_count",
      );
    const actual = await db("gig_search").orderBy("id").select("id", db.raw("level::int AS level"), "starting_price_ugx", "rating", "reviews_count");
    expect(actual).toEqual(expected);
  }

  it("finds a gig by its new words and price as soon as the seller saves it, and no longer by its old ones", async () => {
    const id = await save({ title: "Okapi mascot logo" });
    expect(await ids({ q: "okapi" })).toEqual([id]);
    await save({ title: "Pangolin sticker pack", tags: ["stickers"], basic: { price: "600000", delivery: "3" } }, id);
    expect(await ids({ q: "okapi" })).toEqual([]);
    expect(await ids({ q: "pangolin sticker" })).toEqual([id]);
    expect(await ids({ q: "pangolin", price: "under-100000" })).toEqual([]);
    expect(await ids({ q: "pangolin", price: "above-500000" })).toEqual([id]);
    await expectInStep();
  });

  it("drops a paused gig and a suspended seller's gigs from search, and brings them back", async () => {
    const id = await save({ title: "Aardvark letterhead" });
    const other = await save({ title: "Aardvark business card" });
    const both = [id, other].sort((a, b) => b - a);
    const found = async () => (await ids({ q: "aardvark" })).sort((a, b) => b - a);
    expect(await found()).toEqual(both);

    expect((await pauseGig(memberActor(seller), { gigId: id }, { db })).ok).toBe(true);
    expect(await found()).toEqual([other]);
    expect((await resumeGig(memberActor(seller), { gigId: id }, { db })).ok).toBe(true);
    expect(await found()).toEqual(both);

    expect((await changeUserStatus(memberActor(admin), { userId: seller.id, action: "suspend" }, { db })).ok).toBe(true);
    expect(await found()).toEqual([]);
    expect((await listCatalog(db, query({ q: "aardvark", sort: "price-low" }))).total).toBe(0);
    await expectInStep();
    expect((await changeUserStatus(memberActor(admin), { userId: seller.id, action: "activate" }, { db })).ok).toBe(true);
    expect(await found()).toEqual(both);
    await expectInStep();
  });

  it("forgets a deleted gig", async () => {
    const id = await save({ title: "Narwhal menu design" });
    expect(await ids({ q: "narwhal" })).toEqual([id]);
    expect((await deleteGig(memberActor(seller), { gigId: id }, { db })).ok).toBe(true);
    expect(await ids({ q: "narwhal" })).toEqual([]);
    expect(await db("gig_search").where({ id })).toEqual([]);
  });

  it("moves a gig up the levels when it is reviewed or featured", async () => {
    const reviewed = (await createGig(db, { sellerId: seller.id, category: "graphics-design", title: "Heron banner" })).id;
    const featured = (await createGig(db, { sellerId: seller.id, category: "graphics-design", title: "Heron flyer" })).id;
    const levelOf = async (id: number) => Number((await db("gig_search").where({ id }).first("level")).level);
    expect([await levelOf(reviewed), await levelOf(featured)]).toEqual([0, 0]);
    // Three 5-star reviews: 5 × ln 4 ÷ 5 = 1.4, level 1; the rating sort sees the new rating too.
    for (let i = 0; i < 3; i++) await createReview(db, { gigId: reviewed, reviewerId: client.id, rating: 5 });
    expect(await levelOf(reviewed)).toBe(1);
    expect(await ids({ q: "heron", sort: "rating" })).toEqual([reviewed, featured]);
    await db("gigs").where({ id: featured }).update({ featured: true });
    expect(await levelOf(featured)).toBe(6);
    // With one candidate wanted, the featured gig is the only one at the top level: it comes first.
    expect((await listCatalog(db, query({ q: "heron" }), { candidates: 1 })).gigs.map((g) => g.id)).toEqual([featured, reviewed]);
    await expectInStep();
  });
});

describe("a broad search's first page", () => {
  let t: TestDatabase;
  let db: Knex;

  beforeAll(async () => {
    t = await createTestDatabase();
    db = t.db;
    await createCategory(db, { slug: "graphics-design", name: "Graphics & Design" });
    const seller = await createUser(db, { role: "freelancer", name: "Amara N" });
    for (let i = 0; i < 8; i++) {
      await createGig(db, { sellerId: seller.id, category: "graphics-design", title: `Ibis logo ${i}`, rating: 5, reviewsCount: i < 4 ? 500 : 0 });
    }
  });
  afterAll(() => t?.drop());

  /** The statements one call runs. */
  async function statements(run: () => Promise<unknown>) {
    const seen: string[] = [];
    const record = (q: { sql: string }) => seen.push(q.sql);
    db.on("query", record);
    try {
      await run();
    } finally {
      db.off("query", record);
    }
    return seen;
  }

  it("is one statement, the spelling check included: the candidates, their count and the count past them", async () => {
    // Four gigs at level 6 are enough for four candidates: ranked, and the other four counted, at once.
    const call = () => listCatalog(db, query({ q: "ibis" }), { candidates: 4, limit: 3 });
    for (let run = 1; run <= 8; run++) {
      // Runs 6 and later use Postgres's generic plan of the prepared statements: the same answer.
      const page = await call();
      expect(page.total, `run ${run}`).toBe(8);
      expect(
        page.gigs.map((g) => g.title),
        `run ${run}`,
      ).toEqual(["Ibis logo 3", "Ibis logo 2", "Ibis logo 1"]);
    }
    expect(await statements(call)).toHaveLength(1);
  });

  it("corrects a misspelt word within that one statement", async () => {
    const call = () => listCatalog(db, query({ q: "ibis logoo" }), { candidates: 4, limit: 3 });
    for (let run = 1; run <= 7; run++) {
      const page = await call();
      expect(page.searchedFor, `run ${run}`).toBe("ibis logo");
      expect(page.total, `run ${run}`).toBe(8);
      expect(
        page.gigs.map((g) => g.title),
        `run ${run}`,
      ).toEqual(["Ibis logo 3", "Ibis logo 2", "Ibis logo 1"]);
    }
    expect(await statements(call)).toHaveLength(1);
    // A later page runs the check on its own, then reads with the corrected query.
    const first = await call();
    const next = await listCatalog(db, query({ q: "ibis logoo", cursor: first.nextCursor }), { candidates: 4, limit: 3 });
    expect(next.searchedFor).toBe("ibis logo");
    expect(next.gigs.map((g) => g.title)).toEqual(["Ibis logo 0", "Ibis logo 7", "Ibis logo 6"]);
  });

  it("keeps prepared statements for searches without filters only, not one set per filter combination", async () => {
    const single = createDb(t.url, { min: 1, max: 1 });
    try {
      const prepared = async () => Number((await single.raw("SELECT count(*) AS n FROM pg_prepared_statements")).rows[0].n);
      // The search box's searches: a first page (its spelling check inside), and the standalone spelling check
      // that a search sorted otherwise runs first.
      await listCatalog(single, query({ q: "ibis" }), { candidates: 4 });
      await listCatalog(single, query({ q: "ibis", sort: "price-high" }));
      const unfiltered = await prepared();
      expect(unfiltered).toBeGreaterThan(0);
      for (const over of [{ category: "graphics-design" }, { price: "under-100000" }, { rating: "4" }, { delivery: "3" }] as const) {
        for (const sort of ["relevance", "price-high"] as const) await listCatalog(single, query({ q: "ibis", sort, ...over }));
      }
      expect(await prepared()).toBe(unfiltered);
    } finally {
      await single.destroy();
    }
  });

  it("ranks a lower level in the same statement when the top level has too few candidates", async () => {
    // Level 6 holds four matches, too few for five candidates: the level below (every match) is ranked.
    for (let run = 1; run <= 7; run++) {
      const page = await listCatalog(db, query({ q: "ibis" }), { candidates: 5, limit: 3 });
      expect(
        page.gigs.map((g) => g.title),
        `run ${run}`,
      ).toEqual(["Ibis logo 7", "Ibis logo 6", "Ibis logo 5"]);
      expect(page.total, `run ${run}`).toBe(8);
    }
    expect(await statements(() => listCatalog(db, query({ q: "ibis" }), { candidates: 5, limit: 3 }))).toHaveLength(1);
    expect((await listCatalog(db, query({ q: "ibis" }), { candidates: 5 })).gigs.map((g) => g.title)).toEqual([
      "Ibis logo 7",
      "Ibis logo 6",
      "Ibis logo 5",
      "Ibis logo 4",
      "Ibis logo 3",
      "Ibis logo 2",
      "Ibis logo 1",
      "Ibis logo 0",
    ]);
  });
});
