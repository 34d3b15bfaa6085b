/**
 * Reviews with replies and hiding (ADR 053) against a real Postgres: the gig's seller replies once
 * (a second reply, two at once, anyone else, an empty reply all refused, nothing written), the review's author
 * is told; an admin hides a review with a reason and shows it again (audited, admins only), a hidden review
 * leaves the public lists and every rating and its author is told why; and, drawn by fast-check, any sequence of
 * new reviews, edits, deletes, hides, shows and replies leaves each gig's and the seller's stored rating and
 * count (and gig_search's copies) equal to the average and number of the visible reviews.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getReview, listSellerReviews, partyReview, reviewsAfter } from "~/models/review.server";
import type { Actor } from "~/operations/core.server";
import { hideReview, replyToReview, unhideReview } from "~/operations/review-replies.server";
import { createReview, createReviews, deleteReview, updateReview } from "~/operations/reviews.server";
import { createGig, createUser, type TestUser } from "../support/factories";
import { completedTestOrder, memberActor, orderTestContext, system, visitor } from "../support/orders";

const t = orderTestContext("reviewreplies", { parties: { seller: { name: "Reply Seller" }, buyer: { name: "Reply Buyer" } }, admin: true });
const o = () => ({ db: t.db });

const mean = (stars: number[]) => (stars.length ? Math.round((stars.reduce((a, b) => a + b, 0) / stars.length) * 100) / 100 : 0);
const ratingOf = async (table: "gigs" | "users" | "gig_search", id: number) => {
  const row = await t.db(table).where({ id }).first("rating", "reviews_count");
  return { rating: Number(row.rating), count: Number(row.reviews_count) };
};

/** A fresh seller with two gigs. */
async function shop(name: string) {
  const seller = await createUser(t.db, { role: "freelancer", name });
  const [a, b] = [await createGig(t.db, { sellerId: seller.id }), await createGig(t.db, { sellerId: seller.id })];
  return { seller, a: a.id, b: b.id };
}

/** A buyer's review of a completed order of the gig. */
async function reviewed(buyer: TestUser, seller: TestUser, gigId: number, rating: number, comment = "") {
  const { orderId } = await completedTestOrder(t, buyer, seller, gigId);
  const result = await createReview(memberActor(buyer), { gigId, orderId, rating, comment }, o());
  if (!result.ok) throw new Error(JSON.stringify(result));
  return { id: result.value.id, orderId };
}

/** Both roll-ups (and gig_search's copy of each gig's) are the visible reviews' average and number. */
async function expectExact(seller: TestUser, gigs: number[]) {
  for (const gigId of gigs) {
    const stars = (await t.db("reviews").where({ gig_id: gigId }).whereNull("hidden_at").pluck("rating")).map(Number);
    expect(await ratingOf("gigs", gigId), `gig ${gigId}`).toEqual({ rating: mean(stars), count: stars.length });
    expect(await ratingOf("gig_search", gigId), `gig_search ${gigId}`).toEqual({ rating: mean(stars), count: stars.length });
  }
  const all = (await t.db("reviews as r").join("gigs as g", "g.id", "r.gig_id").where("g.seller_id", seller.id).whereNull("r.hidden_at").pluck("r.rating")).map(
    Number,
  );
  expect(await ratingOf("users", seller.id), "seller").toEqual({ rating: mean(all), count: all.length });
}

const notificationsOf = (userId: number) =>
  t.db("notifications").where({ user_id: userId }).orderBy("id").select("kind", "order_id", "body_key", "body_values", "body");

