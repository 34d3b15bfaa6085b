/**
 * Reviews (ADR 012): a buyer's stars and words about a gig. Every review, the one a member leaves and the
 * demo data's thousands alike, passes the same checks and changes the gig's and its seller's rating and
 * count in the same transaction, recomputed from the review rows under the gig's lock, so two reviews at
 * once both count.
 *
 * A member's review is of one completed order, by its buyer, once (docs/product.md; a unique order_id on
 * reviews holds the "once" even against two posts at once): the stars and words go on the gig and the
 * seller's profile, and on the order's timeline. The platform's bulk reviews (the demo data) name no order.
 * Its author may change or delete it within REVIEW_EDIT_DAYS of posting it; the roll-up follows in the same
 * transaction.
 */
import type { Knex } from "knex";
import { recordActivities } from "~/models/activity.server";
import { insertOrderEvent } from "~/models/order.server";
import {
  activeReviewerIds,
  deleteReviewRow,
  insertReviews,
  lockGigForReview,
  lockReview,
  reviewAuthorship,
  updateReviewRow,
  type NewReview,
} from "~/models/review.server";
import { conflict, forbidden, invalid, issue, issuesOf, notFound, ok, transact, type Actor, type Issues, type Result, type Tx } from "~/operations/core.server";
import { reviewsChanged } from "~/operations/review-rollup.server";
import { REVIEW_EDIT_DAYS, ReviewEditSchema, ReviewSchema, type ReviewEditInput, type ReviewInput } from "~/schemas/review";

type Gig = NonNullable<Awaited<ReturnType<typeof lockGigForReview>>>;

/**
 * The gig of a review, locked for its roll-up, or the failure that refuses it: no such gig, or one never
 * published (a draft was never on offer, so nobody can have bought it; to anyone but its seller it does not
 * exist).
 */
async function reviewableGig(tx: Tx, gigId: number): Promise<Gig | ReturnType<typeof notFound>> {
  const gig = await lockGigForReview(tx.trx, gigId);
  return gig && gig.publishedAt ? gig : notFound("gig.not_found");
}

/** Whether this reviewer may review this gig at all (null when they may). */
function checkReviewable(gig: Gig, reviewerId: number) {
  if (gig.sellerId === reviewerId) return forbidden("review.own_gig");
  return null;
}

/**
 * The order a member's review is of, locked: theirs as its buyer, of this gig, completed and not yet
 * reviewed. Somebody else's order, or one of another gig, is not found.
 */
async function reviewableOrder(tx: Tx, gig: Gig, reviewerId: number, orderId: number) {
  const order = await tx.trx("orders").where({ id: orderId }).forUpdate().first("id", "buyer_id", "seller_id", "gig_id", "gig_title", "status");
  if (!order || Number(order.buyer_id) !== reviewerId || Number(order.gig_id) !== gig.id) return notFound("order.not_found");
  if (order.status !== "completed") return conflict("review.order_not_completed");
  if (await tx.trx("reviews").where({ order_id: orderId }).first("id")) return conflict("order.already_reviewed");
  return { ok: true as const, id: Number(order.id), sellerId: Number(order.seller_id), gigTitle: order.gig_title as string };
}

/** Stores the reviews of one locked gig and rolls its and its seller's rating and count up (reviewsChanged). */
async function storeReviews(tx: Tx, gig: Gig, reviews: NewReview[]) {
  const ids = await insertReviews(tx.trx, reviews);
  await reviewsChanged(tx, gig);
  return ids;
}

/**
 * A member reviews a gig they bought: 1 to 5 stars and an optional comment. Refused: a visitor (forbidden),
 * the gig's own seller (forbidden), an unknown or never-published gig (not_found), stars or a comment
 * outside the rules (invalid).
 */
export async function createReview(actor: Actor, input: ReviewInput, { db }: { db?: Knex } = {}): Promise<Result<{ id: number }>> {
  if (actor.kind !== "member") return forbidden("review.sign_in_required");
  // The shared schema has parsed the input at the door; a door that built it itself is held to the same rules.
  const parsed = ReviewSchema.safeParse(input);
  if (!parsed.success) return invalid(issuesOf(parsed.error));
  const { gigId, orderId, rating, comment } = parsed.data;
  const reviewerId = actor.user.id;
  return transact(
    actor,
    async (tx) => {
      if (!(await activeReviewerIds(tx.trx, [reviewerId])).has(reviewerId)) return forbidden("review.account_inactive");
      const gig = await reviewableGig(tx, gigId);
      if ("ok" in gig) return gig;
      const refused = checkReviewable(gig, reviewerId);
      if (refused) return refused;
      if (orderId === undefined) return invalid({ orderId: [issue("review.order_required")] });
      const order = await reviewableOrder(tx, gig, reviewerId, orderId);
      if (!order.ok) return order;
      const [id] = await storeReviews(tx, gig, [{ gigId, reviewerId, rating, comment, orderId }]);
      await tx.activity(reviewerId, "review_left", { gigId, reviewId: id, rating, orderId });
      await insertOrderEvent(tx.trx, {
        orderId,
        actorId: reviewerId,
        actorRole: "buyer",
        kind: "reviewed",
        from: "completed",
        to: "completed",
        reason: { key: "ops.reason.stars", values: { rating } },
      });
      return ok({ id: id! });
    },
    { db },
  );
}

export type BulkReview = { reviewerId: number; rating: number; comment: string; createdAt?: Date };

