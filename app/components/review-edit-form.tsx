/**
 * Its author changes a review's stars and words (within REVIEW_EDIT_DAYS), on /reviews/:id: a plain form, as
 * review-replies.tsx's. Its words are the review form's (`orders.steps.review`) and `orders.reviewReplies`.
 */
import { Form } from "@remix-run/react";
import { ErrorList } from "~/components/forms";
import { ReviewButton, TEXT_MAX } from "~/components/review-replies";
import { RATING_MAX, RATING_MIN } from "~/domain/review-rules";
import { useT } from "~/i18n/react";

export function ReviewEditForm({
  review,
  back,
  errors,
}: {
  review: { id: number; rating: number; comment: string };
  back: string;
  errors?: Record<string, string[] | null | undefined>;
}) {
  const { t } = useT();
  const stars = Array.from({ length: RATING_MAX - RATING_MIN + 1 }, (_, i) => RATING_MAX - i);
  return (
    <Form method="post" action={`/reviews/${review.id}`} className="form-card">
      <input type="hidden" name="back" value={back} />
      <fieldset className="field rating-field" aria-describedby={errors?.rating ? "edit-rating-error" : undefined}>
        <legend>{t("orders.steps.review.rating")}</legend>
        {stars.map((n) => (
          <div className="checkbox" key={n}>
            <input type="radio" id={`edit-rating-${n}`} name="rating" value={n} required={n === RATING_MAX} defaultChecked={review.rating === n} />
            <label htmlFor={`edit-rating-${n}`}>{t("orders.steps.review.stars", { count: n })}</label>
          </div>
        ))}
        <ErrorList id="edit-rating-error" errors={errors?.rating ?? undefined} />
      </fieldset>
      <div className="field">
        <label htmlFor="edit-comment">{t("orders.reviewReplies.comment")}</label>
        <textarea
          id="edit-comment"
          name="comment"
          rows={4}
          maxLength={TEXT_MAX}
          defaultValue={review.comment}
          aria-describedby={errors?.comment ? "edit-comment-error" : undefined}
          aria-invalid={errors?.comment ? true : undefined}
        />
        <ErrorList id="edit-comment-error" errors={errors?.comment ?? undefined} />
      </div>
      <ReviewButton reviewId={review.id} intent="edit" pendingLabel={t("orders.reviewReplies.saving")}>
        {t("orders.reviewReplies.save")}
      </ReviewButton>
    </Form>
  );
}