describe("replyToReview (the gig's seller, once)", () => {
  it("stores the reply, shows it in the public lists, records the seller's activity and tells the review's author", async () => {
    const buyer = await createUser(t.db, { name: "Told Buyer" });
    const { id, orderId } = await reviewed(buyer, t.seller, t.gigId, 4, "Good logo");
    const result = await replyToReview(memberActor(t.seller), { reviewId: id, reply: "  Thank you, come again!  " }, o());
    expect(result).toEqual({ ok: true, value: { id } });
    const row = await t.db("reviews").where({ id }).first("reply", "replied_at");
    expect(row.reply).toBe("Thank you, come again!");
    expect(row.replied_at).toBeInstanceOf(Date);
    expect(await getReview(t.db, id)).toMatchObject({ id, reply: "Thank you, come again!", repliedAt: expect.any(Date) });
    expect(await t.db("activity").where({ user_id: t.seller.id, kind: "review_replied" }).pluck("details")).toEqual([{ gigId: t.gigId, reviewId: id }]);
    const told = (await notificationsOf(buyer.id)).filter((n) => n.kind === "review_reply");
    expect(told).toEqual([
      {
        kind: "review_reply",
        order_id: orderId,
        body_key: "notify.reviewReplies.replied",
        body_values: { title: expect.any(String), name: "Reply Seller" },
        body: expect.stringContaining("Reply Seller replied to your review of"),
      },
    ]);
  });

  it("refuses a second reply, anyone but the seller, a visitor and an empty reply, and writes nothing", async () => {
    const buyer = await createUser(t.db, { name: "Second Buyer" });
    const { id } = await reviewed(buyer, t.seller, t.gigId, 5);
    expect((await replyToReview(memberActor(t.seller), { reviewId: id, reply: "First" }, o())).ok).toBe(true);
    const other = await createReview(
      memberActor(buyer),
      { gigId: t.gigId, orderId: (await completedTestOrder(t, buyer, t.seller, t.gigId)).orderId, rating: 3, comment: "" },
      o(),
    );
    const otherId = other.ok ? other.value.id : 0;
    const before = { notifications: await t.db("notifications").count("* as n").first(), activity: await t.db("activity").count("* as n").first() };
    expect(await replyToReview(memberActor(t.seller), { reviewId: id, reply: "Second" }, o())).toEqual({
      ok: false,
      error: "conflict",
      code: "review.already_replied",
      params: {},
    });
    for (const who of [buyer, await createUser(t.db, { role: "freelancer", name: "Other Seller" })]) {
      expect(await replyToReview(memberActor(who), { reviewId: otherId, reply: "Not mine" }, o())).toEqual({
        ok: false,
        error: "forbidden",
        code: "review.reply_not_seller",
        params: {},
      });
    }
    expect(await replyToReview(visitor, { reviewId: otherId, reply: "Hi" }, o())).toMatchObject({ ok: false, error: "forbidden" });
    expect(await replyToReview(memberActor(t.seller), { reviewId: otherId, reply: "   " }, o())).toMatchObject({
      ok: false,
      error: "invalid",
      issues: { reply: [{ code: "schema", message: "orders.reviewReplies.replyRequired" }] },
    });
    expect(await replyToReview(memberActor(t.seller), { reviewId: 987_654, reply: "Hi" }, o())).toMatchObject({ ok: false, error: "not_found" });
    expect(await t.db("reviews").where({ id }).first("reply")).toEqual({ reply: "First" });
    expect(await t.db("reviews").where({ id: otherId }).first("reply")).toEqual({ reply: null });
    expect({ notifications: await t.db("notifications").count("* as n").first(), activity: await t.db("activity").count("* as n").first() }).toEqual(before);
  });

  it("of two replies at once, one is stored and the other refused", async () => {
    const buyer = await createUser(t.db, { name: "Race Buyer" });
    const { id } = await reviewed(buyer, t.seller, t.gigId, 5);
    const results = await Promise.all(["Reply A", "Reply B", "Reply C"].map((reply) => replyToReview(memberActor(t.seller), { reviewId: id, reply }, o())));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toEqual([
      { ok: false, error: "conflict", code: "review.already_replied", params: {} },
      { ok: false, error: "conflict", code: "review.already_replied", params: {} },
    ]);
    const stored = await t.db("reviews").where({ id }).first("reply");
    expect(["Reply A", "Reply B", "Reply C"]).toContain(stored.reply);
    expect(await t.db("notifications").where({ user_id: buyer.id, kind: "review_reply" }).count("* as n").first()).toEqual({ n: 1 });
  });

  it("keeps a second reply out at the database too: the reply is one column, written only while empty", async () => {
    const buyer = await createUser(t.db, { name: "Column Buyer" });
    const { id } = await reviewed(buyer, t.seller, t.gigId, 2);
    await expect(t.db("reviews").where({ id }).update({ reply: "No time" })).rejects.toThrow(/reviews_reply_with_time/);
  });
});

