/** Reviews: read newest first, a page at a time (by gig for the gig page, by seller for the profile). */
import type { Db } from "~/utils/db.server";

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
    createdAt: r.created_at as Date,
    reviewerName: String(r.reviewer_name),
    gigId: Number(r.gig_id),
    gigTitle: String(r.gig_title),
  };
}

/** One page of reviews, newest first, and whether there is another. */
async function reviewPage(query: ReturnType<typeof reviewQuery>, page: number) {
  const rows = await query
    .orderBy([
      { column: "r.created_at", order: "desc" },
      { column: "r.id", order: "desc" },
    ])
    .offset((page - 1) * REVIEWS_PER_PAGE)
    .limit(REVIEWS_PER_PAGE + 1);
  return { reviews: rows.slice(0, REVIEWS_PER_PAGE).map(toReview), hasMore: rows.length > REVIEWS_PER_PAGE };
}

/** One page of a seller's reviews across their published gigs. */
export function listSellerReviews(db: Db, sellerId: number, page = 1) {
  return reviewPage(reviewQuery(db).where("g.seller_id", sellerId).andWhere("g.status", "published"), page);
}

/** One page of a gig's reviews. */
export function listGigReviews(db: Db, gigId: number, page = 1) {
  return reviewPage(reviewQuery(db).where("r.gig_id", gigId), page);
}
