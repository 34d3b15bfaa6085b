/**
 * The review form's rules, shared by the server (which decides) and the browser (which only helps, once the
 * form is used). The limits are in app/domain/review-rules.ts.
 */
import { z } from "~/schemas/zod";
import { COMMENT_MAX, RATING_MAX, RATING_MIN } from "~/domain/review-rules";

export { COMMENT_MAX, RATING_MAX, RATING_MIN };

const id = (message: string) => z.coerce.number({ invalid_type_error: message }).int(message).positive(message);

export const ReviewSchema = z.object({
  gigId: id("Choose the gig you are reviewing"),
  /** The completed order this review is of; required once orders exist (the order check lands with them). */
  orderId: id("Choose the order you are reviewing").optional(),
  rating: z.coerce
    .number({ required_error: "Choose from 1 to 5 stars", invalid_type_error: "Choose from 1 to 5 stars" })
    .int("Choose from 1 to 5 stars")
    .min(RATING_MIN, "Choose from 1 to 5 stars")
    .max(RATING_MAX, "Choose from 1 to 5 stars"),
  comment: z
    .string()
    .trim()
    .max(COMMENT_MAX, `A review can have at most ${COMMENT_MAX.toLocaleString("en-US")} characters`)
    .default(""),
});
export type ReviewInput = z.output<typeof ReviewSchema>;

/** How long after posting it a review's author may change or delete it. */
export const REVIEW_EDIT_DAYS = 7;

/** A review's stars and words as a change takes them: either may be left out (it stays as it is), not both. */
export const reviewChangeFields = { rating: ReviewSchema.shape.rating.optional(), comment: ReviewSchema.shape.comment.removeDefault().optional() };
export const changesSomething = (v: { rating?: number; comment?: string }) => v.rating !== undefined || v.comment !== undefined;
export const NOTHING_TO_CHANGE = { message: "Change the stars or the words", path: ["rating"] };

/** Its author changes a review. */
export const ReviewEditSchema = z.object({ reviewId: id("Choose the review to change"), ...reviewChangeFields }).refine(changesSomething, NOTHING_TO_CHANGE);
export type ReviewEditInput = z.output<typeof ReviewEditSchema>;
