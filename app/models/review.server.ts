/**
 * Reviews: read newest first, a page at a time (by gig for the gig page, by seller for the profile), and
 * written only by app/operations/reviews.server.ts (and review-replies.server.ts), which keep each gig's and
 * seller's rating and count equal to their visible reviews in the same transaction. A review an admin hid
 * (`hidden_at`) is on no public page or list and counts in no rating; its author sees it on their order's page.
 */
import type { Db } from "~/server/db.server";

export type Review = {
  id: number;
  rating: number;
  comment: string;
  createdAt: Date;
  reviewerName: string;
  gigId: number;
  gigTitle: string;
  /** The seller's one public answer, or null. */
  reply: string | null;
  repliedAt: Date | null;
  /** When its author last changed it, or null. */
  editedAt: Date | null;
};

export const REVIEWS_PER_PAGE = 10;

/** The reviews anyone may read: not hidden by an admin. */
function reviewQuery(db: Db) {
  return db("reviews as r")
    .join("users as u", "u.id", "r.reviewer_id")
    .join("gigs as g", "g.id", "r.gig_id")
    .whereNull("r.hidden_at")
    .select(
      "r.id",
      "r.rating",
      "r.comment",
      "r.created_at",
      "r.reply",
      "r.replied_at",
      "r.edited_at",
      "u.name as reviewer_name",
      "g.id as gig_id",
      "g.title as gig_title",
    );
}

/** A time from a row (a Date) or from a page embedded as JSON (an ISO string); null stays null. */
const timeOf = (v: unknown): Date | null => (v === null || v === undefined ? null : v instanceof Date ? v : new Date(String(v)));

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
    reply: r.reply === null || r.reply === undefined ? null : String(r.reply),
    repliedAt: timeOf(r.replied_at),
    editedAt: timeOf(r.edited_at),
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
 * Sets a gig's and its seller's rating (the mean of their visible reviews, to two places) and count from the review
 * rows themselves. The caller holds the gig's lock (lockGigForReview); the seller's row is locked here,
 * after it, always in that order, so two reviews of one seller's different gigs also wait for each other,
 * and the second's average, read after the first has committed, counts both.
 */
export async function rollUpRatings(db: Db, { gigId, sellerId }: { gigId: number; sellerId: number }) {
  await db("users").where({ id: sellerId }).forNoKeyUpdate().first("id");
  await db.raw(
    `UPDATE gigs SET rating = t.rating, reviews_count = t.n
     FROM (SELECT coalesce(round(avg(rating), 2), 0) AS rating, count(*) AS n FROM reviews WHERE gig_id = ? AND hidden_at IS NULL) t
     WHERE gigs.id = ?`,
    [gigId, gigId],
  );
  await rollUpSellerRating(db, sellerId);
}