const BulkItem = ReviewSchema.pick({ rating: true, comment: true });

/**
 * Many reviews of one gig at once, by the platform on its members' behalf (the demo data; an import later):
 * each is held to createReview's rules (an active member, never the seller, 1 to 5 stars, the comment's
 * limit), may carry the date it was written, and the gig and seller roll up once, all in one transaction.
 * Any review that breaks a rule refuses the whole batch.
 */
export async function createReviews(
  actor: Actor,
  input: { gigId: number; reviews: BulkReview[] },
  { db }: { db?: Knex } = {},
): Promise<Result<{ ids: number[] }>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "load_reviews" });
  const issues: Issues = {};
  const reviews: NewReview[] = [];
  for (const [i, review] of input.reviews.entries()) {
    const parsed = BulkItem.safeParse(review);
    if (!parsed.success) {
      for (const [field, messages] of Object.entries(issuesOf(parsed.error))) issues[`reviews.${i}.${field}`] = messages;
      continue;
    }
    reviews.push({ gigId: input.gigId, reviewerId: review.reviewerId, createdAt: review.createdAt, ...parsed.data });
  }
  if (Object.keys(issues).length) return invalid(issues);
  return transact(
    actor,
    async (tx) => {
      const gig = await reviewableGig(tx, input.gigId);
      if ("ok" in gig) return gig;
      const active = await activeReviewerIds(
        tx.trx,
        reviews.map((r) => r.reviewerId),
      );
      for (const review of reviews) {
        if (!active.has(review.reviewerId)) return forbidden("review.account_inactive");
        const refused = checkReviewable(gig, review.reviewerId);
        if (refused) return refused;
      }
      if (reviews.length === 0) return ok({ ids: [] });
      const ids = await storeReviews(tx, gig, reviews);
      // Each reviewer's activity row, as createReview writes it, in a few statements for thousands of reviews.
      await recordActivities(
        tx.trx,
        reviews.map((r, i) => ({ userId: r.reviewerId, kind: "review_left", details: { gigId: gig.id, reviewId: ids[i], rating: r.rating } })),
      );
      return ok({ ids });
    },
    { db },
  );
}

/**
 * The actor's own review, locked for a change after its gig (the order every roll-up takes its locks in), or
 * the failure that refuses it: another member's review, or none, is not found; one posted more than
 * REVIEW_EDIT_DAYS ago is a conflict, and so is changing one an admin hid (its author may still delete it).
 */
async function ownOpenReview(tx: Tx, reviewerId: number, reviewId: number, { change }: { change: boolean }) {
  if (!(await activeReviewerIds(tx.trx, [reviewerId])).has(reviewerId)) return forbidden("review.account_inactive");
  const authorship = await reviewAuthorship(tx.trx, reviewId);
  if (!authorship || authorship.reviewerId !== reviewerId) return notFound("review.not_found");
  const gig = await lockGigForReview(tx.trx, authorship.gigId);
  // Read again under the locks: a delete at the same moment may have taken it.
  const review = await lockReview(tx.trx, reviewId, REVIEW_EDIT_DAYS);
  if (!gig || !review || review.reviewerId !== reviewerId) return notFound("review.not_found");
  if (!review.open) return conflict("review.edit_window_closed", { days: REVIEW_EDIT_DAYS });
  if (change && review.hidden) return conflict("review.hidden");
  return { ok: true as const, gig, review };
}

/**
 * Its author changes a review's stars or words within REVIEW_EDIT_DAYS of posting it; the gig's and the
 * seller's rating are rolled up again from the reviews in the same transaction.
 */
export async function updateReview(actor: Actor, input: ReviewEditInput, { db }: { db?: Knex } = {}): Promise<Result<{ id: number }>> {
  if (actor.kind !== "member") return forbidden("review.sign_in_required");
  const parsed = ReviewEditSchema.safeParse(input);
  if (!parsed.success) return invalid(issuesOf(parsed.error));
  const { reviewId, rating, comment } = parsed.data;
  const reviewerId = actor.user.id;
  return transact(
    actor,
    async (tx) => {
      const found = await ownOpenReview(tx, reviewerId, reviewId, { change: true });
      if (!found.ok) return found;
      await updateReviewRow(tx.trx, reviewId, { rating, comment });
      await reviewsChanged(tx, found.gig);
      await tx.activity(reviewerId, "review_edited", { gigId: found.gig.id, reviewId, ...(rating === undefined ? {} : { rating }) });
      return ok({ id: reviewId });
    },
    { db },
  );
}

/**
 * Its author deletes a review within REVIEW_EDIT_DAYS of posting it; the gig's and the seller's rating and
 * count are rolled up again from the reviews that remain, in the same transaction. The order it was of may be
 * reviewed again.
 */
export async function deleteReview(actor: Actor, input: { reviewId: number }, { db }: { db?: Knex } = {}): Promise<Result<null>> {
  if (actor.kind !== "member") return forbidden("review.sign_in_required");
  const reviewerId = actor.user.id;
  return transact(
    actor,
    async (tx) => {
      const found = await ownOpenReview(tx, reviewerId, input.reviewId, { change: false });
      if (!found.ok) return found;
      await deleteReviewRow(tx.trx, input.reviewId);
      await reviewsChanged(tx, found.gig);
      await tx.activity(reviewerId, "review_deleted", { gigId: found.gig.id, reviewId: input.reviewId });
      return ok(null);
    },
    { db },
  );
}
