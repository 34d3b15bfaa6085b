/**
 * A review's reply, and the forms that answer or delete a review (ADR 053): the gig's seller's one reply,
 * its author's delete (within REVIEW_EDIT_DAYS; the change form is review-edit-form.tsx), each a plain form posting to `/reviews/:id`
 * (app/routes/reviews.$id.tsx) with its `intent` and the page to come back to, so it works without
 * JavaScript and, with it, in place with a pending label. Words: `orders.reviewReplies`.
 */
import { Form, useNavigation } from "@remix-run/react";
import type { ReactNode } from "react";
import { ErrorList } from "~/components/forms";
import { usePreferences } from "~/hooks/use-preferences";
import { useT } from "~/i18n/react";

/** The longest reply or comment (the schema's REPLY_MAX and COMMENT_MAX; the schema module stays out of the page's first code). */
export const TEXT_MAX = 2000;

/** Whether this form of this review is being sent now. */
function usePending(reviewId: number, intent: string) {
  const navigation = useNavigation();
  return navigation.state === "submitting" && navigation.formAction?.split("?")[0] === `/reviews/${reviewId}` && navigation.formData?.get("intent") === intent;
}

export function ReviewButton({
  reviewId,
  intent,
  pendingLabel,
  children,
  danger,
}: {
  reviewId: number;
  intent: string;
  pendingLabel: string;
  children: ReactNode;
  danger?: boolean;
}) {
  const pending = usePending(reviewId, intent);
  return (
    <button
      type="submit"
      name="intent"
      value={intent}
      className={`button button-small${danger ? " button-danger" : ""}`}
      disabled={pending}
      aria-disabled={pending}
    >
      {pending ? pendingLabel : children}
    </button>
  );
}

/** The seller's reply under a review. */
export function ReviewReply({ reply, repliedAt }: { reply: string; repliedAt: Date | string | null }) {
  const { t } = useT();
  const { date } = usePreferences();
  return (
    <div className="review-reply">
      <p className="review-reply-head">
        <strong>{t("orders.reviewReplies.sellerReplied")}</strong>
        {repliedAt ? (
          <>
            {" "}
            <time dateTime={new Date(repliedAt).toISOString()}>{date(repliedAt)}</time>
          </>
        ) : null}
      </p>
      <p className="pre-wrap">{reply}</p>
    </div>
  );
}

/** The seller's reply form under a review of their gig; `back` is where to return after it. */
export function ReplyForm({ reviewId, back, errors }: { reviewId: number; back: string; errors?: string[] }) {
  const { t } = useT();
  const id = `reply-${reviewId}`;
  return (
    <Form method="post" action={`/reviews/${reviewId}`} className="review-reply-form">
      <input type="hidden" name="back" value={back} />
      <div className="field">
        <label htmlFor={id}>{t("orders.reviewReplies.replyLabel")}</label>
        <p className="field-hint" id={`${id}-hint`}>
          {t("orders.reviewReplies.replyHint")}
        </p>
        <textarea
          id={id}
          name="reply"
          rows={3}
          required
          maxLength={TEXT_MAX}
          aria-describedby={errors?.length ? `${id}-error ${id}-hint` : `${id}-hint`}
          aria-invalid={errors?.length ? true : undefined}
        />
        <ErrorList id={`${id}-error`} errors={errors} />
      </div>
      <ReviewButton reviewId={reviewId} intent="reply" pendingLabel={t("orders.reviewReplies.replying")}>
        {t("orders.reviewReplies.reply")}
      </ReviewButton>
    </Form>
  );
}

/** Its author deletes a review. */
export function ReviewDeleteForm({ reviewId, back }: { reviewId: number; back: string }) {
  const { t } = useT();
  return (
    <Form method="post" action={`/reviews/${reviewId}`} className="inline-form">
      <input type="hidden" name="back" value={back} />
      <ReviewButton reviewId={reviewId} intent="delete" pendingLabel={t("orders.reviewReplies.deleting")} danger>
        {t("orders.reviewReplies.delete")}
      </ReviewButton>
    </Form>
  );
}
