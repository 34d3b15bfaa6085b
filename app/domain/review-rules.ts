/**
 * The review form's limits, without zod: the order page's review form draws its stars from them in the browser,
 * where the schema (app/schemas/review.ts) is loaded only once the form is used.
 * They are the reviews table's own (migrations/20261122010002_reviews.ts): 1 to 5 stars, a comment of at most
 * 2,000 characters (it may be left empty: the stars are the review).
 */
export const RATING_MIN = 1;
export const RATING_MAX = 5;
export const COMMENT_MAX = 2000;
