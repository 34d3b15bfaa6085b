/**
 * Reviews: read newest first, a page at a time (by gig for the gig page, by seller for the profile), and
 * written only by app/operations/reviews.server.ts, which keeps each gig's and seller's rating and count
 * equal to their reviews in the same transaction.
 */
import type { Db } from "~/server/db.server";

export type Review = { id: number; rating: number; comment: string; createdAt: Date; reviewerName: string; gigId: number; gigTitle: string };

export const REVIEWS_PER_PAGE = 10;

function reviewQuery(db: Db) {
  return db("reviews as r")
    .join("users as u", "u.id", "r.reviewer_id")
    .join("gigs as g", "g.id", "r.gig_id")
    .select("r.id", "r.rating", "r.comment", "r.created_at", "u.name as reviewer_name", "g.id as gig_id", "g.title as gig_title");
}

function toReview(r: Record<string, unknown>): Review {
  return {
    id: Number(r.id),
    rating: Number(r.rating),
    comment: String(r.comment),
    // A Date from a row; an ISO string from a page embedded as JSON (gigReviewsJson).
    createdAt: r.created_at instanceof Date ? r.created_at : new Date(String(r.created_at)),
    reviewerName: String(r.reviewer_name),
    gigId: Number(r.gig_id),
    gigTitle: String(r.gig_title),
  };
}

/** The rows of one page of reviews, newest first, and one more to tell whether there is another page. */
function pageRows(query: ReturnType<typeof reviewQuery>, page: number) {
  return query
    .orderBy([
      { column: "r.created_at", order: "desc" },
      { column: "r.id", order: "desc" },
    ])
    .offset((page - 1) * REVIEWS_PER_PAGE)
    .limit(REVIEWS_PER_PAGE + 1);
}

/** A page of reviews from its rows (pageRows'). */
export function reviewPageFrom(rows: Record<string, unknown>[]): { reviews: Review[]; hasMore: boolean } {
  return { reviews: rows.slice(0, REVIEWS_PER_PAGE).map(toReview), hasMore: rows.length > REVIEWS_PER_PAGE };
}

/** One page of reviews, newest first, and whether there is another. */
async function reviewPage(query: ReturnType<typeof reviewQuery>, page: number) {
  return reviewPageFrom(await pageRows(query, page));
}

/** One page of a seller's reviews across their published gigs. */
export function listSellerReviews(db: Db, sellerId: number, page = 1) {
  return reviewPage(reviewQuery(db).where("g.seller_id", sellerId).andWhere("g.status", "published"), page);
}

/**
 * One page of a gig's reviews as a JSON array of rows: a subquery for the statement that reads the gig itself,
 * so the gig page is one round trip (ADR 023). reviewPageFrom reads it.
 */
export function gigReviewsJson(db: Db, gigId: number, page: number) {
  const rows = pageRows(reviewQuery(db).where("r.gig_id", gigId), page);
  return db.raw(`(SELECT coalesce(json_agg(x ORDER BY x.created_at DESC, x.id DESC), '[]'::json) FROM (?) x)`, [rows]);
}

// ---------------------------------------------------------------------------------------------------------
// Writing (app/operations/reviews.server.ts only, inside its transaction).

export type NewReview = { gigId: number; reviewerId: number; rating: number; comment: string; createdAt?: Date; orderId?: number };

/**
 * The gig a review is about, locked until the transaction ends, so reviews of one gig roll up one after
 * the other and none is left out of its average. FOR NO KEY UPDATE: rows that merely reference the gig
 * (images, packages, reviews) can still be written meanwhile. Null when there is no such gig.
 */
export async function lockGigForReview(db: Db, gigId: number): Promise<{ id: number; sellerId: number; publishedAt: Date | null } | null> {
  const row = await db("gigs").where({ id: gigId }).forNoKeyUpdate().first("id", "seller_id", "published_at");
  return row ? { id: Number(row.id), sellerId: Number(row.seller_id), publishedAt: (row.published_at as Date | null) ?? null } : null;
}

/** Of these users, those who may write a review: members whose account is active. */
export async function activeReviewerIds(db: Db, userIds: number[]): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const ids = await db("users")
    .whereIn("id", [...new Set(userIds)])
    .andWhere({ status: "active" })
    .pluck("id");
  return new Set(ids.map(Number));
}

/** Inserts reviews (in chunks, for a bulk load); returns their ids in the same order. */
export async function insertReviews(db: Db, reviews: NewReview[]): Promise<number[]> {
  const ids: number[] = [];
  for (let from = 0; from < reviews.length; from += 1000) {
    const rows = await db("reviews")
      .insert(
        reviews.slice(from, from + 1000).map((r) => ({
          gig_id: r.gigId,
          reviewer_id: r.reviewerId,
          rating: r.rating,
          comment: r.comment,
          order_id: r.orderId ?? null,
          ...(r.createdAt ? { created_at: r.createdAt } : {}),
        })),
      )
      .returning("id");
    ids.push(...rows.map((row) => Number(row.id)));
  }
  return ids;
}

/**
 * Sets a gig's and its seller's rating (the mean of their reviews, to two places) and count from the review
 * rows themselves. The caller holds the gig's lock (lockGigForReview); the seller's row is locked here,
 * after it, always in that order, so two reviews of one seller's different gigs also wait for each other,
 * and the second's average, read after the first has committed, counts both.
 */
