/**
 * Review calls (ADR 041): a buyer reviews their completed order (the order page's review form, the same
 * operation), changes or deletes it within REVIEW_EDIT_DAYS of posting it, and anyone reads a gig's reviews or
 * a seller's (across their published gigs, as the profile shows them), newest first, a page at a time, each with
 * the seller's reply; the gig's seller replies once (app/operations/review-replies.server.ts). A review an admin
 * hid is in no list. The gig's and the seller's rating and count follow every change in its transaction.
 */
import { z } from "zod";
import { getGigPage } from "~/models/gig.server";
import { getReview, gigOfBuyersOrder, profileMemberId, reviewsAfter, type Review, type ReviewCursor } from "~/models/review.server";
import { notFound, ok, type Actor, type Result } from "~/operations/core.server";
import { replyToReview } from "~/operations/review-replies.server";
import { createReview, deleteReview, updateReview } from "~/operations/reviews.server";
import { changesSomething, NOTHING_TO_CHANGE, REVIEW_EDIT_DAYS, reviewChangeFields, ReviewReplySchema, ReviewSchema } from "~/schemas/review";
import { getDb } from "~/server/db.server";
import { call } from "../route.server";
import { IdParams, iso, Iso, PageQuery, pageOf } from "../shapes";

const TAG = "Reviews";

const ReviewItem = z.object({
  id: z.number().int(),
  gig: z.object({ id: z.number().int(), title: z.string() }),
  reviewerName: z.string(),
  rating: z.number().int().min(1).max(5),
  comment: z.string().describe("May be empty: the stars are the review."),
  createdAt: Iso,
  editedAt: Iso.nullable().describe("When its author last changed it; null if never."),
  reply: z.object({ text: z.string(), createdAt: Iso }).nullable().describe("The gig's seller's one public reply, or null."),
});

const itemOf = (r: Review): z.input<typeof ReviewItem> => ({
  id: r.id,
  gig: { id: r.gigId, title: r.gigTitle },
  reviewerName: r.reviewerName,
  rating: r.rating,
  comment: r.comment,
  createdAt: iso(r.createdAt),
  editedAt: r.editedAt ? iso(r.editedAt) : null,
  reply: r.reply !== null && r.repliedAt ? { text: r.reply, createdAt: iso(r.repliedAt) } : null,
});

/** A review's cursor: microseconds since 1970 and its id, `1733480000123456_42`. */
const CURSOR = /^(\d{1,17})_(\d{1,16})$/;
const cursorText = (c: ReviewCursor) => `${c.micros}_${c.id}`;

const ReviewPageQuery = PageQuery.extend({
  cursor: z
    .string()
    .regex(CURSOR, "api.page.cursor")
    .transform((text): ReviewCursor => {
      const [, micros, id] = CURSOR.exec(text)!;
      return { micros: micros!, id: Number(id) };
    })
    .optional(),
});

/** A seller by id (digits) or username. */
const UserParams = z.object({
  id: z
    .string()
    .regex(/^(?:\d{1,16}|[a-z0-9_]{3,30})$/, "api.member.id")
    .describe("The seller's id, or their username (a value of digits only is an id)."),
});

/** A page of reviews as the answer gives it. */
async function pageAnswer(of: { gigId: number } | { sellerId: number }, query: z.output<typeof ReviewPageQuery>) {
  const { reviews, next } = await reviewsAfter(getDb(), of, { after: query.cursor, limit: query.limit });
  return ok({ items: reviews.map(itemOf), nextCursor: next ? cursorText(next) : null });
}

/** The review as it now stands, after an operation that returned its id. */
async function answerWithReview(result: Result<{ id: number }>, status: 200 | 201 = 200) {
  if (!result.ok) return result;
  const review = await getReview(getDb(), result.value.id);
  if (!review) return notFound("review.not_found");
  return { ok: true as const, status, value: itemOf(review) };
}

const viewerOf = (actor: Actor) => (actor.kind === "member" ? { id: actor.user.id, role: actor.user.role } : null);

