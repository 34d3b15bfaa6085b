/**
 * The reviews operations against a real Postgres: who may review (a member, never the gig's seller, never a
 * visitor), of which order (their own completed order of that gig, once, even when posted twice at once),
 * what input is refused, the gig's and seller's rating and count kept equal to their reviews (after many, and
 * with reviews arriving at once), and the reviewer's activity row written iff the review commits; a review
 * changed or deleted by its author within 7 days, never by anyone else or later, with both roll-ups exact
 * after it. Orders are bought and completed through the order operations with the sandbox provider.
 */
import { parseWithZod } from "@conform-to/zod";
import { describe, expect, it } from "vitest";
import type { Actor } from "~/operations/core.server";
import { cancelOrder, deliverOrder } from "~/operations/orders.server";
import { createReview, createReviews, deleteReview, updateReview } from "~/operations/reviews.server";
import { msg } from "~/i18n/message-key";
import { ReviewSchema, type ReviewInput } from "~/schemas/review";
import { createGig, createUser, type TestUser } from "../support/factories";
import { eventKinds } from "../support/order-checks";
import { completedTestOrder, memberActor, opts, orderTestContext, paidTestOrder, placeTestOrder, system, visitor } from "../support/orders";
import { words } from "../support/words";

const t = orderTestContext("reviews", { parties: { seller: { name: "Review Seller" }, buyer: { name: "Review Buyer" } } });

const review = (actor: Actor, input: Partial<ReviewInput> & { gigId: number }) => createReview(actor, { rating: 5, comment: "", ...input }, { db: t.db });
const count = async (table: string, where: Record<string, unknown> = {}) =>
  Number((await t.db(table).where(where).count<{ c: string }[]>({ c: "*" }).first())?.c);
const ratingOf = async (table: "gigs" | "users", id: number) => {
  const row = await t.db(table).where({ id }).first("rating", "reviews_count");
  return { rating: Number(row.rating), count: Number(row.reviews_count) };
};
const mean = (stars: number[]) => Math.round((stars.reduce((a, b) => a + b, 0) / stars.length) * 100) / 100;

/** A completed order of the gig, bought by the buyer from its seller: what a member's review is of. */
async function bought(by: TestUser, from: TestUser, gig: number) {
  return (await completedTestOrder(t, by, from, gig)).orderId;
}

