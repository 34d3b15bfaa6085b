import { Link } from "~/components/link";
import type { Review } from "~/models/review.server";
import { usePreferences } from "~/hooks/use-preferences";
import { ONE_DECIMAL } from "~/domain/catalog-vocabulary";
import { T, useT } from "~/i18n/react";
import { ReplyForm, ReviewReply } from "~/components/review-replies";

/** A rating as stars; screen readers hear it as one image named "4.0 out of 5 stars" (a plain span may not have a label). */
export function Stars({ rating }: { rating: number }) {
  const { t } = useT();
  const { number } = usePreferences();
  return (
    <span className="stars" role="img" aria-label={t("catalog.shared.stars", { rating: number(rating, ONE_DECIMAL) })}>
      {"★".repeat(Math.round(rating))}
      {"☆".repeat(5 - Math.round(rating))}
    </span>
  );
}

/**
 * A page of reviews with links to the newer and older pages (`?reviews=N#reviews`), for seller profiles
 * (each review names its gig) and gig pages, each with the seller's reply under it. `replyFrom`: the page the
 * seller reads it on (their own gig or profile), which puts a reply form under each review not yet answered.
 */
export function ReviewList({
  reviews,
  page,
  hasMore,
  showGig,
  replyFrom = null,
}: {
  reviews: Review[];
  page: number;
  hasMore: boolean;
  showGig: boolean;
  replyFrom?: string | null;
}) {
  const { date } = usePreferences();
  const { t } = useT();
  return (
    <>
      <h2 id="reviews">{t("catalog.reviews.title")}</h2>
      {reviews.length ? (
        <ul className="plain-list review-list" aria-label={t("catalog.reviews.title")}>
          {reviews.map((r) => (
            <li key={r.id} id={`review-${r.id}`}>
              <div>
                <Stars rating={r.rating} /> <strong>{r.reviewerName}</strong>
                {showGig ? (
                  <>
                    {" "}
                    <T id="catalog.reviews.on" values={{ gig: r.gigTitle }} components={{ 0: <Link to={`/gig/${r.gigId}`} /> }} />
                  </>
                ) : null}
                <p>{r.comment}</p>
                {r.reply ? <ReviewReply reply={r.reply} repliedAt={r.repliedAt} /> : null}
                {replyFrom && !r.reply ? <ReplyForm reviewId={r.id} back={`${replyFrom}${page > 1 ? `?reviews=${page}` : ""}#review-${r.id}`} /> : null}
              </div>
              <time dateTime={new Date(r.createdAt).toISOString()}>
                {date(r.createdAt)}
                {r.editedAt ? <> · {t("orders.reviewReplies.edited")}</> : null}
              </time>
            </li>
          ))}
        </ul>
      ) : (
        <p>{t("catalog.reviews.none")}</p>
      )}
      <nav className="pager" aria-label={t("catalog.reviews.pages")}>
        {page > 1 ? <Link to={`?reviews=${page - 1}#reviews`}>{t("catalog.reviews.newer")}</Link> : null}
        {hasMore ? <Link to={`?reviews=${page + 1}#reviews`}>{t("catalog.reviews.older")}</Link> : null}
      </nav>
    </>
  );
}

/** The `?reviews=N` page number, 1 when absent or not a sensible number. */
export function reviewPageOf(request: Request) {
  const n = Number(new URL(request.url).searchParams.get("reviews") ?? "1");
  return Number.isInteger(n) && n >= 1 && n <= 1000 ? n : 1;
}
