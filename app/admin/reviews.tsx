import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { ErrorList, FormMessage } from "~/components/forms";
import { Link } from "~/components/link";
import { ReviewReply } from "~/components/review-replies";
import { usePreferences } from "~/hooks/use-preferences";
import { requestLocale } from "~/i18n/locale.server";
import { pageMessages } from "~/i18n/messages.server";
import { metaI18n, useT } from "~/i18n/react";
import { listReviewsForAdmin, type AdminReview } from "~/models/review.server";
import { hideReview, unhideReview } from "~/operations/review-replies.server";
import { HIDE_REASON_MAX, ReviewHideSchema, ReviewIdSchema, type ReviewHideInput } from "~/schemas/review";
import { adminScreenLoader } from "~/server/admin-area.server";
import { requireMemberActor } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { readFormData } from "~/server/form-data.server";
import { formFailure } from "~/server/operation-results.server";

/**
 * `/reviews` on the admin host, `/admin/reviews` on the main host (app/utils/site-routes.ts): reviews, newest
 * first (or only the hidden ones), found by words of the comment, the gig's title or a name; an admin hides one
 * that breaks the rules, with the reason its author reads, or shows a hidden one again
 * (app/operations/review-replies.server.ts: audited, ratings rolled up in the same transaction).
 */
export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("admin.reviews.title") }, { name: "robots", content: "noindex" }];
};

const INTENTS = ["hide", "unhide"] as const;

/** The list's search from the address: words, hidden only, page. */
function listOf(params: URLSearchParams) {
  const page = Number(params.get("page") ?? "1");
  return {
    q: (params.get("q") ?? "").trim().slice(0, 200),
    hiddenOnly: params.get("filter") === "hidden",
    page: Number.isInteger(page) && page >= 1 && page <= 1000 ? page : 1,
  };
}