describe("createReview", () => {
  it("stores a buyer's review of their completed order, rolls the gig's and the seller's rating and count up, and records it on the buyer's activity and the order's timeline", async () => {
    const orderId = await bought(t.buyer, t.seller, t.gigId);
    const result = await review(memberActor(t.buyer), { gigId: t.gigId, orderId, rating: 4, comment: "  Good work and quick replies.  " });
    expect(result).toMatchObject({ ok: true, value: { id: expect.any(Number) } });
    const id = result.ok ? result.value.id : 0;
    expect(await t.db("reviews").where({ id }).first("gig_id", "reviewer_id", "rating", "comment", "order_id")).toEqual({
      gig_id: t.gigId,
      reviewer_id: t.buyer.id,
      rating: 4,
      comment: "Good work and quick replies.",
      order_id: orderId,
    });
    expect(await ratingOf("gigs", t.gigId)).toEqual({ rating: 4, count: 1 });
    expect(await ratingOf("users", t.seller.id)).toEqual({ rating: 4, count: 1 });
    const activity = await t.db("activity").where({ user_id: t.buyer.id, kind: "review_left" }).select("details");
    expect(activity.map((a) => a.details)).toEqual([{ gigId: t.gigId, reviewId: id, rating: 4, orderId }]);
    const reviewed = await t
      .db("order_events")
      .where({ order_id: orderId, kind: "reviewed" })
      .select("actor_id", "actor_role", "from_status", "to_status", "reason");
    expect(reviewed).toEqual([{ actor_id: t.buyer.id, actor_role: "buyer", from_status: "completed", to_status: "completed", reason: "4 of 5 stars" }]);
    // The seller's own activity is theirs to make: a review of their gig is not something they did.
    expect(await count("activity", { user_id: t.seller.id })).toBe(0);
  });

  it("refuses the gig's own seller, a visitor and the platform, and stores nothing for them", async () => {
    const before = { reviews: await count("reviews"), activity: await count("activity"), gig: await ratingOf("gigs", t.gigId) };
    expect(await review(memberActor(t.seller), { gigId: t.gigId, rating: 5 })).toEqual({ ok: false, error: "forbidden", code: "review.own_gig", params: {} });
    expect(await review(visitor, { gigId: t.gigId, rating: 5 })).toMatchObject({ ok: false, error: "forbidden" });
    expect(await review(system, { gigId: t.gigId, rating: 5 })).toMatchObject({ ok: false, error: "forbidden" });
    const suspended = await createUser(t.db, { name: "Suspended Buyer", status: "suspended" });
    expect(await review(memberActor(suspended), { gigId: t.gigId, rating: 1 })).toMatchObject({ ok: false, error: "forbidden" });
    expect({ reviews: await count("reviews"), activity: await count("activity"), gig: await ratingOf("gigs", t.gigId) }).toEqual(before);
  });

  it("refuses stars outside 1 to 5, a comment over 2,000 characters, an unknown or draft gig, no order, and an order that does not exist", async () => {
    const before = { reviews: await count("reviews"), activity: await count("activity") };
    for (const rating of [0, 6, 3.5, Number.NaN]) {
      expect(await review(memberActor(t.buyer), { gigId: t.gigId, rating }), `rating ${rating}`).toMatchObject({
        ok: false,
        error: "invalid",
        issues: { rating: [{ code: "schema", message: "orders.review.chooseRating" }] },
      });
    }
    expect(await review(memberActor(t.buyer), { gigId: t.gigId, comment: "x".repeat(2001) })).toMatchObject({
      ok: false,
      error: "invalid",
      issues: { comment: [{ code: "schema", message: msg("orders.review.commentTooLong", { max: 2000 }) }] },
    });
    expect(await review(memberActor(t.buyer), { gigId: 987_654 })).toEqual({ ok: false, error: "not_found", code: "gig.not_found", params: {} });
    const draft = await createGig(t.db, { sellerId: t.seller.id, status: "draft" });
    expect(await review(memberActor(t.buyer), { gigId: draft.id })).toEqual({ ok: false, error: "not_found", code: "gig.not_found", params: {} });
    expect(await review(memberActor(t.buyer), { gigId: t.gigId })).toEqual({
      ok: false,
      error: "invalid",
      issues: { orderId: [{ code: "review.order_required", params: {} }] },
    });
    expect(await review(memberActor(t.buyer), { gigId: t.gigId, orderId: 987_654 })).toEqual({
      ok: false,
      error: "not_found",
      code: "order.not_found",
      params: {},
    });
    expect({ reviews: await count("reviews"), activity: await count("activity") }).toEqual(before);
  });

  it("reviews only the reviewer's own completed order of this gig: another's order or another gig's is not found, an unfinished one is a conflict", async () => {
    const other = await createUser(t.db, { role: "client", name: "Other Buyer" });
    const othersOrder = await bought(other, t.seller, t.gigId);
    const otherGig = await createGig(t.db, { sellerId: t.seller.id });
    const otherGigsOrder = await bought(t.buyer, t.seller, otherGig.id);
    const placed = await placeTestOrder(t, t.buyer, t.gigId);
    const inProgress = await paidTestOrder(t, t.buyer, t.gigId);
    const delivered = await paidTestOrder(t, t.buyer, t.gigId);
    expect(await deliverOrder(memberActor(t.seller), { orderId: delivered.orderId, message: "Done" }, opts(t))).toMatchObject({ ok: true });
    const abandoned = await placeTestOrder(t, t.buyer, t.gigId);
    expect(await cancelOrder(memberActor(t.buyer), { orderId: abandoned.orderId, reason: "Wrong package" }, opts(t))).toMatchObject({ ok: true });

    const before = {
      reviews: await count("reviews"),
      activity: await count("activity"),
      events: await count("order_events"),
      gig: await ratingOf("gigs", t.gigId),
    };
    expect(await review(memberActor(t.buyer), { gigId: t.gigId, orderId: othersOrder })).toEqual({
      ok: false,
      error: "not_found",
      code: "order.not_found",
      params: {},
    });
    expect(await review(memberActor(t.buyer), { gigId: t.gigId, orderId: otherGigsOrder })).toEqual({
      ok: false,
      error: "not_found",
      code: "order.not_found",
      params: {},
    });
    // The order's seller is refused as the gig's seller, before any order is looked at.
    expect(await review(memberActor(t.seller), { gigId: t.gigId, orderId: othersOrder })).toEqual({
      ok: false,
      error: "forbidden",
      code: "review.own_gig",
      params: {},
    });
    for (const { orderId } of [placed, inProgress, delivered, abandoned]) {
      const status = (await t.db("orders").where({ id: orderId }).first("status")).status;
      expect(await review(memberActor(t.buyer), { gigId: t.gigId, orderId }), status).toMatchObject({
        ok: false,
        error: "conflict",
        code: "review.order_not_completed",
      });
    }
    expect({
      reviews: await count("reviews"),
      activity: await count("activity"),
      events: await count("order_events"),
      gig: await ratingOf("gigs", t.gigId),
    }).toEqual(before);
  });

  it("reviews a completed order once: again is already_reviewed, and two posted at once store exactly one", async () => {
    const b = await createUser(t.db, { role: "client", name: "Twice Buyer" });
    const first = await bought(b, t.seller, t.gigId);
    expect(await review(memberActor(b), { gigId: t.gigId, orderId: first, rating: 5 })).toMatchObject({ ok: true });
    const gigBefore = await ratingOf("gigs", t.gigId);
    expect(await review(memberActor(b), { gigId: t.gigId, orderId: first, rating: 1 })).toEqual({
      ok: false,
      error: "conflict",
      code: "order.already_reviewed",
      params: {},
    });
    expect(await ratingOf("gigs", t.gigId)).toEqual(gigBefore);

    const second = await bought(b, t.seller, t.gigId);
    const both = await Promise.all([
      review(memberActor(b), { gigId: t.gigId, orderId: second, rating: 5 }),
      review(memberActor(b), { gigId: t.gigId, orderId: second, rating: 1 }),
    ]);
    expect(both.filter((r) => r.ok)).toHaveLength(1);
    expect(both.find((r) => !r.ok)).toMatchObject({ ok: false, error: "conflict", code: "order.already_reviewed" });
    expect(await count("reviews", { order_id: second })).toBe(1);
    expect((await eventKinds(t.db, second)).filter((k) => k === "reviewed")).toHaveLength(1);
    expect(await count("activity", { user_id: b.id, kind: "review_left" })).toBe(2);
    // The roll-up counts the reviews that exist, not the attempts.
    const stars = (await t.db("reviews").where({ gig_id: t.gigId }).pluck("rating")).map(Number);
    expect(await ratingOf("gigs", t.gigId)).toEqual({ rating: mean(stars), count: stars.length });
  });

  it("the shared schema turns a form's fields into the operation's input, and names what is wrong beside its field", () => {
    const form = (fields: Record<string, string>) => {
      const data = new FormData();
      for (const [k, v] of Object.entries(fields)) data.append(k, v);
      return parseWithZod(data, { schema: ReviewSchema });
    };
    expect(form({ gigId: "12", orderId: "7", rating: "5", comment: "Webale nyo!" })).toMatchObject({
      status: "success",
      value: { gigId: 12, orderId: 7, rating: 5, comment: "Webale nyo!" },
    });
    expect(form({ gigId: "12", rating: "5" })).toMatchObject({ status: "success", value: { comment: "" } });
    const bad = form({ gigId: "twelve", rating: "9", comment: "x".repeat(2001) });
    expect(bad.status).toBe("error");
    expect(bad.reply().error).toEqual({
      gigId: ["orders.review.chooseGig"],
      rating: ["orders.review.chooseRating"],
      comment: [msg("orders.review.commentTooLong", { max: 2000 })],
    });
    // Beside the field, an English reader reads them as they always were.
    expect(Object.values(bad.reply().error ?? {}).map((messages) => words(messages?.[0] ?? ""))).toEqual([
      "Choose the gig you are reviewing",
      "Choose from 1 to 5 stars",
      "A review can have at most 2,000 characters",
    ]);
    expect(form({ gigId: "12" }).reply().error).toEqual({ rating: ["orders.review.chooseRating"] });
  });

  it("keeps the gig's and the seller's rating the mean of their reviews after many, across the seller's gigs", async () => {
    const other = await createGig(t.db, { sellerId: t.seller.id });
    const buyers = await Promise.all([1, 2, 3].map((i) => createUser(t.db, { name: `Rollup Buyer ${i}` })));
    const stars = [5, 4, 4, 3, 5, 2, 5];
    const sellersReviews = () => t.db("reviews as r").join("gigs as g", "g.id", "r.gig_id").where("g.seller_id", t.seller.id).pluck("r.rating");
    const earlier = (await sellersReviews()).length;
    for (const [i, rating] of stars.entries()) {
      const orderId = await bought(buyers[i % 3]!, t.seller, other.id);
      expect((await review(memberActor(buyers[i % 3]!), { gigId: other.id, orderId, rating })).ok).toBe(true);
    }
    expect(await ratingOf("gigs", other.id)).toEqual({ rating: mean(stars), count: stars.length });
    const all = (await sellersReviews()).map(Number);
    expect(all.length).toBe(stars.length + earlier);
    expect(await ratingOf("users", t.seller.id)).toEqual({ rating: mean(all), count: all.length });
  });

  it("counts every one of many reviews left at once, of one gig and of the seller's other gigs", async () => {
    const s = await createUser(t.db, { role: "freelancer", name: "Busy Seller" });
    const [a, b] = await Promise.all([createGig(t.db, { sellerId: s.id }), createGig(t.db, { sellerId: s.id })]);
    const buyers = await Promise.all(Array.from({ length: 6 }, (_, i) => createUser(t.db, { name: `Rush Buyer ${i}` })));
    const wanted = buyers.flatMap((u, i) => [
      { user: u, gigId: a!.id, rating: 1 + (i % 5) },
      { user: u, gigId: b!.id, rating: 5 - (i % 3) },
    ]);
    const left = await Promise.all(wanted.map(async (l) => ({ ...l, orderId: await bought(l.user, s, l.gigId) })));
    const results = await Promise.all(left.map(({ user, gigId, orderId, rating }) => review(memberActor(user), { gigId, orderId, rating })));
    expect(results.every((r) => r.ok)).toBe(true);
    const starsOf = (id: number) => left.filter((l) => l.gigId === id).map((l) => l.rating);
    expect(await ratingOf("gigs", a!.id)).toEqual({ rating: mean(starsOf(a!.id)), count: 6 });
    expect(await ratingOf("gigs", b!.id)).toEqual({ rating: mean(starsOf(b!.id)), count: 6 });
    expect(await ratingOf("users", s.id)).toEqual({ rating: mean(left.map((l) => l.rating)), count: 12 });
  });

  it("writes no review, roll-up or activity when the database refuses a write after the review's own (a trigger forces it)", async () => {
    const s = await createUser(t.db, { role: "freelancer", name: "Trigger Seller" });
    const gig = await createGig(t.db, { sellerId: s.id });
    const orderId = await bought(t.buyer, s, gig.id);
    await t.db.raw(`
      CREATE FUNCTION refuse_rollup() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'seller roll-up refused for the test'; END $$ LANGUAGE plpgsql;
      CREATE TRIGGER refuse_rollup BEFORE UPDATE OF rating ON users FOR EACH ROW EXECUTE FUNCTION refuse_rollup();
    `);
    try {
      const before = { reviews: await count("reviews"), activity: await count("activity", { user_id: t.buyer.id }), events: await eventKinds(t.db, orderId) };
      await expect(review(memberActor(t.buyer), { gigId: gig.id, orderId, rating: 5 })).rejects.toThrow(/roll-up refused/);
      expect({ reviews: await count("reviews"), activity: await count("activity", { user_id: t.buyer.id }), events: await eventKinds(t.db, orderId) }).toEqual(
        before,
      );
      expect(await ratingOf("gigs", gig.id)).toEqual({ rating: 0, count: 0 });
    } finally {
      await t.db.raw(`DROP TRIGGER refuse_rollup ON users; DROP FUNCTION refuse_rollup();`);
    }
  });
});