/** Sets a seller's rating and count from the visible reviews of the gigs they still have (after a gig is deleted too). */
export async function rollUpSellerRating(db: Db, sellerId: number) {
  await db.raw(
    `UPDATE users SET rating = t.rating, reviews_count = t.n
     FROM (SELECT coalesce(round(avg(r.rating), 2), 0) AS rating, count(*) AS n
           FROM reviews r JOIN gigs g ON g.id = r.gig_id WHERE g.seller_id = ? AND r.hidden_at IS NULL) t
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
export async function lockReview(
  db: Db,
  id: number,
  days: number,
): Promise<{ id: number; reviewerId: number; gigId: number; orderId: number | null; open: boolean; hidden: boolean } | null> {
  const row = await db("reviews")
    .where({ id })
    .forUpdate()
    .first("id", "reviewer_id", "gig_id", "order_id", "hidden_at", db.raw("created_at > now() - make_interval(days => ?) AS open", [days]));
  return row
    ? {
        id: Number(row.id),
        reviewerId: Number(row.reviewer_id),
        gigId: Number(row.gig_id),
        orderId: row.order_id === null ? null : Number(row.order_id),
        open: Boolean(row.open),
        hidden: row.hidden_at !== null,
      }
    : null;
}

/** Sets a review's stars and words (those given). */
export async function updateReviewRow(db: Db, id: number, change: { rating?: number; comment?: string }) {
  const patch = { ...(change.rating === undefined ? {} : { rating: change.rating }), ...(change.comment === undefined ? {} : { comment: change.comment }) };
  if (Object.keys(patch).length)
    await db("reviews")
      .where({ id })
      .update({ ...patch, edited_at: db.fn.now() });
}

export async function deleteReviewRow(db: Db, id: number) {
  await db("reviews").where({ id }).delete();
}

// ---------------------------------------------------------------------------------------------------------
// Replies and hiding (app/operations/review-replies.server.ts only, inside its transaction).

/** What a reply or a hiding needs of a review: who wrote it, of which order, the gig's seller and title. Null when there is none. */
export async function reviewFacts(
  db: Db,
  id: number,
): Promise<{
  id: number;
  reviewerId: number;
  orderId: number | null;
  gigId: number;
  sellerId: number;
  gigTitle: string;
  replied: boolean;
  hidden: boolean;
} | null> {
  const row = await db("reviews as r")
    .join("gigs as g", "g.id", "r.gig_id")
    .where("r.id", id)
    .first("r.id", "r.reviewer_id", "r.order_id", "r.gig_id", "r.reply", "r.hidden_at", "g.seller_id", "g.title");
  return row
    ? {
        id: Number(row.id),
        reviewerId: Number(row.reviewer_id),
        orderId: row.order_id === null ? null : Number(row.order_id),
        gigId: Number(row.gig_id),
        sellerId: Number(row.seller_id),
        gigTitle: String(row.title),
        replied: row.reply !== null,
        hidden: row.hidden_at !== null,
      }
    : null;
}

/**
 * Stores the seller's reply, only if the review has none: true when it was written. Two replies at once both
 * reach this UPDATE; Postgres makes the second wait for the first's row and then finds `reply` set, so it writes nothing.
 */
export async function setReplyOnce(db: Db, id: number, reply: string): Promise<boolean> {
  const rows = await db("reviews").where({ id }).whereNull("reply").update({ reply, replied_at: db.fn.now() }, ["id"]);
  return rows.length === 1;
}

/** Hides a review (with the admin and the reason) or shows it again (null). */
export async function setReviewHidden(db: Db, id: number, hidden: { by: number; reason: string } | null) {
  await db("reviews")
    .where({ id })
    .update(
      hidden ? { hidden_at: db.fn.now(), hidden_by: hidden.by, hidden_reason: hidden.reason } : { hidden_at: null, hidden_by: null, hidden_reason: null },
    );
}

/** A review as the two parties of its order see it (the order's page, /reviews/:id): hidden or not, and whether its author may still change it. */
export type PartyReview = Omit<Review, "reviewerName" | "gigTitle"> & {
  reviewerId: number;
  sellerId: number;
  orderId: number | null;
  gigTitle: string;
  hidden: { at: Date; reason: string } | null;
  /** Until when its author may change or delete it; `open` says whether that is still ahead, by the database's clock. */
  editableUntil: Date;
  open: boolean;
};

/** A review, hidden or not, by its id or its order's, with what its parties are shown of it; null when there is none. */
export async function partyReview(db: Db, key: { id: number } | { orderId: number }, days: number): Promise<PartyReview | null> {
  const row = await db("reviews as r")
    .join("gigs as g", "g.id", "r.gig_id")
    .where("id" in key ? { "r.id": key.id } : { "r.order_id": key.orderId })
    .first(
      "r.id",
      "r.rating",
      "r.comment",
      "r.created_at",
      "r.reply",
      "r.replied_at",
      "r.edited_at",
      "r.hidden_at",
      "r.hidden_reason",
      "r.reviewer_id",
      "r.order_id",
      "r.gig_id",
      "g.seller_id",
      "g.title",
      db.raw("r.created_at + make_interval(days => ?) AS editable_until", [days]),
      db.raw("r.created_at > now() - make_interval(days => ?) AS open", [days]),
    );
  if (!row) return null;
  return {
    id: Number(row.id),
    rating: Number(row.rating),
    comment: String(row.comment),
    createdAt: row.created_at,
    reply: row.reply ?? null,
    repliedAt: row.replied_at ?? null,
    editedAt: row.edited_at ?? null,
    reviewerId: Number(row.reviewer_id),
    sellerId: Number(row.seller_id),
    orderId: row.order_id === null ? null : Number(row.order_id),
    gigId: Number(row.gig_id),
    gigTitle: String(row.title),
    hidden: row.hidden_at ? { at: row.hidden_at, reason: String(row.hidden_reason) } : null,
    editableUntil: row.editable_until,
    open: Boolean(row.open),
  };
}

/**
 * An order's review as one of its parties is shown it (its order's page): the admin's reason for hiding it is
 * its author's to read, the seller learns only that it was hidden. Null when the order has no review.
 */
export async function orderReviewFor(db: Db, orderId: number, role: "buyer" | "seller", days: number) {
  const review = await partyReview(db, { orderId }, days);
  if (!review) return null;
  const { reviewerId: _reviewer, sellerId: _seller, hidden, ...shown } = review;
  return { ...shown, hidden: hidden && (role === "buyer" ? hidden : { at: hidden.at, reason: "" }) };
}

// ---------------------------------------------------------------------------------------------------------
// The admin's list (app/admin/reviews.tsx): every review, hidden ones too, newest first.

export type AdminReview = Review & { reviewerEmail: string; sellerName: string; hidden: { at: Date; reason: string; by: string | null } | null };

export const ADMIN_REVIEWS_PER_PAGE = 20;

/** A page of reviews for admins, newest first: all, or the hidden ones; `q` finds words in the comment, the gig's title or a name. */
export async function listReviewsForAdmin(
  db: Db,
  { q, hiddenOnly, page }: { q: string; hiddenOnly: boolean; page: number },
): Promise<{ reviews: AdminReview[]; more: boolean }> {
  const query = db("reviews as r")
    .join("users as u", "u.id", "r.reviewer_id")
    .join("gigs as g", "g.id", "r.gig_id")
    .join("users as s", "s.id", "g.seller_id")
    .leftJoin("users as h", "h.id", "r.hidden_by")
    .select(
      "r.id",
      "r.rating",
      "r.comment",
      "r.created_at",
      "r.reply",
      "r.replied_at",
      "r.edited_at",
      "r.hidden_at",
      "r.hidden_reason",
      "u.name as reviewer_name",
      "u.email as reviewer_email",
      "s.name as seller_name",
      "h.name as hidden_by_name",
      "g.id as gig_id",
      "g.title as gig_title",
    );
  if (hiddenOnly) query.whereNotNull("r.hidden_at");
  if (q) {
    const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query.where((w) => w.whereILike("r.comment", like).orWhereILike("g.title", like).orWhereILike("u.name", like).orWhereILike("s.name", like));
  }
  const rows = await query
    .orderBy([
      { column: "r.created_at", order: "desc" },
      { column: "r.id", order: "desc" },
    ])
    .offset((page - 1) * ADMIN_REVIEWS_PER_PAGE)
    .limit(ADMIN_REVIEWS_PER_PAGE + 1);
  return {
    reviews: rows.slice(0, ADMIN_REVIEWS_PER_PAGE).map((r) => ({
      ...toReview(r),
      reviewerEmail: String(r.reviewer_email),
      sellerName: String(r.seller_name),
      hidden: r.hidden_at ? { at: r.hidden_at, reason: String(r.hidden_reason), by: r.hidden_by_name ?? null } : null,
    })),
    more: rows.length > ADMIN_REVIEWS_PER_PAGE,
  };
}
