/**
 * The order's review on the order's page: to its author (the buyer) marked hidden with the admin's
 * reason if it was hidden, with a link to change it and a delete button while they may (REVIEW_EDIT_DAYS); to the
 * seller with the reply form while there is no reply. Words: `orders.reviewReplies`.
 */
import { Link } from "~/components/link";
import { ReplyForm, ReviewDeleteForm, ReviewReply } from "~/components/review-replies";
import { usePreferences } from "~/hooks/use-preferences";
import { useT } from "~/i18n/react";

/** An order's review as one of its parties sees it (app/models/review.server.ts' OrderReview, as the loader sends it). */
export type OrderReviewView = {
  id: number;
  rating: number;
  comment: string;
  createdAt: Date | string;
  reply: string | null;
  repliedAt: Date | string | null;
  editedAt: Date | string | null;
  hidden: { at: Date | string; reason: string } | null;
  editableUntil: Date | string;
  open: boolean;
};

export function OrderReview({ review, role, orderId }: { review: OrderReviewView; role: "buyer" | "seller"; orderId: number }) {
  const { t } = useT();
  const { date, dateTime } = usePreferences();
  const back = `/orders/${orderId}#order-review`;
  const author = role === "buyer";
  return (
    <section className="order-step order-review" id="order-review" aria-labelledby="order-review-title">
      <h2 id="order-review-title">{author ? t("orders.reviewReplies.yourReview") : t("orders.reviewReplies.buyersReview")}</h2>
      {review.hidden ? (
        <p className="notice" role="status">
          {author ? t("orders.reviewReplies.hiddenForAuthor", { reason: review.hidden.reason }) : t("orders.reviewReplies.hiddenForSeller")}
        </p>
      ) : null}
      <p>
        <strong>{t("orders.reviewReplies.stars", { count: review.rating })}</strong>{" "}
        <time dateTime={new Date(review.createdAt).toISOString()}>{date(review.createdAt)}</time>
        {review.editedAt ? <> · {t("orders.reviewReplies.edited")}</> : null}
      </p>
      {review.comment ? <p className="pre-wrap">{review.comment}</p> : null}
      {review.reply ? <ReviewReply reply={review.reply} repliedAt={review.repliedAt} /> : null}
      {author && review.open ? (
        <div className="order-actions">
          <p className="field-hint">{t("orders.reviewReplies.changeUntil", { until: dateTime(review.editableUntil) })}</p>
          {/* A hidden review may still be deleted by its author, not changed back onto the pages. */}
          {review.hidden ? null : (
            <Link to={`/reviews/${review.id}?back=${encodeURIComponent(back)}`} className="button button-small button-secondary">
              {t("orders.reviewReplies.change")}
            </Link>
          )}
          <ReviewDeleteForm reviewId={review.id} back={back} />
        </div>
      ) : null}
      {!author && !review.reply && !review.hidden ? <ReplyForm reviewId={review.id} back={back} /> : null}
    </section>
  );
}