describe("hideReview and unhideReview (admins, with a reason, audited)", () => {
  it("hides a review from every public list and rating, tells its author why, and shows it again", async () => {
    const { seller, a, b } = await shop("Hidden Seller");
    const author = await createUser(t.db, { name: "Rude Author" });
    const rude = await reviewed(author, seller, a, 1, "Rude words");
    await reviewed(t.buyer, seller, a, 5);
    await reviewed(t.buyer, seller, b, 4);
    await expectExact(seller, [a, b]);
    expect(await ratingOf("gigs", a)).toEqual({ rating: 3, count: 2 });

    const admin = memberActor(t.admin);
    expect(await hideReview(admin, { reviewId: rude.id, reason: "  Insults the seller  " }, o())).toEqual({ ok: true, value: { id: rude.id } });
    expect(await ratingOf("gigs", a)).toEqual({ rating: 5, count: 1 });
    expect(await ratingOf("users", seller.id)).toEqual({ rating: 4.5, count: 2 });
    await expectExact(seller, [a, b]);
    expect(await t.db("reviews").where({ id: rude.id }).first("hidden_reason", "hidden_by")).toEqual({
      hidden_reason: "Insults the seller",
      hidden_by: t.admin.id,
    });
    // Gone from the public reads, there for its author with the reason.
    expect(await getReview(t.db, rude.id)).toBeNull();
    expect((await listSellerReviews(t.db, seller.id)).reviews.map((r) => r.id)).not.toContain(rude.id);
    expect((await reviewsAfter(t.db, { gigId: a }, { limit: 10 })).reviews.map((r) => r.id)).not.toContain(rude.id);
    expect(await partyReview(t.db, { orderId: rude.orderId }, 7)).toMatchObject({ id: rude.id, hidden: { reason: "Insults the seller" } });
    expect(
      await t
        .db("admin_audit_log")
        .where({ action: "review.hide", target_id: String(rude.id) })
        .select("admin_id", "target_type", "details"),
    ).toEqual([{ admin_id: t.admin.id, target_type: "review", details: { reason: "Insults the seller", gigId: a, reviewerId: author.id } }]);
    expect((await notificationsOf(author.id)).filter((n) => n.kind === "review_hidden")).toEqual([
      expect.objectContaining({
        order_id: rude.orderId,
        body_key: "notify.reviewReplies.hidden",
        body_values: { title: expect.any(String), reason: "Insults the seller" },
      }),
    ]);
    // Hidden: not hidden twice, not changed by its author, not replied to.
    expect(await hideReview(admin, { reviewId: rude.id, reason: "Again" }, o())).toMatchObject({ ok: false, error: "conflict", code: "review.already_hidden" });
    expect(await updateReview(memberActor(author), { reviewId: rude.id, rating: 5 }, o())).toMatchObject({
      ok: false,
      error: "conflict",
      code: "review.hidden",
    });
    expect(await replyToReview(memberActor(seller), { reviewId: rude.id, reply: "Hm" }, o())).toMatchObject({ ok: false, error: "not_found" });

    expect(await unhideReview(admin, { reviewId: rude.id }, o())).toEqual({ ok: true, value: { id: rude.id } });
    expect(await ratingOf("gigs", a)).toEqual({ rating: 3, count: 2 });
    await expectExact(seller, [a, b]);
    expect(await getReview(t.db, rude.id)).toMatchObject({ id: rude.id });
    expect(await t.db("reviews").where({ id: rude.id }).first("hidden_at", "hidden_reason", "hidden_by")).toEqual({
      hidden_at: null,
      hidden_reason: null,
      hidden_by: null,
    });
    expect(
      await t
        .db("admin_audit_log")
        .where({ action: "review.unhide", target_id: String(rude.id) })
        .count("* as n")
        .first(),
    ).toEqual({ n: 1 });
    expect(await unhideReview(admin, { reviewId: rude.id }, o())).toMatchObject({ ok: false, error: "conflict", code: "review.not_hidden" });
  });

  it("is for admins only, needs a reason, and refuses leave everything as it was", async () => {
    const { seller, a } = await shop("Guarded Hide Seller");
    const { id } = await reviewed(t.buyer, seller, a, 3, "Fine");
    const audits = await t.db("admin_audit_log").count("* as n").first();
    for (const who of [memberActor(seller), memberActor(t.buyer), visitor, system] as Actor[]) {
      expect(await hideReview(who, { reviewId: id, reason: "No" }, o()), who.kind).toMatchObject({ ok: false, error: "forbidden" });
      expect(await unhideReview(who, { reviewId: id }, o())).toMatchObject({ ok: false, error: "forbidden" });
    }
    expect(await hideReview(memberActor(t.admin), { reviewId: id, reason: " " }, o())).toMatchObject({
      ok: false,
      error: "invalid",
      issues: { reason: [{ code: "schema", message: "admin.reviews.reasonRequired" }] },
    });
    expect(await hideReview(memberActor(t.admin), { reviewId: 987_654, reason: "Spam" }, o())).toMatchObject({ ok: false, error: "not_found" });
    expect(await t.db("reviews").where({ id }).first("hidden_at")).toEqual({ hidden_at: null });
    expect(await t.db("admin_audit_log").count("* as n").first()).toEqual(audits);
    expect(await ratingOf("gigs", a)).toEqual({ rating: 3, count: 1 });
  });

  it("marks an edit with its time", async () => {
    const { seller, a } = await shop("Edited Seller");
    const { id } = await reviewed(t.buyer, seller, a, 3, "Fine");
    expect(await t.db("reviews").where({ id }).first("edited_at")).toEqual({ edited_at: null });
    expect((await updateReview(memberActor(t.buyer), { reviewId: id, comment: "Better than fine" }, o())).ok).toBe(true);
    expect((await getReview(t.db, id))?.editedAt).toBeInstanceOf(Date);
  });
});