export async function rollUpRatings(db: Db, { gigId, sellerId }: { gigId: number; sellerId: number }) {
  await db("users").where({ id: sellerId }).forNoKeyUpdate().first("id");
  await db.raw(
    `UPDATE gigs SET rating = t.rating, reviews_count = t.n
     FROM (SELECT coalesce(round(avg(rating), 2), 0) AS rating, count(*) AS n FROM reviews WHERE gig_id = ?) t
     WHERE gigs.id = ?`,
    [gigId, gigId],
  );
  await rollUpSellerRating(db, sellerId);
}

/** Sets a seller's rating and count from the reviews of the gigs they still have (after a gig is deleted too). */
export async function rollUpSellerRating(db: Db, sellerId: number) {
  await db.raw(
    `UPDATE users SET rating = t.rating, reviews_count = t.n
     FROM (SELECT coalesce(round(avg(r.rating), 2), 0) AS rating, count(*) AS n
           FROM reviews r JOIN gigs g ON g.id = r.gig_id WHERE g.seller_id = ?) t
     WHERE users.id = ?`,
    [sellerId, sellerId],
  );
}

// ---------------------------------------------------------------------------------------------------------
// The JSON API's reads: pages by keyset (the time and id of the last review seen), any length up to 100.

/** Where a page of reviews starts: after the review of this time (microseconds since 1970, as text) and id. */
export type ReviewCursor = { micros: string; id: number };

export type ReviewWithCursor = Review & { cursor: ReviewCursor };

/**
 * A page of a gig's reviews, or a seller's across their published gigs (as the profile shows them), newest
 * first, after `after`. `next` is the cursor of the page after it, null on the last. The time is carried to
 * the microsecond, as stored, so reviews of the same millisecond are neither skipped nor repeated.
 */
export async function reviewsAfter(
  db: Db,
  of: { gigId: number } | { sellerId: number },
  { after, limit }: { after?: ReviewCursor; limit: number },
): Promise<{ reviews: Review[]; next: ReviewCursor | null }> {
  const query = reviewQuery(db).select(db.raw("(extract(epoch FROM r.created_at) * 1000000)::bigint::text AS created_micros"));
  if ("gigId" in of) query.where("r.gig_id", of.gigId);
  else query.where("g.seller_id", of.sellerId).andWhere("g.status", "published");
  if (after) query.whereRaw("(r.created_at, r.id) < (timestamptz 'epoch' + ?::bigint * interval '1 microsecond', ?)", [after.micros, after.id]);
  const rows = await query
    .orderBy([
      { column: "r.created_at", order: "desc" },
      { column: "r.id", order: "desc" },
    ])
    .limit(limit + 1);
  const last = rows.length > limit ? rows[limit - 1] : undefined;
  return { reviews: rows.slice(0, limit).map(toReview), next: last ? { micros: String(last.created_micros), id: Number(last.id) } : null };
}

/** One review as the lists show it, or null. */
export async function getReview(db: Db, id: number): Promise<Review | null> {
  const row = await reviewQuery(db).where("r.id", id).first();
  return row ? toReview(row) : null;
}

/**
 * The member whose gigs' reviews a profile shows, by id or username: found as the profile page finds them
 * (an active member who is not an admin), or null.
 */
export async function profileMemberId(db: Db, key: { id: number } | { username: string }): Promise<number | null> {
  const row = await db("users")
    .where("id" in key ? { id: key.id } : { username: key.username })
    .andWhere({ status: "active" })
    .whereNot({ role: "admin" })
    .first("id");
  return row ? Number(row.id) : null;
}

/** The gig of a buyer's own order (what their review of it is about), or null for an order that is not theirs or has no gig. */
export async function gigOfBuyersOrder(db: Db, orderId: number, buyerId: number): Promise<number | null> {
  const row = await db("orders").where({ id: orderId, buyer_id: buyerId }).first("gig_id");
  return row && row.gig_id !== null ? Number(row.gig_id) : null;
}

// ---------------------------------------------------------------------------------------------------------
// Changing a review (app/operations/reviews.server.ts only, inside its transaction).

/** Who wrote a review and of which gig (read before its gig is locked), or null. */
export async function reviewAuthorship(db: Db, id: number): Promise<{ reviewerId: number; gigId: number } | null> {
  const row = await db("reviews").where({ id }).first("reviewer_id", "gig_id");
  return row ? { reviewerId: Number(row.reviewer_id), gigId: Number(row.gig_id) } : null;
}

/**
 * A review locked until the transaction ends (after its gig's lock: lockGigForReview), with whether it is
 * still within `days` of being posted, by the database's clock. Null when there is no such review (any more).
 */
export async function lockReview(db: Db, id: number, days: number): Promise<{ id: number; reviewerId: number; gigId: number; open: boolean } | null> {
  const row = await db("reviews")
    .where({ id })
    .forUpdate()
    .first("id", "reviewer_id", "gig_id", db.raw("created_at > now() - make_interval(days => ?) AS open", [days]));
  return row ? { id: Number(row.id), reviewerId: Number(row.reviewer_id), gigId: Number(row.gig_id), open: Boolean(row.open) } : null;
}

/** Sets a review's stars and words (those given). */
export async function updateReviewRow(db: Db, id: number, change: { rating?: number; comment?: string }) {
  const patch = { ...(change.rating === undefined ? {} : { rating: change.rating }), ...(change.comment === undefined ? {} : { comment: change.comment }) };
  if (Object.keys(patch).length) await db("reviews").where({ id }).update(patch);
}

export async function deleteReviewRow(db: Db, id: number) {
  await db("reviews").where({ id }).delete();
}
