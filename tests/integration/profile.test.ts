import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemoData } from "../../scripts/lib/seed";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createUser } from "../support/factories";
import { startTestServer, type TestServer } from "../support/test-server";

describe("seller profiles and reviews", () => {
  let t: TestDatabase;
  let server: TestServer;
  beforeAll(async () => {
    t = await createTestDatabase();
    await seedDemoData(t.db);
    server = await startTestServer({ DATABASE_URL: t.url });
  });
  afterAll(async () => {
    await server?.stop();
    await t?.drop();
  });
  const get = (path: string) => fetch(`${server.baseUrl}${path}`, { redirect: "manual" });

  it("demo data: every gig's and seller's rating and count are what its reviews add up to", async () => {
    const gigs = await t.db.raw(`
      SELECT g.id, g.rating, g.reviews_count, count(r.id)::int AS n, coalesce(avg(r.rating), 0) AS avg
      FROM gigs g LEFT JOIN reviews r ON r.gig_id = g.id GROUP BY g.id`);
    expect(gigs.rows.length).toBeGreaterThanOrEqual(60);
    for (const g of gigs.rows) {
      expect(g.reviews_count, `gig ${g.id}`).toBe(g.n);
      expect(Math.abs(g.rating - g.avg), `gig ${g.id}`).toBeLessThan(0.006);
    }
    const sellers = await t.db.raw(`
      SELECT u.id, u.rating, u.reviews_count, count(r.id)::int AS n, coalesce(avg(r.rating), 0) AS avg
      FROM users u JOIN gigs g ON g.seller_id = u.id LEFT JOIN reviews r ON r.gig_id = g.id GROUP BY u.id`);
    for (const s of sellers.rows) {
      expect(s.reviews_count).toBe(s.n);
      expect(Math.abs(s.rating - s.avg)).toBeLessThan(0.01);
    }
    // Reviewers are clients, never the seller themselves.
    const self = await t.db.raw(`SELECT count(*)::int AS n FROM reviews r JOIN gigs g ON g.id = r.gig_id WHERE r.reviewer_id = g.seller_id`);
    expect(self.rows[0].n).toBe(0);
  });

  it("shows a seller's facts, published gigs and newest reviews, from the database", async () => {
    const seller = await t.db("users").where({ username: "james_okello" }).first();
    const res = await get("/user/james_okello");
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const text of [seller.name, "@james_okello", seller.level, seller.location, "Graphic design", "Luganda", `(${seller.reviews_count} reviews)`]) {
      expect(html).toContain(text);
    }
    // The demo's sellers have fewer than three buyer conversations, so no response time is said at all (ADR 049).
    expect(seller.response_time_hours).toBeNull();
    expect(html).not.toContain("Response time");
    const titles = await t.db("gigs").where({ seller_id: seller.id, status: "published" }).pluck("title");
    for (const title of titles) expect(html).toContain(title);
    const newest = await t
      .db("reviews as r")
      .join("gigs as g", "g.id", "r.gig_id")
      .where("g.seller_id", seller.id)
      .orderBy([
        { column: "r.created_at", order: "desc" },
        { column: "r.id", order: "desc" },
      ])
      .first("r.comment", "r.id");
    expect(html).toContain(newest.comment);
    expect(html).toContain('?reviews=2#reviews"');
  });

  it("pages through reviews, newest first, without repeating or skipping one", async () => {
    const seller = await t.db("users").where({ username: "james_okello" }).first();
    const expected = await t
      .db("reviews as r")
      .join("gigs as g", "g.id", "r.gig_id")
      .where("g.seller_id", seller.id)
      .orderBy([
        { column: "r.created_at", order: "desc" },
        { column: "r.id", order: "desc" },
      ])
      .limit(30)
      .pluck("r.id");
    const shown: number[] = [];
    for (const page of [1, 2, 3]) {
      const html = await (await get(`/user/james_okello?reviews=${page}`)).text();
      shown.push(...[...html.matchAll(/id="review-(\d+)"/g)].map((m) => Number(m[1])));
    }
    expect(shown).toEqual(expected.map(Number));
    // Out-of-range or malformed page numbers fall back to the first page, never an error.
    for (const bad of ["0", "-1", "abc", "1e9"]) expect((await get(`/user/james_okello?reviews=${bad}`)).status).toBe(200);
  });

  it("hides a draft gig, and answers 404 for unknown, malformed, suspended and admin usernames", async () => {
    const seller = await t.db("users").where({ username: "james_okello" }).first();
    const gig = await t.db("gigs").where({ seller_id: seller.id }).first();
    await t.db("gigs").where({ id: gig.id }).update({ status: "draft" });
    expect(await (await get("/user/james_okello")).text()).not.toContain(`href="/gig/${gig.id}"`);
    await t.db("gigs").where({ id: gig.id }).update({ status: "published" });

    const held = await createUser(t.db, { role: "freelancer", name: "Held Seller", email: "held@example.ug", status: "suspended" });
    for (const path of ["/user/nobody_here", "/user/%3Cscript%3E", `/user/${"a".repeat(300)}`, "/user/held_seller", "/user/admin"]) {
      expect((await get(path)).status, path).toBe(404);
    }
    await t.db("users").where({ id: held.id }).delete();
  });
});