export async function loader({ request }: LoaderFunctionArgs) {
  const { adminName } = await adminScreenLoader(request);
  const params = new URL(request.url).searchParams;
  const list = listOf(params);
  const { reviews, more } = await listReviewsForAdmin(getDb(), list);
  const done = params.get("done");
  return {
    adminName,
    list,
    reviews,
    more,
    reasonMax: HIDE_REASON_MAX,
    notice: done === "hide" ? "admin.reviews.doneHide" : done === "unhide" ? "admin.reviews.doneUnhide" : null,
    ...(await pageMessages(request, ["admin", "orders.reviewReplies", "orders.review"])),
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  // The screen's own rule first (admins only, as for GET), then the admin as the operation's actor.
  await adminScreenLoader(request);
  const actor = await requireMemberActor(request, context.clientIp);
  const form = await readFormData(request);
  const intent = String(form.get("intent") ?? "");
  const reviewId = Number(form.get("reviewId"));
  if (!(INTENTS as readonly string[]).includes(intent)) return data({ reviewId, errors: ["admin.reviews.chooseIntent"] }, { status: 400 });
  const submission = intent === "hide" ? parseWithZod(form, { schema: ReviewHideSchema }) : parseWithZod(form, { schema: ReviewIdSchema });
  if (submission.status !== "success") return data({ reviewId, errors: errorsOf(submission.reply().error) }, { status: 400 });
  const value = submission.value;
  const result = intent === "hide" ? await hideReview(actor, value as ReviewHideInput) : await unhideReview(actor, value);
  if (!result.ok) {
    const refused = formFailure(submission.reply, result, { locale: await requestLocale(request) });
    return data({ reviewId, errors: errorsOf(refused.data.error) }, refused.init ?? undefined);
  }
  const url = new URL(request.url);
  const back = new URLSearchParams(url.search);
  back.set("done", intent);
  return redirect(`${url.pathname}?${back}#admin-review-${value.reviewId}`, 303);
}

const errorsOf = (error: Record<string, string[] | null> | undefined) => Object.values(error ?? {}).flatMap((e) => e ?? []);

type Loaded = ReturnType<typeof useLoaderData<typeof loader>>;

/** A link to this screen with the list's search kept (relative: the screen lives under /admin on the main host). */
function listQuery(list: Loaded["list"], extra: Record<string, string> = {}) {
  const q = new URLSearchParams();
  if (list.q) q.set("q", list.q);
  if (list.hiddenOnly) q.set("filter", "hidden");
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : "?";
}

export default function AdminReviews() {
  const { list, reviews, more, notice, reasonMax } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useT();
  return (
    <section className="container admin-reviews" aria-labelledby="reviews-title">
      <h1 id="reviews-title">{t("admin.reviews.heading")}</h1>
      <FormMessage success={answer ? null : notice} />
      <Form method="get" className="monitor-search" role="search" aria-label={t("admin.reviews.searchLabel")}>
        <div className="field">
          <label htmlFor="reviews-q">{t("admin.reviews.search")}</label>
          <input id="reviews-q" type="search" name="q" defaultValue={list.q} maxLength={200} />
        </div>
        <div className="field">
          <label htmlFor="reviews-filter">{t("admin.reviews.show")}</label>
          <select id="reviews-filter" name="filter" defaultValue={list.hiddenOnly ? "hidden" : "all"}>
            <option value="all">{t("admin.reviews.showAll")}</option>
            <option value="hidden">{t("admin.reviews.showHidden")}</option>
          </select>
        </div>
        <button type="submit" className="button">
          {t("admin.reviews.search")}
        </button>
      </Form>
      {reviews.length === 0 ? (
        <p>{t("admin.reviews.none")}</p>
      ) : (
        <ul className="plain-list review-list" aria-label={t("admin.reviews.heading")}>
          {reviews.map((r) => (
            <AdminReviewItem key={r.id} list={list} review={r} reasonMax={reasonMax} errors={answer?.reviewId === r.id ? answer.errors : undefined} />
          ))}
        </ul>
      )}
      <nav className="monitor-pages" aria-label={t("admin.reviews.pages")}>
        {list.page > 1 ? <Link to={listQuery(list, { page: String(list.page - 1) })}>{t("admin.reviews.previousPage")}</Link> : null}
        {more ? <Link to={listQuery(list, { page: String(list.page + 1) })}>{t("admin.reviews.nextPage")}</Link> : null}
      </nav>
    </section>
  );
}

function AdminReviewItem({ list, review: r, reasonMax, errors }: { list: Loaded["list"]; review: AdminReview; reasonMax: number; errors?: string[] }) {
  const { t } = useT();
  const { dateTime } = usePreferences();
  const navigation = useNavigation();
  const pending = navigation.state === "submitting" && navigation.formData?.get("reviewId") === String(r.id);
  return (
    <li id={`admin-review-${r.id}`}>
      <p>
        <strong>{t("orders.reviewReplies.stars", { count: r.rating })}</strong> <strong>{r.reviewerName}</strong> ({r.reviewerEmail}) ·{" "}
        {t("admin.reviews.about", { gig: r.gigTitle, seller: r.sellerName })} ·{" "}
        <time dateTime={new Date(r.createdAt).toISOString()}>{dateTime(r.createdAt)}</time>
      </p>
      {r.comment ? <p className="pre-wrap">{r.comment}</p> : null}
      {r.reply ? <ReviewReply reply={r.reply} repliedAt={r.repliedAt} /> : null}
      <ErrorList errors={errors} />
      {r.hidden ? (
        <>
          <p className="notice">
            {t("admin.reviews.hiddenBy", { name: r.hidden.by ?? t("admin.reviews.someone"), at: dateTime(r.hidden.at), reason: r.hidden.reason })}
          </p>
          <Form method="post" action={listQuery(list, list.page > 1 ? { page: String(list.page) } : {})} className="inline-form">
            <input type="hidden" name="reviewId" value={r.id} />
            <button type="submit" name="intent" value="unhide" className="button button-secondary" disabled={pending} aria-disabled={pending}>
              {pending ? t("admin.reviews.unhiding") : t("admin.reviews.unhide")}
            </button>
          </Form>
        </>
      ) : (
        <Form method="post" action={listQuery(list, list.page > 1 ? { page: String(list.page) } : {})} className="review-hide-form">
          <input type="hidden" name="reviewId" value={r.id} />
          <div className="field">
            <label htmlFor={`hide-reason-${r.id}`}>{t("admin.reviews.reason")}</label>
            <input id={`hide-reason-${r.id}`} type="text" name="reason" required maxLength={reasonMax} />
          </div>
          <button type="submit" name="intent" value="hide" className="button button-danger" disabled={pending} aria-disabled={pending}>
            {pending ? t("admin.reviews.hiding") : t("admin.reviews.hide")}
          </button>
        </Form>
      )}
    </li>
  );
}
