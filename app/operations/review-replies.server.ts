/**
 * What others do to a review (ADR 053): the gig's seller answers it once, in public, and an admin
 * hides one that breaks the rules (with a reason its author reads) or shows it again. Its author's own changes
 * (write, change, delete) are in reviews.server.ts.
 *
 * A reply is a column of the review, written only where it is still empty, so of two replies at once the
 * second finds it taken (409 `review.already_replied`). Hiding and showing again lock the gig before the
 * review, as every roll-up does, and roll the gig and its seller up from the visible reviews (reviewsChanged).
 * The review's author is told of a reply and of a hiding, in their own language when they read it.
 */
import type { Knex } from "knex";
import { insertNotification, sayNotice, type Notice } from "~/models/notification.server";
import { lockGigForReview, lockReview, reviewFacts, setReplyOnce, setReviewHidden } from "~/models/review.server";
import { adminOf, conflict, forbidden, invalid, issuesOf, notFound, ok, transact, type Actor, type Result, type Tx } from "~/operations/core.server";
import { preferencesOf, pushUnreadCount } from "~/operations/notifications.server";
import { reviewsChanged } from "~/operations/review-rollup.server";
import { REVIEW_EDIT_DAYS, ReviewHideSchema, ReviewReplySchema, ReviewIdSchema, type ReviewHideInput, type ReviewReplyInput } from "~/schemas/review";

/** Tells a review's author something about it: a notification (linked to their order, if the review is of one), pushed to their open pages if they want that. */
async function tellAuthor(tx: Tx, review: { reviewerId: number; orderId: number | null }, kind: string, notice: Notice) {
  await insertNotification(tx.trx, { userId: review.reviewerId, kind, orderId: review.orderId, notice });
  const reach = await preferencesOf(tx, review.reviewerId);
  if (reach?.pushOrders) {
    await pushUnreadCount(tx, review.reviewerId, { kind, body: sayNotice(notice, reach.language), orderId: review.orderId, conversationId: null });
  }
}

/**
 * The gig's seller answers a review of it, once and in public. Refused: a visitor, anyone but the gig's seller
 * (forbidden), a review that is not there or is hidden (not found), a second reply (conflict), an empty or long reply (invalid).
 */
export async function replyToReview(actor: Actor, input: ReviewReplyInput, { db }: { db?: Knex } = {}): Promise<Result<{ id: number }>> {
  if (actor.kind !== "member") return forbidden("review.sign_in_required");
  const parsed = ReviewReplySchema.safeParse(input);
  if (!parsed.success) return invalid(issuesOf(parsed.error));
  const { reviewId, reply } = parsed.data;
  const seller = actor.user;
  return transact(
    actor,
    async (tx) => {
      const review = await reviewFacts(tx.trx, reviewId);
      if (!review || review.hidden) return notFound("review.not_found");
      if (review.sellerId !== seller.id) return forbidden("review.reply_not_seller");
      if (!(await setReplyOnce(tx.trx, reviewId, reply))) return conflict("review.already_replied");
      tx.pagesChanged();
      await tx.activity(seller.id, "review_replied", { gigId: review.gigId, reviewId });
      await tellAuthor(tx, review, "review_reply", { key: "notify.reviewReplies.replied", values: { title: review.gigTitle.trim(), name: seller.name } });
      return ok({ id: reviewId });
    },
    { db },
  );
}

/**
 * The review, locked after its gig (the order every roll-up takes its locks in), for an admin's hiding or
 * showing; not found when there is none (any more).
 */
async function lockedForModeration(tx: Tx, reviewId: number) {
  const facts = await reviewFacts(tx.trx, reviewId);
  if (!facts) return notFound("review.not_found");
  const gig = await lockGigForReview(tx.trx, facts.gigId);
  const review = await lockReview(tx.trx, reviewId, REVIEW_EDIT_DAYS);
  if (!gig || !review) return notFound("review.not_found");
  return { ok: true as const, gig, review, facts };
}

/**
 * An admin hides a review that breaks the rules, with the reason: it leaves every public page and list and
 * every rating, its author is told why and still sees it (marked hidden) on their order's page. Audited.
 */
export async function hideReview(actor: Actor, input: ReviewHideInput, { db }: { db?: Knex } = {}): Promise<Result<{ id: number }>> {
  const admin = adminOf(actor);
  if (!admin) return forbidden("access.admins_only");
  const parsed = ReviewHideSchema.safeParse(input);
  if (!parsed.success) return invalid(issuesOf(parsed.error));
  const { reviewId, reason } = parsed.data;
  return transact(
    actor,
    async (tx) => {
      const found = await lockedForModeration(tx, reviewId);
      if (!found.ok) return found;
      if (found.review.hidden) return conflict("review.already_hidden");
      await setReviewHidden(tx.trx, reviewId, { by: admin.id, reason });
      await reviewsChanged(tx, found.gig);
      await tx.audit({
        action: "review.hide",
        targetType: "review",
        targetId: reviewId,
        details: { reason, gigId: found.gig.id, reviewerId: found.review.reviewerId },
      });
      await tellAuthor(tx, found.facts, "review_hidden", { key: "notify.reviewReplies.hidden", values: { title: found.facts.gigTitle.trim(), reason } });
      return ok({ id: reviewId });
    },
    { db },
  );
}

/** An admin shows a hidden review again: back on the pages and in the ratings. Audited; its author is told. */
export async function unhideReview(actor: Actor, input: { reviewId: number }, { db }: { db?: Knex } = {}): Promise<Result<{ id: number }>> {
  if (!adminOf(actor)) return forbidden("access.admins_only");
  const parsed = ReviewIdSchema.safeParse(input);
  if (!parsed.success) return invalid(issuesOf(parsed.error));
  const { reviewId } = parsed.data;
  return transact(
    actor,
    async (tx) => {
      const found = await lockedForModeration(tx, reviewId);
      if (!found.ok) return found;
      if (!found.review.hidden) return conflict("review.not_hidden");
      await setReviewHidden(tx.trx, reviewId, null);
      await reviewsChanged(tx, found.gig);
      await tx.audit({
        action: "review.unhide",
        targetType: "review",
        targetId: reviewId,
        details: { gigId: found.gig.id, reviewerId: found.review.reviewerId },
      });
      await tellAuthor(tx, found.facts, "review_shown", { key: "notify.reviewReplies.shown", values: { title: found.facts.gigTitle.trim() } });
      return ok({ id: reviewId });
    },
    { db },
  );
}
