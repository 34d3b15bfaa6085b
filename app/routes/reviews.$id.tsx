/**
 * A review, for the two members it concerns (ADR 053): its author changes or deletes it within
 * REVIEW_EDIT_DAYS, the gig's seller answers it once. The forms on the gig page, the profile and the order
 * page post here with their `intent` and the page to return to (`back`), which a success redirects to; a
 * refusal shows here, beside the form, JavaScript or not. Anyone else, and a review that is gone, meet a 404.
 */
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { ErrorList } from "~/components/forms";
import { Link } from "~/components/link";
import { ReviewEditForm } from "~/components/review-edit-form";
import { ReplyForm, ReviewDeleteForm, ReviewReply } from "~/components/review-replies";
import { usePreferences } from "~/hooks/use-preferences";
import { requestLocale } from "~/i18n/locale.server";
import { pageMessages } from "~/i18n/messages.server";
import { metaI18n, useT } from "~/i18n/react";
import { partyReview } from "~/models/review.server";
import { replyToReview } from "~/operations/review-replies.server";
import { deleteReview, updateReview } from "~/operations/reviews.server";
import { REVIEW_EDIT_DAYS, ReviewEditSchema, ReviewReplySchema, ReviewIdSchema } from "~/schemas/review";
import { requireMemberActor, requireUser, safeRedirect } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { readFormData } from "~/server/form-data.server";
import { formFailure } from "~/server/operation-results.server";

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: data ? _("orders.reviewReplies.metaTitle", { title: data.review.gigTitle }) : "404 | Soko" }, { name: "robots", content: "noindex" }];
};

const INTENTS = ["reply", "edit", "delete"] as const;
type Intent = (typeof INTENTS)[number];

const notFound = () => new Response("Not Found", { status: 404 });

/** The review, for its author or its gig's seller; a 404 for anyone else. */
async function reviewFor(id: string | undefined, userId: number) {
  const reviewId = Number(id);
  const review = Number.isSafeInteger(reviewId) && reviewId > 0 ? await partyReview(getDb(), { id: reviewId }, REVIEW_EDIT_DAYS) : null;
  if (!review || (review.reviewerId !== userId && review.sellerId !== userId)) throw notFound();
  return { review, role: review.reviewerId === userId ? ("author" as const) : ("seller" as const) };
}

/** Where to go back to: the page the form was on, else the order's page (author) or the gig's. */
function backOf(value: FormDataEntryValue | string | null, review: { orderId: number | null; gigId: number }, role: "author" | "seller") {
  return safeRedirect(value, role === "author" && review.orderId !== null ? `/orders/${review.orderId}` : `/gig/${review.gigId}#reviews`);
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const { review, role } = await reviewFor(params.id, user.id);
  const back = backOf(new URL(request.url).searchParams.get("back"), review, role);
  const { reviewerId: _r, sellerId: _s, ...shown } = review;
  return {
    role,
    back,
    days: REVIEW_EDIT_DAYS,
    // The reason an admin gave is its author's to read.
    review: { ...shown, hidden: shown.hidden && (role === "author" ? shown.hidden : { at: shown.hidden.at, reason: "" }) },
    ...(await pageMessages(request, ["orders.reviewReplies", "orders.steps.review", "orders.review"])),
  };
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  const actor = await requireMemberActor(request, context.clientIp);
  const { review, role } = await reviewFor(params.id, actor.user.id);
  const form = await readFormData(request);
  const intent = form.get("intent");
  if (!(INTENTS as readonly unknown[]).includes(intent)) return data({ intent: null, errors: { "": ["orders.reviewReplies.chooseIntent"] } }, { status: 400 });
  form.set("reviewId", String(review.id));
  const back = backOf(form.get("back"), review, role);
  const locale = await requestLocale(request);
  if (intent === "delete") {
    const result = await deleteReview(actor, { reviewId: review.id });
    if (result.ok) return redirect(back, 303);
    const refused = formFailure(parseWithZod(form, { schema: ReviewIdSchema }).reply, result, { locale });
    return data({ intent: "delete" as Intent, errors: refused.data.error ?? {} }, refused.init ?? undefined);
  }
  const submission = intent === "reply" ? parseWithZod(form, { schema: ReviewReplySchema }) : parseWithZod(form, { schema: ReviewEditSchema });
  if (submission.status !== "success") return data({ intent: intent as Intent, errors: submission.reply().error ?? {} }, { status: 400 });
  const value = submission.value;
  const result = "reply" in value ? await replyToReview(actor, value) : await updateReview(actor, value);
  if (result.ok) return redirect(back, 303);
  const refused = formFailure(submission.reply, result, { locale });
  return data({ intent: intent as Intent, errors: refused.data.error ?? {} }, refused.init ?? undefined);
}

export default function ReviewPage() {
  const { review, role, back, days } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useT();
  const { date, dateTime } = usePreferences();
  const errors = (answer?.errors ?? {}) as Record<string, string[] | null | undefined>;
  const errorsOf = (intent: Intent) => (answer?.intent === intent ? errors : {});
  const author = role === "author";
  return (
    <article className="container narrow" aria-labelledby="review-title">
      <p className="breadcrumbs">
        <Link to={back}>{t("orders.reviewReplies.back")}</Link>
      </p>
      <h1 id="review-title">{t("orders.reviewReplies.heading", { title: review.gigTitle })}</h1>
      <ErrorList id="review-errors" errors={errors[""] ?? undefined} />
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
        <>
          <p className="field-hint">{t("orders.reviewReplies.changeUntil", { until: dateTime(review.editableUntil) })}</p>
          {review.hidden ? null : (
            <>
              <h2>{t("orders.reviewReplies.changeHeading")}</h2>
              <ReviewEditForm review={review} back={back} errors={errorsOf("edit")} />
            </>
          )}
          <h2>{t("orders.reviewReplies.deleteHeading")}</h2>
          <ReviewDeleteForm reviewId={review.id} back={back} />
        </>
      ) : null}
      {author && !review.open ? <p>{t("orders.reviewReplies.windowClosed", { days })}</p> : null}
      {!author && !review.reply && !review.hidden ? <ReplyForm reviewId={review.id} back={back} errors={errorsOf("reply").reply ?? undefined} /> : null}
    </article>
  );
}
