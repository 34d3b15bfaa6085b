/**
 * The JSON API's review calls (ADR 041) against the built server, each answer checked against the OpenAPI
 * document: a buyer reviews their completed order; a gig's and a seller's reviews newest first, a page at a
 * time by cursor; a review changed or deleted by its author within 7 days, with the gig's and the seller's
 * rating and count exact after it; bad input (400 beside the field, nothing written), another member's ids
 * (404, nothing changed) and a review older than 7 days (409).
 *
 * Orders are completed with the operations on this file's database (tests/support/orders.ts); the reviews
 * lists' rows are loaded in bulk with the platform's operation, dated as a test needs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hideReview } from "~/operations/review-replies.server";
import { createReviews } from "~/operations/reviews.server";
import { createGig, createUser, type TestUser } from "../support/factories";
import { apiClient, createAppToken, type ApiAnswer } from "../support/api";
import { completedTestOrder, memberActor, orderTestContext, paidTestOrder, system } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const t = orderTestContext("apireviews", {
  parties: { seller: { name: "Nakato Sarah", username: "nakato_designs" }, buyer: { name: "Okello James" }, gig: { title: "Logo for a coffee shop" } },
});
let server: TestServer;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, TRUST_PROXY: "loopback", PAYMENTS_SANDBOX: "1" });
  api = apiClient(server.baseUrl);
});
afterAll(async () => {
  await server?.stop();
});

/** Each test's calls come from their own address, so the per-address limits of one test never meet another's. */
let address = 0;
const from = () => ({ "X-Forwarded-For": `198.51.100.${++address}` });

const tokens = new Map<number, string>();
async function tokenOf(u: TestUser) {
  if (!tokens.has(u.id)) tokens.set(u.id, await createAppToken(t.db, u.id));
  return tokens.get(u.id)!;
}

const count = async (table: string, where: Record<string, unknown> = {}) =>
  Number((await t.db(table).where(where).count<{ c: string }[]>({ c: "*" }).first())?.c);
const ratingOf = async (table: "gigs" | "users", id: number) => {
  const row = await t.db(table).where({ id }).first("rating", "reviews_count");
  return { rating: Number(row.rating), count: Number(row.reviews_count) };
};
const mean = (stars: number[]) => Math.round((stars.reduce((a, b) => a + b, 0) / stars.length) * 100) / 100;

/** Both roll-ups are what the review rows say they are. */
async function expectExact(seller: TestUser, gigs: number[]) {
  for (const gigId of gigs) {
    const stars = (await t.db("reviews").where({ gig_id: gigId }).pluck("rating")).map(Number);
    expect(await ratingOf("gigs", gigId), `gig ${gigId}`).toEqual({ rating: stars.length ? mean(stars) : 0, count: stars.length });
  }
  const all = (await t.db("reviews as r").join("gigs as g", "g.id", "r.gig_id").where("g.seller_id", seller.id).pluck("r.rating")).map(Number);
  expect(await ratingOf("users", seller.id), "seller").toEqual({ rating: all.length ? mean(all) : 0, count: all.length });
}

/** A seller with a published gig of their own, so each test's figures are its own. */
async function shop(name: string) {
  const seller = await createUser(t.db, { role: "freelancer", name });
  const gig = await createGig(t.db, { sellerId: seller.id, title: `${name}'s gig` });
  return { seller, gigId: gig.id };
}

let buyers = 0;
/** A review of the gig by a new buyer, through POST /reviews; its id. */
async function posted(seller: TestUser, gigId: number, rating: number, comment = "") {
  const buyer = await createUser(t.db, { name: `Review Buyer ${++buyers}` });
  const { orderId } = await completedTestOrder(t, buyer, seller, gigId);
  const answer = await api.call("post", "/reviews", "/reviews", { headers: from(), token: await tokenOf(buyer), body: { orderId, rating, comment } });
  expect(answer.status).toBe(201);
  return { buyer, orderId, id: answer.body.data.id as number };
}