describe("createReviews (the platform's bulk load: demo data)", () => {
  it("stores many reviews of one gig, dated as given, rolls up once, and records each reviewer's activity", async () => {
    const s = await createUser(t.db, { role: "freelancer", name: "Bulk Seller" });
    const gig = await createGig(t.db, { sellerId: s.id });
    const buyers = await Promise.all([1, 2].map((i) => createUser(t.db, { name: `Bulk Buyer ${i}` })));
    const when = new Date("2026-01-15T10:00:00Z");
    const stars = Array.from({ length: 1500 }, (_, i) => 1 + ((i * 7) % 5));
    const result = await createReviews(
      system,
      { gigId: gig.id, reviews: stars.map((rating, i) => ({ reviewerId: buyers[i % 2]!.id, rating, comment: `Review ${i}`, createdAt: when })) },
      { db: t.db },
    );
    expect(result.ok && result.value.ids.length).toBe(1500);
    expect(await ratingOf("gigs", gig.id)).toEqual({ rating: mean(stars), count: 1500 });
    expect(await ratingOf("users", s.id)).toEqual({ rating: mean(stars), count: 1500 });
    expect(await t.db("reviews").where({ gig_id: gig.id }).distinct("created_at").pluck("created_at")).toEqual([when]);
    expect(await count("activity", { user_id: buyers[0]!.id, kind: "review_left" })).toBe(750);
  });

  it("holds every review to the same rules, and a batch with one bad review stores none of it", async () => {
    const s = await createUser(t.db, { role: "freelancer", name: "Strict Seller" });
    const gig = await createGig(t.db, { sellerId: s.id });
    const before = { reviews: await count("reviews"), activity: await count("activity") };
    const load = (actor: Actor, reviews: { reviewerId: number; rating: number; comment: string }[], id = gig.id) =>
      createReviews(actor, { gigId: id, reviews }, { db: t.db });
    const good = { reviewerId: t.buyer.id, rating: 5, comment: "Fine" };

    expect(await load(memberActor(t.buyer), [good])).toMatchObject({ ok: false, error: "forbidden" });
    expect(await load(system, [good, { ...good, rating: 7 }, { ...good, comment: "x".repeat(2001) }])).toEqual({
      ok: false,
      error: "invalid",
      issues: {
        "reviews.1.rating": [{ code: "schema", message: "orders.review.chooseRating" }],
        "reviews.2.comment": [{ code: "schema", message: msg("orders.review.commentTooLong", { max: 2000 }) }],
      },
    });
    expect(await load(system, [good, { ...good, reviewerId: s.id }])).toEqual({ ok: false, error: "forbidden", code: "review.own_gig", params: {} });
    const banned = await createUser(t.db, { name: "Banned Buyer", status: "banned" });
    expect(await load(system, [good, { ...good, reviewerId: banned.id }])).toMatchObject({ ok: false, error: "forbidden" });
    const draft = await createGig(t.db, { sellerId: s.id, status: "draft" });
    expect(await load(system, [good], draft.id)).toEqual({ ok: false, error: "not_found", code: "gig.not_found", params: {} });
    expect({ reviews: await count("reviews"), activity: await count("activity") }).toEqual(before);
    expect(await ratingOf("gigs", gig.id)).toEqual({ rating: 0, count: 0 });
  });
});

