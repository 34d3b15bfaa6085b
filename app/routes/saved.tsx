import { data, redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { z } from "zod";
import { GigCard } from "~/components/gig-card";
import { Link } from "~/components/link";
import { FreelancerCard } from "~/components/freelancer-card";
import { messageOf } from "~/content/operation-messages";
import { requestLocale } from "~/i18n/locale.server";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { metaI18n, useT } from "~/i18n/react";
import { listSavedGigs, listSavedSellers, SAVED_PAGE_SIZE, savedCounts } from "~/models/saved.server";
import { setSaved } from "~/operations/saved.server";
import { SaveFormSchema } from "~/schemas/saved";
import { getActor, requireUser, safeRedirect } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { readFormData } from "~/server/form-data.server";
import { failureStatus } from "~/server/operation-results.server";
import directoryStylesUrl from "~/styles/directory.css?url";

export { actionHeaders as headers } from "~/utils/headers";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: directoryStylesUrl }];

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("catalog.saved.metaTitle") }];
};

const TABS = ["gigs", "sellers"] as const;
type Tab = (typeof TABS)[number];

const PageSchema = z.object({
  tab: z.enum(TABS).catch("gigs"),
  page: z.coerce.number().int().min(1).max(10_000).default(1),
});

const plain = (status: number, text: string) => new Response(text, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });

/** The member's saved gigs or sellers (`?tab=`), newest first, a page at a time (`?page=`). */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const params = new URL(request.url).searchParams;
  const parsed = PageSchema.safeParse({ tab: params.get("tab") ?? undefined, page: params.get("page") || undefined });
  if (!parsed.success) throw plain(400, (await requestT(request))("catalog.saved.noSuchPage"));
  const { tab, page } = parsed.data;
  const db = getDb();
  const [counts, gigs, sellers] = await Promise.all([
    savedCounts(db, user.id),
    tab === "gigs" ? listSavedGigs(db, user.id, page) : Promise.resolve([]),
    tab === "sellers" ? listSavedSellers(db, user.id, page) : Promise.resolve([]),
  ]);
  const total = tab === "gigs" ? counts.gigs : counts.sellers;
  return { tab, page, counts, gigs, sellers, hasMore: page * SAVED_PAGE_SIZE < total, ...(await pageMessages(request, ["catalog"])) };
}

/**
 * The heart's form from any page (app/components/save-button.tsx): save or unsave, through the saved operation.
 * Without JavaScript the answer sends the browser back to the page the heart was on; with it (`inPlace`) the
 * page stays and its loaders reload. A visitor is sent to sign in, and back to that page.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readFormData(request);
  const parsed = SaveFormSchema.safeParse(Object.fromEntries(form));
  if (!parsed.success) throw plain(400, (await requestT(request))("catalog.saved.couldNotDo"));
  const { intent, kind, id, redirectTo, inPlace } = parsed.data;
  const back = safeRedirect(redirectTo, "/saved");
  const actor = await getActor(request, context.clientIp);
  if (actor.kind !== "member") return redirect(`/login?redirectTo=${encodeURIComponent(back)}`, 303);
  const result = await setSaved(actor, { kind, id, saved: intent === "save" });
  if (!result.ok) {
    const headers: Record<string, string> = { "Content-Type": "text/plain; charset=utf-8" };
    if (result.error === "limited") headers["Retry-After"] = String(result.retryAfter);
    const words = result.error === "invalid" ? (await requestT(request))("catalog.saved.couldNotDo") : messageOf(result, await requestLocale(request));
    throw new Response(words, { status: failureStatus(result), headers });
  }
  if (inPlace) return data({ ok: true, saved: result.value.saved });
  return redirect(back, 303);
}

const TAB_LABEL: Record<Tab, string> = { gigs: "catalog.saved.tab.gigs", sellers: "catalog.saved.tab.sellers" };

export default function Saved() {
  const { tab, page, counts, gigs, sellers, hasMore } = useLoaderData<typeof loader>();
  const { t } = useT();
  const empty = tab === "gigs" ? !gigs.length : !sellers.length;
  return (
    <section className="container saved-page" aria-labelledby="saved-title">
      <h1 id="saved-title">{t("catalog.saved.title")}</h1>
      <nav aria-label={t("catalog.saved.tabs")}>
        <ul className="tabs">
          {TABS.map((name) => (
            <li key={name}>
              <Link to={`/saved?tab=${name}`} aria-current={name === tab ? "page" : undefined} preventScrollReset>
                {t(TAB_LABEL[name])} <span className="tab-count">({counts[name]})</span>
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {empty ? (
        <div className="empty-state">
          <p>{page > 1 ? t("catalog.saved.emptyPage") : tab === "gigs" ? t("catalog.saved.emptyGigs") : t("catalog.saved.emptySellers")}</p>
          <Link to={tab === "gigs" ? "/browse" : "/freelancers"} className="button">
            {tab === "gigs" ? t("catalog.saved.browseGigs") : t("catalog.saved.findFreelancers")}
          </Link>
        </div>
      ) : tab === "gigs" ? (
        <ul className="card-grid gig-grid" aria-label={t("catalog.saved.tab.gigs")}>
          {gigs.map((g) => (
            <li key={g.id}>
              <GigCard gig={g} saved />
            </li>
          ))}
        </ul>
      ) : (
        <ul className="freelancer-list" aria-label={t("catalog.saved.tab.sellers")}>
          {sellers.map((s) => (
            <li key={s.id}>
              <FreelancerCard freelancer={s} saved />
            </li>
          ))}
        </ul>
      )}
      {page > 1 || hasMore ? (
        <nav className="pager" aria-label={t("catalog.saved.pages")}>
          {page > 1 ? (
            <Link to={`/saved?tab=${tab}&page=${page - 1}`} rel="prev">
              {t("catalog.saved.previous")}
            </Link>
          ) : null}
          {hasMore ? (
            <Link to={`/saved?tab=${tab}&page=${page + 1}`} rel="next">
              {t("catalog.saved.next")}
            </Link>
          ) : null}
        </nav>
      ) : null}
    </section>
  );
}