export const reviewCalls = [
  call({
    method: "post",
    path: "/reviews",
    operationId: "createReview",
    summary: "Review a completed order of yours",
    description:
      "The buyer of a completed order reviews its gig once: 1 to 5 stars and an optional comment. " +
      "Another member's order is 404; an order not yet completed, or already reviewed, is 409.",
    tag: TAG,
    access: "member",
    body: z.object({ orderId: ReviewSchema.shape.orderId.unwrap(), rating: ReviewSchema.shape.rating, comment: ReviewSchema.shape.comment }).strict(),
    response: ReviewItem,
    status: 201,
    idempotent: true,
    failures: [404, 409],
    async handle({ actor, body }) {
      if (actor.kind !== "member") return notFound("order.not_found");
      const gigId = await gigOfBuyersOrder(getDb(), body.orderId, actor.user.id);
      if (gigId === null) return notFound("order.not_found");
      return answerWithReview(await createReview(actor, { gigId, ...body }), 201);
    },
  }),
  call({
    method: "get",
    path: "/reviews/gig/{id}",
    operationId: "listGigReviews",
    summary: "A gig's reviews, newest first",
    description: "A gig that is not on offer (a draft, paused, or its seller away) is 404 to anyone but its seller.",
    tag: TAG,
    access: "public",
    shared: true,
    params: IdParams,
    query: ReviewPageQuery,
    response: pageOf(ReviewItem),
    failures: [404],
    async handle({ actor, params, query }) {
      const gig = await getGigPage(getDb(), params.id, viewerOf(actor));
      if (!gig) return notFound("gig.not_found");
      return pageAnswer({ gigId: gig.id }, query);
    },
  }),
  call({
    method: "get",
    path: "/reviews/user/{id}",
    operationId: "listSellerReviews",
    summary: "The reviews of a seller's published gigs, newest first",
    tag: TAG,
    access: "public",
    params: UserParams,
    query: ReviewPageQuery,
    response: pageOf(ReviewItem),
    failures: [404],
    async handle({ params, query }) {
      const key = /^\d+$/.test(params.id) ? { id: Number(params.id) } : { username: params.id };
      const sellerId = await profileMemberId(getDb(), key);
      if (sellerId === null) return notFound("member.not_found");
      return pageAnswer({ sellerId }, query);
    },
  }),
  call({
    method: "put",
    path: "/reviews/{id}",
    operationId: "updateReview",
    summary: "Change your review's stars or words",
    description: `Only its author, within ${REVIEW_EDIT_DAYS} days of posting it (after that 409 \`review.edit_window_closed\`). A field left out stays as it is.`,
    tag: TAG,
    access: "member",
    params: IdParams,
    body: z.object(reviewChangeFields).strict().refine(changesSomething, NOTHING_TO_CHANGE),
    response: ReviewItem,
    failures: [404, 409],
    async handle({ actor, params, body }) {
      return answerWithReview(await updateReview(actor, { reviewId: params.id, ...body }));
    },
  }),
  call({
    method: "delete",
    path: "/reviews/{id}",
    operationId: "deleteReview",
    summary: "Delete your review",
    description: `Only its author, within ${REVIEW_EDIT_DAYS} days of posting it (after that 409 \`review.edit_window_closed\`). The order may then be reviewed again.`,
    tag: TAG,
    access: "member",
    params: IdParams,
    response: z.null(),
    failures: [404, 409],
    handle: ({ actor, params }) => deleteReview(actor, { reviewId: params.id }),
  }),
  call({
    method: "post",
    path: "/reviews/{id}/reply",
    operationId: "replyToReview",
    summary: "Reply to a review of your gig",
    description:
      "Only the gig's seller (403 `review.reply_not_seller` for anyone else), once: a second reply is 409 `review.already_replied`. " +
      "The reply shows under the review for everyone, and its author is told.",
    tag: TAG,
    access: "member",
    params: IdParams,
    body: z.object({ reply: ReviewReplySchema.shape.reply }).strict(),
    response: ReviewItem,
    status: 201,
    failures: [404, 409],
    async handle({ actor, params, body }) {
      return answerWithReview(await replyToReview(actor, { reviewId: params.id, reply: body.reply }), 201);
    },
  }),
];