describe("the stored ratings always equal the visible reviews' (fast-check)", () => {
  const Step = fc.oneof(
    fc.record({ op: fc.constant("add" as const), gig: fc.nat({ max: 1 }), by: fc.nat({ max: 2 }), rating: fc.integer({ min: 1, max: 5 }) }),
    fc.record({ op: fc.constant("edit" as const), pick: fc.nat(), rating: fc.integer({ min: 1, max: 5 }) }),
    fc.record({ op: fc.constant("delete" as const), pick: fc.nat() }),
    fc.record({ op: fc.constant("hide" as const), pick: fc.nat() }),
    fc.record({ op: fc.constant("unhide" as const), pick: fc.nat() }),
    fc.record({ op: fc.constant("reply" as const), pick: fc.nat() }),
  );

  it("after any sequence of new reviews, edits, deletes, hides, shows and replies, some at once", async () => {
    const buyers = await Promise.all([0, 1, 2].map((i) => createUser(t.db, { name: `Property Buyer ${i}` })));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(Step, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 }), async (rounds) => {
        const { seller, a, b } = await shop(`Property Seller ${++run}`);
        const gigs = [a, b];
        const ids = async () =>
          (await t.db("reviews").whereIn("gig_id", gigs).orderBy("id").select("id", "reviewer_id")).map((r) => ({
            id: Number(r.id),
            by: Number(r.reviewer_id),
          }));
        for (const steps of rounds) {
          const known = await ids();
          const at = (pick: number) => known[pick % Math.max(known.length, 1)];
          // The steps of a round run at once: the roll-ups must count every change whatever their order.
          await Promise.all(
            steps.map(async (step) => {
              if (step.op === "add") {
                return createReviews(system, { gigId: gigs[step.gig]!, reviews: [{ reviewerId: buyers[step.by]!.id, rating: step.rating, comment: "" }] }, o());
              }
              const review = at(step.pick);
              if (!review) return;
              const author = memberActor(buyers.find((u) => u.id === review.by)!);
              if (step.op === "edit") return updateReview(author, { reviewId: review.id, rating: step.rating }, o());
              if (step.op === "delete") return deleteReview(author, { reviewId: review.id }, o());
              if (step.op === "hide") return hideReview(memberActor(t.admin), { reviewId: review.id, reason: "Breaks the rules" }, o());
              if (step.op === "unhide") return unhideReview(memberActor(t.admin), { reviewId: review.id }, o());
              return replyToReview(memberActor(seller), { reviewId: review.id, reply: "Thanks" }, o());
            }),
          );
          await expectExact(seller, gigs);
        }
      }),
      { numRuns: 15 },
    );
  });
});
