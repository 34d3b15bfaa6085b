/**
 * Reviews (ADR 012): a buyer's stars and words about a gig. Every review, the one a member leaves and the
 * demo data's thousands alike, passes the same checks and changes the gig's and its seller's rating and
 * count in the same transaction, recomputed from the review rows under the gig's lock, so two reviews at
 * once both count.
 *
 * Reviews are allowed once per completed order, by its buyer (DESIGN.md §4). Orders do not exist yet: what
 * can be enforced now is enforced (a member with an active account, not the gig's own seller, a gig that
 * has been on the market, 1 to 5 stars, a comment within the table's limit), and the order check has its
 * marked place in `checkReviewable`.
 */
import type { Knex } from "knex";
import { recordActivities } from "~/models/activity.server";
import { activeReviewerIds, insertReviews, lockGigForReview, rollUpRatings, type NewReview } from "~/models/review.server";
import { forbidden, invalid, issuesOf, notFound, ok, transact, type Actor, type Issues, type Result, type Tx } from "~/operations/core.server";
import { ReviewSchema, type ReviewInput } from "~/utils/review-schemas";

export const SIGN_IN_TO_REVIEW = "Sign in to leave a review.";
export const OWN_GIG = "You cannot review your own gig.";
export const NO_SUCH_GIG = "We could not find that gig.";
export const NO_SUCH_ORDER = "We could not find that order.";
const ACCOUNT_INACTIVE = "Your account cannot leave reviews.";

type Gig = NonNullable<Awaited<ReturnType<typeof lockGigForReview>>>;

/**
 * The gig of a review, locked for its roll-up, or the failure that refuses it: no such gig, or one never
 * published (a draft was never on offer, so nobody can have bought it; to anyone but its seller it does not
 * exist).
 */
async function reviewableGig(tx: Tx, gigId: number): Promise<Gig | ReturnType<typeof notFound>> {
  const gig = await lockGigForReview(tx.trx, gigId);
  return gig && gig.publishedAt ? gig : notFound(NO_SUCH_GIG);
}

/**
 * Whether this reviewer may review this gig (null when they may).
 *
 * ORDER CHECK (lands with orders): `orderId` must then be required, and must name an order of this gig whose
 * buyer is the reviewer, in the `completed` state, that has no review yet (a unique order_id on reviews);
 * a foreign order is not_found, an order not yet completed or already reviewed a conflict. Until orders
 * exist, no order can be named: an orderId finds nothing.
 */
function checkReviewable(gig: Gig, reviewerId: number, orderId: number | undefined) {
  if (orderId !== undefined) return notFound(NO_SUCH_ORDER);
  if (gig.sellerId === reviewerId) return forbidden(OWN_GIG);
  return null;
}

/** Stores the reviews of one locked gig and rolls its and its seller's rating and count up. */
async function storeReviews(tx: Tx, gig: Gig, reviews: NewReview[]) {
  const ids = await insertReviews(tx.trx, reviews);
  await rollUpRatings(tx.trx, { gigId: gig.id, sellerId: gig.sellerId });
  return ids;
}

/**
 * A member reviews a gig they bought: 1 to 5 stars and an optional comment. Refused: a visitor (forbidden),
 * the gig's own seller (forbidden), an unknown or never-published gig (not_found), stars or a comment
 * outside the rules (invalid).
 */
export async function createReview(actor: Actor, input: ReviewInput, { db }: { db?: Knex } = {}): Promise<Result<{ id: number }>> {
  if (actor.kind !== "member") return forbidden(SIGN_IN_TO_REVIEW);
  // The shared schema has parsed the input at the door; a door that built it itself is held to the same rules.
  const parsed = ReviewSchema.safeParse(input);
  if (!parsed.success) return invalid(issuesOf(parsed.error));
  const { gigId, orderId, rating, comment } = parsed.data;
  const reviewerId = actor.user.id;
  return transact(
    actor,
    async (tx) => {
      if (!(await activeReviewerIds(tx.trx, [reviewerId])).has(reviewerId)) return forbidden(ACCOUNT_INACTIVE);
      const gig = await reviewableGig(tx, gigId);
      if ("ok" in gig) return gig;
      const refused = checkReviewable(gig, reviewerId, orderId);
      if (refused) return refused;
      const [id] = await storeReviews(tx, gig, [{ gigId, reviewerId, rating, comment }]);
      await tx.activity(reviewerId, "review_left", { gigId, reviewId: id, rating });
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
  if (actor.kind !== "system") return forbidden("Only the platform loads reviews in bulk.");
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
      const active = await activeReviewerIds(tx.trx, reviews.map((r) => r.reviewerId));
      for (const review of reviews) {
        if (!active.has(review.reviewerId)) return forbidden(ACCOUNT_INACTIVE);
        const refused = checkReviewable(gig, review.reviewerId, undefined);
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