describe("POST /reviews", () => {
  it("stores the buyer's review of their completed order and answers it with 201; the gig and seller roll up", async () => {
    const { orderId } = await completedTestOrder(t, t.buyer, t.seller, t.gigId);
    const answer = await api.call("post", "/reviews", "/reviews", {
      headers: from(),
      token: await tokenOf(t.buyer),
      body: { orderId, rating: 4, comment: "  Webale nyo, quick work.  " },
    });
    expect(answer.status).toBe(201);
    expect(answer.body.data).toEqual({
      id: expect.any(Number),
      gig: { id: t.gigId, title: "Logo for a coffee shop" },
      reviewerName: "Okello James",
      rating: 4,
      comment: "Webale nyo, quick work.",
      createdAt: expect.stringMatching(/Z$/),
      editedAt: null,
      reply: null,
    });
    expect(await t.db("reviews").where({ id: answer.body.data.id }).first("reviewer_id", "order_id", "rating")).toEqual({
      reviewer_id: t.buyer.id,
      order_id: orderId,
      rating: 4,
    });
    expect(await ratingOf("gigs", t.gigId)).toEqual({ rating: 4, count: 1 });
    expect(await ratingOf("users", t.seller.id)).toEqual({ rating: 4, count: 1 });

    const again = await api.call("post", "/reviews", "/reviews", { headers: from(), token: await tokenOf(t.buyer), body: { orderId, rating: 1 } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("order.already_reviewed");
    expect(await count("reviews", { order_id: orderId })).toBe(1);
  });

  it("refuses bad stars, a long comment, a missing order and unknown fields beside each field, and writes nothing", async () => {
    const buyer = await createUser(t.db, { name: "Careless Buyer" });
    const { orderId } = await completedTestOrder(t, buyer, t.seller, t.gigId);
    const before = await count("reviews");
    const bad = await api.call("post", "/reviews", "/reviews", {
      headers: from(),
      token: await tokenOf(buyer),
      body: { orderId, rating: 9, comment: "x".repeat(2001), gigId: t.gigId },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("request.invalid");
    expect(bad.body.issues.rating[0].message).toBe("Choose from 1 to 5 stars");
    expect(bad.body.issues.comment[0].message).toBe("A review can have at most 2,000 characters");
    expect(bad.body.issues.form[0].message).toMatch(/gigId/);
    const noOrder = await api.call("post", "/reviews", "/reviews", { headers: from(), token: await tokenOf(buyer), body: { rating: 5 } });
    expect(noOrder.status).toBe(400);
    expect(Object.keys(noOrder.body.issues)).toEqual(["orderId"]);
    expect(await count("reviews")).toBe(before);
  });

  it("another member's order is 404, an unfinished one 409, without a token 401; nothing is written", async () => {
    const { orderId: theirs } = await completedTestOrder(t, t.buyer, t.seller, t.gigId);
    const stranger = await createUser(t.db, { name: "Nosy Stranger" });
    const before = { reviews: await count("reviews"), gig: await ratingOf("gigs", t.gigId) };
    for (const orderId of [theirs, 987_654]) {
      const answer = await api.call("post", "/reviews", "/reviews", { headers: from(), token: await tokenOf(stranger), body: { orderId, rating: 1 } });
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ code: "order.not_found", message: expect.any(String) });
    }
    const { orderId: unfinished } = await paidTestOrder(t, t.buyer, t.gigId);
    const early = await api.call("post", "/reviews", "/reviews", { headers: from(), token: await tokenOf(t.buyer), body: { orderId: unfinished, rating: 5 } });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe("review.order_not_completed");
    const anonymous = await api.call("post", "/reviews", "/reviews", { headers: from(), body: { orderId: theirs, rating: 5 } });
    expect(anonymous.status).toBe(401);
    expect({ reviews: await count("reviews"), gig: await ratingOf("gigs", t.gigId) }).toEqual(before);
  });
});

/** Reviews of the gig loaded in bulk, the i-th `i` minutes before `base`, with ids in the same order. */
async function loadReviews(gigId: number, reviewers: TestUser[], base = new Date("2026-11-30T12:00:00Z")) {
  const result = await createReviews(
    system,
    {
      gigId,
      reviews: reviewers.map((u, i) => ({ reviewerId: u.id, rating: 1 + (i % 5), comment: `Review ${i}`, createdAt: new Date(base.getTime() - i * 60_000) })),
    },
    { db: t.db },
  );
  if (!result.ok) throw new Error(JSON.stringify(result));
  return result.value.ids;
}

/** Every page of a list, following nextCursor. */
async function allPages(template: string, path: string, limit: number, token?: string) {
  const ids: number[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 20; pages++) {
    const answer: ApiAnswer = await api.call("get", template, `${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, {
      headers: from(),
      token,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.items.length).toBeLessThanOrEqual(limit);
    ids.push(...answer.body.data.items.map((r: { id: number }) => r.id));
    cursor = answer.body.data.nextCursor;
    if (!cursor) return ids;
  }
  throw new Error("too many pages");
}

describe("GET /reviews/gig/{id}", () => {
  it("pages a gig's reviews newest first by cursor, none skipped or repeated, reviews of one microsecond included", async () => {
    const { gigId } = await shop("Paged Seller");
    const reviewers = await Promise.all([0, 1, 2, 3, 4, 5, 6].map((i) => createUser(t.db, { name: `Paged Reviewer ${i}` })));
    const ids = await loadReviews(gigId, reviewers);
    // Three reviews of one moment, to the microsecond: the id decides between them.
    await t
      .db("reviews")
      .whereIn("id", ids.slice(2, 5))
      .update({ created_at: t.db.raw("timestamptz '2026-11-30 11:57:30.123456+00'") });
    const newestFirst = [ids[0], ids[1], ids[4], ids[3], ids[2], ids[5], ids[6]];
    for (const limit of [1, 2, 3, 100]) expect(await allPages("/reviews/gig/{id}", `/reviews/gig/${gigId}`, limit), `limit ${limit}`).toEqual(newestFirst);

    const first = await api.call("get", "/reviews/gig/{id}", `/reviews/gig/${gigId}?limit=1`, { headers: from() });
    expect(first.body.data.items).toEqual([
      {
        id: ids[0],
        gig: { id: gigId, title: "Paged Seller's gig" },
        reviewerName: "Paged Reviewer 0",
        rating: 1,
        comment: "Review 0",
        createdAt: "2026-11-30T12:00:00.000Z",
        editedAt: null,
        reply: null,
      },
    ]);
    expect(JSON.stringify(first.body)).not.toMatch(/email|reviewer_id|@example/);
  });

  it("answers 400 beside a malformed cursor, limit or id", async () => {
    for (const [path, field] of [
      [`/reviews/gig/${t.gigId}?cursor=garbage`, "query.cursor"],
      [`/reviews/gig/${t.gigId}?cursor=1_2_3`, "query.cursor"],
      [`/reviews/gig/${t.gigId}?limit=0`, "query.limit"],
      [`/reviews/gig/${t.gigId}?limit=101`, "query.limit"],
      ["/reviews/gig/abc", "path.id"],
    ] as const) {
      const answer = await api.call("get", "/reviews/gig/{id}", path, { headers: from() });
      expect(answer.status, path).toBe(400);
      expect(Object.keys(answer.body.issues), path).toEqual([field]);
    }
  });

  it("a gig not on offer is 404 to anyone but its seller, as its page is; an unknown gig 404", async () => {
    const { seller, gigId } = await shop("Drafting Seller");
    await loadReviews(gigId, [await createUser(t.db, { name: "Early Reviewer" })]);
    await t.db("gigs").where({ id: gigId }).update({ status: "paused" });
    const stranger = await createUser(t.db, { name: "Curious Member" });
    for (const token of [undefined, await tokenOf(stranger)]) {
      const answer = await api.call("get", "/reviews/gig/{id}", `/reviews/gig/${gigId}`, { headers: from(), token });
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe("gig.not_found");
    }
    const own = await api.call("get", "/reviews/gig/{id}", `/reviews/gig/${gigId}`, { headers: from(), token: await tokenOf(seller) });
    expect(own.status).toBe(200);
    expect(own.body.data.items).toHaveLength(1);
    expect((await api.call("get", "/reviews/gig/{id}", "/reviews/gig/987654", { headers: from() })).status).toBe(404);
  });
});

describe("GET /reviews/user/{id}", () => {
  it("pages the reviews of a seller's published gigs newest first, by id or by username alike", async () => {
    const seller = await createUser(t.db, { role: "freelancer", name: "Two Gig Seller", username: "two_gig_seller" });
    const [a, b, paused] = [
      await createGig(t.db, { sellerId: seller.id }),
      await createGig(t.db, { sellerId: seller.id }),
      await createGig(t.db, { sellerId: seller.id }),
    ];
    const reviewers = await Promise.all([0, 1, 2].map((i) => createUser(t.db, { name: `Seller Reviewer ${i}` })));
    const ofA = await loadReviews(a.id, reviewers, new Date("2026-11-30T12:00:00Z"));
    const ofB = await loadReviews(b.id, reviewers, new Date("2026-11-30T12:00:30Z"));
    await loadReviews(paused.id, reviewers, new Date("2026-11-30T13:00:00Z"));
    await t.db("gigs").where({ id: paused.id }).update({ status: "paused" });
    const expected = [ofB[0], ofA[0], ofB[1], ofA[1], ofB[2], ofA[2]];
    expect(await allPages("/reviews/user/{id}", `/reviews/user/${seller.id}`, 4)).toEqual(expected);
    expect(await allPages("/reviews/user/{id}", "/reviews/user/two_gig_seller", 2)).toEqual(expected);
  });

  it("an unknown member, an admin or a suspended member is 404; a malformed id 400", async () => {
    const admin = await createUser(t.db, { role: "admin", name: "Quiet Admin", username: "quiet_admin" });
    const held = await createUser(t.db, { role: "freelancer", name: "Held Seller", status: "suspended" });
    for (const id of ["987654", "nobody_here", "quiet_admin", String(admin.id), held.username]) {
      const answer = await api.call("get", "/reviews/user/{id}", `/reviews/user/${id}`, { headers: from() });
      expect(answer.status, id).toBe(404);
      expect(answer.body.code).toBe("member.not_found");
    }
    const bad = await api.call("get", "/reviews/user/{id}", "/reviews/user/No%20Such", { headers: from() });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.issues)).toEqual(["path.id"]);
  });
});

describe("PUT /reviews/{id}", () => {
  it("its author changes the stars or words; the gig's and the seller's rating and count stay exact", async () => {
    const { seller, gigId } = await shop("Edited Seller");
    const other = await createGig(t.db, { sellerId: seller.id });
    const mine = await posted(seller, gigId, 5, "Great");
    await posted(seller, gigId, 2);
    await posted(seller, other.id, 4);
    const answer = await api.call("put", "/reviews/{id}", `/reviews/${mine.id}`, { headers: from(), token: await tokenOf(mine.buyer), body: { rating: 1 } });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ id: mine.id, rating: 1, comment: "Great", gig: { id: gigId } });
    expect(await ratingOf("gigs", gigId)).toEqual({ rating: 1.5, count: 2 });
    await expectExact(seller, [gigId, other.id]);
    const words = await api.call("put", "/reviews/{id}", `/reviews/${mine.id}`, {
      headers: from(),
      token: await tokenOf(mine.buyer),
      body: { comment: "Late, in the end." },
    });
    expect(words.body.data).toMatchObject({ rating: 1, comment: "Late, in the end." });
  });

  it("refuses bad stars, an empty change and unknown fields beside the field, and changes nothing", async () => {
    const { seller, gigId } = await shop("Strict Edited Seller");
    const mine = await posted(seller, gigId, 4, "Fine");
    const token = await tokenOf(mine.buyer);
    for (const [body, field] of [
      [{ rating: 0 }, "rating"],
      [{ rating: "many" }, "rating"],
      [{ comment: "x".repeat(2001) }, "comment"],
      [{}, "rating"],
      [{ rating: 5, orderId: 1 }, "form"],
    ] as const) {
      const answer = await api.call("put", "/reviews/{id}", `/reviews/${mine.id}`, { headers: from(), token, body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(answer.body.issues), JSON.stringify(body)).toEqual([field]);
    }
    expect(await t.db("reviews").where({ id: mine.id }).first("rating", "comment")).toEqual({ rating: 4, comment: "Fine" });
    expect(await ratingOf("gigs", gigId)).toEqual({ rating: 4, count: 1 });
  });

  it("another member's review, or the gig's seller's try, is 404 and stays as it was", async () => {
    const { seller, gigId } = await shop("Guarded Edit Seller");
    const mine = await posted(seller, gigId, 4, "Fine");
    const stranger = await createUser(t.db, { name: "Editing Stranger" });
    for (const who of [stranger, seller]) {
      const answer = await api.call("put", "/reviews/{id}", `/reviews/${mine.id}`, {
        headers: from(),
        token: await tokenOf(who),
        body: { rating: 1, comment: "Bad" },
      });
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ code: "review.not_found", message: "We could not find that review." });
    }
    expect(await t.db("reviews").where({ id: mine.id }).first("rating", "comment")).toEqual({ rating: 4, comment: "Fine" });
    expect(await ratingOf("gigs", gigId)).toEqual({ rating: 4, count: 1 });
  });

  it("after 7 days is 409 review.edit_window_closed, and nothing changes", async () => {
    const { seller, gigId } = await shop("Old Review Seller");
    const mine = await posted(seller, gigId, 4, "Fine");
    await t.db.raw(`UPDATE reviews SET created_at = now() - interval '7 days 1 minute' WHERE id = ?`, [mine.id]);
    const answer = await api.call("put", "/reviews/{id}", `/reviews/${mine.id}`, { headers: from(), token: await tokenOf(mine.buyer), body: { rating: 1 } });
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({ code: "review.edit_window_closed", message: "A review can be changed or deleted only within 7 days of posting it." });
    expect(await t.db("reviews").where({ id: mine.id }).first("rating")).toEqual({ rating: 4 });
    expect(await ratingOf("gigs", gigId)).toEqual({ rating: 4, count: 1 });
  });
});

describe("DELETE /reviews/{id}", () => {
  it("its author deletes it; the gig's and the seller's rating and count are of the reviews left", async () => {
    const { seller, gigId } = await shop("Deleted Seller");
    const other = await createGig(t.db, { sellerId: seller.id });
    const mine = await posted(seller, gigId, 1);
    await posted(seller, gigId, 4);
    await posted(seller, other.id, 5);
    const answer = await api.call("delete", "/reviews/{id}", `/reviews/${mine.id}`, { headers: from(), token: await tokenOf(mine.buyer) });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: null });
    expect(await count("reviews", { id: mine.id })).toBe(0);
    expect(await ratingOf("gigs", gigId)).toEqual({ rating: 4, count: 1 });
    expect(await ratingOf("users", seller.id)).toEqual({ rating: 4.5, count: 2 });
    await expectExact(seller, [gigId, other.id]);
    const gone = await api.call("delete", "/reviews/{id}", `/reviews/${mine.id}`, { headers: from(), token: await tokenOf(mine.buyer) });
    expect(gone.status).toBe(404);
  });

  it("another member's review is 404, a review older than 7 days 409, a malformed id 400; none is deleted", async () => {
    const { seller, gigId } = await shop("Kept Review Seller");
    const mine = await posted(seller, gigId, 3);
    const stranger = await createUser(t.db, { name: "Deleting Stranger" });
    const theirs = await api.call("delete", "/reviews/{id}", `/reviews/${mine.id}`, { headers: from(), token: await tokenOf(stranger) });
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe("review.not_found");
    const bad = await api.call("delete", "/reviews/{id}", "/reviews/-3", { headers: from(), token: await tokenOf(mine.buyer) });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.issues)).toEqual(["path.id"]);
    await t.db.raw(`UPDATE reviews SET created_at = now() - interval '8 days' WHERE id = ?`, [mine.id]);
    const late = await api.call("delete", "/reviews/{id}", `/reviews/${mine.id}`, { headers: from(), token: await tokenOf(mine.buyer) });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe("review.edit_window_closed");
    expect(await count("reviews", { id: mine.id })).toBe(1);
    expect(await ratingOf("gigs", gigId)).toEqual({ rating: 3, count: 1 });
  });
});

describe("POST /reviews/{id}/reply", () => {
  it("the gig's seller replies once (201, shown in the lists); a second reply is 409, anyone else 403; a hidden review is in no list", async () => {
    const { seller, gigId } = await shop("Replying Seller");
    const mine = await posted(seller, gigId, 5, "Great");
    const path = `/reviews/${mine.id}/reply`;
    const reply = (token: string, text: string) => api.call("post", "/reviews/{id}/reply", path, { headers: from(), token, body: { reply: text } });
    const stranger = await reply(await tokenOf(mine.buyer), "Not mine");
    expect(stranger.status).toBe(403);
    expect(stranger.body.code).toBe("review.reply_not_seller");
    const answered = await reply(await tokenOf(seller), "  Thank you!  ");
    expect(answered.status).toBe(201);
    expect(answered.body.data).toMatchObject({ id: mine.id, reply: { text: "Thank you!", createdAt: expect.stringMatching(/Z$/) } });
    const again = await reply(await tokenOf(seller), "Once more");
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("review.already_replied");
    const listed = await api.call("get", "/reviews/gig/{id}", `/reviews/gig/${gigId}`, { headers: from() });
    expect(listed.body.data.items.map((r: { id: number; reply: unknown }) => [r.id, r.reply])).toEqual([[mine.id, answered.body.data.reply]]);

    const admin = await createUser(t.db, { role: "admin", name: "Api Review Admin" });
    expect((await hideReview(memberActor(admin), { reviewId: mine.id, reason: "Spam" }, { db: t.db })).ok).toBe(true);
    const after = await api.call("get", "/reviews/gig/{id}", `/reviews/gig/${gigId}`, { headers: from() });
    expect(after.body.data.items).toEqual([]);
    const bySeller = await api.call("get", "/reviews/user/{id}", `/reviews/user/${seller.id}`, { headers: from() });
    expect(bySeller.body.data.items).toEqual([]);
  });
});
