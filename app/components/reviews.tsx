import { Link } from "~/components/link";
import type { Review } from "~/models/review.server";
import { usePreferences } from "~/hooks/use-preferences";

/** A rating as stars; screen readers hear it as one image named "4.0 out of 5 stars" (a plain span may not have a label). */
export function Stars({ rating }: { rating: number }) {
  return (
    <span className="stars" role="img" aria-label={`${rating.toFixed(1)} out of 5 stars`}>
      {"★".repeat(Math.round(rating))}
      {"☆".repeat(5 - Math.round(rating))}
    </span>
  );
}

/**
 * A page of reviews with links to the newer and older pages (`?reviews=N#reviews`), for seller profiles
 * (each review names its gig) and gig pages.
 */
export function ReviewList({ reviews, page, hasMore, showGig }: { reviews: Review[]; page: number; hasMore: boolean; showGig: boolean }) {
  const { date } = usePreferences();
  return (
    <>
      <h2 id="reviews">Reviews</h2>
      {reviews.length ? (
        <ul className="plain-list review-list" aria-label="Reviews">
          {reviews.map((r) => (
            <li key={r.id} id={`review-${r.id}`}>
              <div>
                <Stars rating={r.rating} /> <strong>{r.reviewerName}</strong>
                {showGig ? (
                  <>
                    {" "}
                    on <Link to={`/gig/${r.gigId}`}>{r.gigTitle}</Link>
                  </>
                ) : null}
                <p>{r.comment}</p>
              </div>
              <time dateTime={new Date(r.createdAt).toISOString()}>{date(r.createdAt)}</time>
            </li>
          ))}
        </ul>
      ) : (
        <p>No reviews yet.</p>
      )}
      <nav className="pager" aria-label="Review pages">
        {page > 1 ? <Link to={`?reviews=${page - 1}#reviews`}>Newer reviews</Link> : null}
        {hasMore ? <Link to={`?reviews=${page + 1}#reviews`}>Older reviews</Link> : null}
      </nav>
    </>
  );
}

/** The `?reviews=N` page number, 1 when absent or not a sensible number. */
export function reviewPageOf(request: Request) {
  const n = Number(new URL(request.url).searchParams.get("reviews") ?? "1");
  return Number.isInteger(n) && n >= 1 && n <= 1000 ? n : 1;
}
