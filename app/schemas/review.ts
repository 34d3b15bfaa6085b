/**
 * The review form's rules, shared by the server (which decides) and the browser (which only helps, once the
 * form is used). The limits are in app/domain/review-rules.ts.
 */
import { z } from "~/schemas/zod";
import { msg } from "~/i18n/message-key";
import { COMMENT_MAX, RATING_MAX, RATING_MIN } from "~/domain/review-rules";

export { COMMENT_MAX, RATING_MAX, RATING_MIN };

const id = (message: string) => z.coerce.number({ invalid_type_error: message }).int(message).positive(message);

export const ReviewSchema = z.object({
  gigId: id("orders.review.chooseGig"),
  /** The completed order this review is of; required once orders exist (the order check lands with them). */
  orderId: id("orders.review.chooseOrder").optional(),
  rating: z.coerce
    .number({ required_error: "orders.review.chooseRating", invalid_type_error: "orders.review.chooseRating" })
    .int("orders.review.chooseRating")
    .min(RATING_MIN, "orders.review.chooseRating")
    .max(RATING_MAX, "orders.review.chooseRating"),
  comment: z
    .string()
    .trim()
    .max(COMMENT_MAX, msg("orders.review.commentTooLong", { max: COMMENT_MAX }))
    .default(""),
});
export type ReviewInput = z.output<typeof ReviewSchema>;

/** How long after posting it a review's author may change or delete it. */
export const REVIEW_EDIT_DAYS = 7;

/** A review's stars and words as a change takes them: either may be left out (it stays as it is), not both. */
export const reviewChangeFields = { rating: ReviewSchema.shape.rating.optional(), comment: ReviewSchema.shape.comment.removeDefault().optional() };
export const changesSomething = (v: { rating?: number; comment?: string }) => v.rating !== undefined || v.comment !== undefined;
export const NOTHING_TO_CHANGE = { message: "orders.review.nothingToChange", path: ["rating"] };

/** Its author changes a review. */
export const ReviewEditSchema = z.object({ reviewId: id("orders.review.chooseReview"), ...reviewChangeFields }).refine(changesSomething, NOTHING_TO_CHANGE);
export type ReviewEditInput = z.output<typeof ReviewEditSchema>;

/** How long a seller's reply and an admin's reason for hiding may be. */
export const REPLY_MAX = COMMENT_MAX;
export const HIDE_REASON_MAX = 500;

/** The gig's seller answers a review, once. */
export const ReviewReplySchema = z.object({
  reviewId: id("orders.review.chooseReview"),
  reply: z
    .string({ required_error: "orders.reviewReplies.replyRequired" })
    .trim()
    .min(1, "orders.reviewReplies.replyRequired")
    .max(REPLY_MAX, msg("orders.reviewReplies.replyTooLong", { max: REPLY_MAX })),
});
export type ReviewReplyInput = z.output<typeof ReviewReplySchema>;

/** An admin hides a review that breaks the rules, saying why (its author reads the reason). */
export const ReviewHideSchema = z.object({
  reviewId: id("orders.review.chooseReview"),
  reason: z
    .string({ required_error: "admin.reviews.reasonRequired" })
    .trim()
    .min(1, "admin.reviews.reasonRequired")
    .max(HIDE_REASON_MAX, msg("admin.reviews.reasonTooLong", { max: HIDE_REASON_MAX })),
});
export type ReviewHideInput = z.output<typeof ReviewHideSchema>;

/** A review named by its id alone: an admin shows a hidden one again; its author deletes theirs. */
export const ReviewIdSchema = z.object({ reviewId: id("orders.review.chooseReview") });