describe("updateReview and deleteReview (their author, within 7 days)", () => {
  /** A fresh seller with two gigs, so the seller's roll-up spans gigs. */
  async function shop(name: string) {
    const seller = await createUser(t.db, { role: "freelancer", name });
    const [a, b] = [await createGig(t.db, { sellerId: seller.id }), await createGig(t.db, { sellerId: seller.id })];
    return { seller, a: a.id, b: b.id };
  }
  /** A buyer's review of a completed order of the gig; its id. */
  async function reviewed(buyer: TestUser, seller: TestUser, gigId: number, rating: number, comment = "") {
    const orderId = await bought(buyer, seller, gigId);
    const result = await review(memberActor(buyer), { gigId, orderId, rating, comment });
    if (!result.ok) throw new Error(JSON.stringify(result));
    return { id: result.value.id, orderId };
  }
  /** Both roll-ups are what the review rows say they are. */
  async function expectExact(seller: TestUser, gigs: number[]) {
    for (const gigId of gigs) {
      const stars = (await t.db("reviews").where({ gig_id: gigId }).pluck("rating")).map(Number);
      expect(await ratingOf("gigs", gigId), `gig ${gigId}`).toEqual({ rating: stars.length ? mean(stars) : 0, count: stars.length });
    }
    const all = (await t.db("reviews as r").join("gigs as g", "g.id", "r.gig_id").where("g.seller_id", seller.id).pluck("r.rating")).map(Number);
    expect(await ratingOf("users", seller.id), "seller").toEqual({ rating: all.length ? mean(all) : 0, count: all.length });
  }
  const edit = (actor: Actor, input: { reviewId: number; rating?: number; comment?: string }) => updateReview(actor, input, { db: t.db });
  const remove = (actor: Actor, reviewId: number) => deleteReview(actor, { reviewId }, { db: t.db });
  const rowOf = (id: number) => t.db("reviews").where({ id }).first("rating", "comment");

  it("changes the stars and words, rolls the gig and the seller up again exactly, and records the author's activity", async () => {
    const { seller, a, b } = await shop("Edit Seller");
    const buyer = await createUser(t.db, { name: "Edit Buyer" });
    const first = await reviewed(buyer, seller, a, 5, "Great");
    await reviewed(t.buyer, seller, a, 4);
    await reviewed(buyer, seller, b, 3);
    expect(await ratingOf("gigs", a)).toEqual({ rating: 4.5, count: 2 });

    expect(await edit(memberActor(buyer), { reviewId: first.id, rating: 1 })).toEqual({ ok: true, value: { id: first.id } });
    expect(await rowOf(first.id)).toEqual({ rating: 1, comment: "Great" });
    expect(await ratingOf("gigs", a)).toEqual({ rating: 2.5, count: 2 });
    expect(await ratingOf("users", seller.id)).toEqual({ rating: mean([1, 4, 3]), count: 3 });
    await expectExact(seller, [a, b]);

    expect((await edit(memberActor(buyer), { reviewId: first.id, comment: "  Slow in the end.  " })).ok).toBe(true);
    expect(await rowOf(first.id)).toEqual({ rating: 1, comment: "Slow in the end." });
    const activity = await t.db("activity").where({ user_id: buyer.id, kind: "review_edited" }).orderBy("id").pluck("details");
    expect(activity).toEqual([
      { gigId: a, reviewId: first.id, rating: 1 },
      { gigId: a, reviewId: first.id },
    ]);
  });

  it("deletes the review, rolls up from the reviews left (to none), and lets the order be reviewed again", async () => {
    const { seller, a, b } = await shop("Delete Seller");
    const buyer = await createUser(t.db, { name: "Delete Buyer" });
    const only = await reviewed(buyer, seller, a, 2);
    await reviewed(buyer, seller, b, 5);
    expect(await remove(memberActor(buyer), only.id)).toEqual({ ok: true, value: null });
    expect(await t.db("reviews").where({ id: only.id }).first()).toBeUndefined();
    expect(await ratingOf("gigs", a)).toEqual({ rating: 0, count: 0 });
    expect(await ratingOf("users", seller.id)).toEqual({ rating: 5, count: 1 });
    await expectExact(seller, [a, b]);
    expect(await t.db("activity").where({ user_id: buyer.id, kind: "review_deleted" }).pluck("details")).toEqual([{ gigId: a, reviewId: only.id }]);
    expect((await review(memberActor(buyer), { gigId: a, orderId: only.orderId, rating: 4 })).ok).toBe(true);
    await expectExact(seller, [a, b]);
  });

  it("another member's review is not found, the gig's seller's too, a visitor is refused, and nothing changes", async () => {
    const { seller, a } = await shop("Guarded Seller");
    const author = await createUser(t.db, { name: "Guarded Author" });
    const stranger = await createUser(t.db, { name: "Guarded Stranger" });
    const { id } = await reviewed(author, seller, a, 4, "Fine");
    const before = { row: await rowOf(id), gig: await ratingOf("gigs", a), activity: await count("activity") };
    for (const who of [stranger, seller]) {
      expect(await edit(memberActor(who), { reviewId: id, rating: 1 })).toEqual({ ok: false, error: "not_found", code: "review.not_found", params: {} });
      expect(await remove(memberActor(who), id)).toEqual({ ok: false, error: "not_found", code: "review.not_found", params: {} });
    }
    expect(await edit(memberActor(author), { reviewId: 987_654, rating: 1 })).toMatchObject({ ok: false, error: "not_found" });
    expect(await edit(visitor, { reviewId: id, rating: 1 })).toMatchObject({ ok: false, error: "forbidden" });
    expect(await remove(visitor, id)).toMatchObject({ ok: false, error: "forbidden" });
    expect({ row: await rowOf(id), gig: await ratingOf("gigs", a), activity: await count("activity") }).toEqual(before);
  });

  it("refuses stars outside 1 to 5, a long comment, and a change of nothing, beside the field", async () => {
    const { seller, a } = await shop("Strict Edit Seller");
    const author = await createUser(t.db, { name: "Strict Author" });
    const { id } = await reviewed(author, seller, a, 4, "Fine");
    expect(await edit(memberActor(author), { reviewId: id, rating: 6 })).toMatchObject({
      ok: false,
      error: "invalid",
      issues: { rating: [{ code: "schema" }] },
    });
    expect(await edit(memberActor(author), { reviewId: id, comment: "x".repeat(2001) })).toMatchObject({
      ok: false,
      error: "invalid",
      issues: { comment: [{ code: "schema", message: msg("orders.review.commentTooLong", { max: 2000 }) }] },
    });
    expect(await edit(memberActor(author), { reviewId: id })).toMatchObject({ ok: false, error: "invalid", issues: { rating: [{ code: "schema" }] } });
    expect(await rowOf(id)).toEqual({ rating: 4, comment: "Fine" });
  });

  it("changes and deletes only within 7 days of posting: after that a conflict, and nothing changes", async () => {
    const { seller, a } = await shop("Window Seller");
    const author = await createUser(t.db, { name: "Window Author" });
    const late = await reviewed(author, seller, a, 4, "Old");
    const nearly = await reviewed(author, seller, a, 2, "Recent");
    await t.db.raw(`UPDATE reviews SET created_at = now() - interval '7 days 1 minute' WHERE id = ?`, [late.id]);
    await t.db.raw(`UPDATE reviews SET created_at = now() - interval '6 days 23 hours' WHERE id = ?`, [nearly.id]);
    const before = { row: await rowOf(late.id), gig: await ratingOf("gigs", a), seller: await ratingOf("users", seller.id) };
    const closed = { ok: false, error: "conflict", code: "review.edit_window_closed", params: { days: 7 } };
    expect(await edit(memberActor(author), { reviewId: late.id, rating: 1 })).toEqual(closed);
    expect(await remove(memberActor(author), late.id)).toEqual(closed);
    expect({ row: await rowOf(late.id), gig: await ratingOf("gigs", a), seller: await ratingOf("users", seller.id) }).toEqual(before);
    expect((await edit(memberActor(author), { reviewId: nearly.id, rating: 5 })).ok).toBe(true);
    expect((await remove(memberActor(author), nearly.id)).ok).toBe(true);
    await expectExact(seller, [a]);
  });

  it("keeps both roll-ups exact with edits, deletes and new reviews of one seller's gigs at once", async () => {
    const { seller, a, b } = await shop("Rush Edit Seller");
    const buyers = await Promise.all([1, 2, 3, 4].map((i) => createUser(t.db, { name: `Rush Editor ${i}` })));
    const mine = await Promise.all(buyers.map((u, i) => reviewed(u, seller, i % 2 ? a : b, 1 + i)));
    const fresh = await Promise.all(buyers.map(async (u, i) => ({ u, gigId: i % 2 ? b : a, orderId: await bought(u, seller, i % 2 ? b : a) })));
    const [changes, added, twice] = await Promise.all([
      Promise.all(mine.map(({ id }, i) => (i % 2 ? remove(memberActor(buyers[i]!), id) : edit(memberActor(buyers[i]!), { reviewId: id, rating: 5 })))),
      Promise.all(fresh.map(({ u, gigId, orderId }) => review(memberActor(u), { gigId, orderId, rating: 3 }))),
      // A review deleted again at the same moment: one of the two finds it gone.
      remove(memberActor(buyers[1]!), mine[1]!.id),
    ]);
    expect([...changes, ...added, twice].filter((r) => !r.ok)).toEqual([{ ok: false, error: "not_found", code: "review.not_found", params: {} }]);
    expect(await count("reviews", { id: mine[1]!.id })).toBe(0);
    await expectExact(seller, [a, b]);
  });
});
