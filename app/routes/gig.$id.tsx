import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { isRouteErrorResponse, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import type { loader as rootLoader } from "~/root";
import { ReviewList, reviewPageOf, Stars } from "~/components/reviews";
import { getGigPage, getGigPageWithReviews } from "~/models/gig.server";
import { getUser } from "~/server/auth.server";
import { isGigSaved } from "~/models/saved.server";
import { SaveButton } from "~/components/save-button";
import { getDb } from "~/server/db.server";
import { imageUrl } from "~/utils/media";
import { GigPlaceholder } from "~/components/gig-card";
import { ResponsiveImage, StoredImage, useDataSaver } from "~/components/data-saver";
import { PackagePanel } from "~/components/gig-packages";
import { SellerCard } from "~/components/seller-card";
import { readFormData } from "~/server/form-data.server";
import { ONE_DECIMAL, sayLevel } from "~/domain/catalog-vocabulary";
import { usePreferences } from "~/hooks/use-preferences";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { metaI18n, T, useT } from "~/i18n/react";
import { useCategoryWords } from "~/hooks/use-category-words";

export const meta: MetaFunction<typeof loader> = ({ data, matches, error }) => {
  if (!data) {
    // Thrown responses carry their title in the reader's language: the page's messages never arrived.
    return [{ title: isRouteErrorResponse(error) && typeof error.data === "string" && error.data ? error.data : "404 | Soko" }];
  }
  const { _ } = metaI18n(matches);
  return [{ title: _("catalog.meta.named", { name: data.gig.title }) }, { name: "description", content: data.gig.description.slice(0, 160) }];
};

/** A 404 whose text is the not-found page's title, in the reader's language (the meta above shows it). */
async function notFound(request: Request) {
  const t = await requestT(request);
  return new Response(t("catalog.notFound.title"), { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await getUser(request);
  const db = getDb();
  const page = reviewPageOf(request);
  const found = await getGigPageWithReviews(db, Number(params.id), user, page);
  if (!found) throw await notFound(request);
  const { gig, reviews, hasMore } = found;
  const own = user?.id === gig.seller.id;
  // The member's heart from their own rows (ADR 052); null for a visitor (a sign-in link), whose page may be cached.
  const saved = user && !own ? await isGigSaved(db, user.id, gig.id) : null;
  return { gig, own, saved, reviews, hasMore, page, ...(await pageMessages(request, ["catalog", "orders.reviewReplies"])) };
}

/**
 * Continue (with a package) and Contact Seller. Both need a signed-in buyer: an anonymous visitor signs in
 * and then lands where the button was taking them.
 */
export async function action({ request, params }: ActionFunctionArgs) {
  const user = await getUser(request);
  const gig = await getGigPage(getDb(), Number(params.id), user);
  if (!gig || gig.status !== "published") throw await notFound(request);
  const form = await readFormData(request);
  const intent = form.get("intent");
  const tier = form.get("package");
  let destination: string;
  if (intent === "continue" && typeof tier === "string" && gig.packages.some((p) => p.tier === tier)) {
    destination = `/gig/${gig.id}/order?package=${tier}`;
  } else if (intent === "contact") {
    destination = `/messages?to=${encodeURIComponent(gig.seller.username)}&gig=${gig.id}`;
  } else {
    throw new Response((await requestT(request))("catalog.gig.choosePackage"), { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  if (!user) return redirect(`/login?redirectTo=${encodeURIComponent(destination)}`);
  if (user.id === gig.seller.id) return redirect(`/gig/${gig.id}`);
  return redirect(destination);
}

/** The cover's drawn width: the page's column on a phone, beside the 22rem packages from 56em (app.css). */
const GIG_COVER_SIZES = "(min-width: 72rem) 45rem, (min-width: 56em) calc(100vw - 26.5rem), 100vw";

export default function GigDetail() {
  const { gig, own, saved, reviews, hasMore, page } = useLoaderData<typeof loader>();
  const signedIn = Boolean(useRouteLoaderData<typeof rootLoader>("root")?.user);
  const { t } = useT();
  const saver = useDataSaver();
  const { number } = usePreferences();
  const { categoryName } = useCategoryWords();
  const buyable = !own && gig.status === "published";
  const [cover, ...more] = gig.images;
  return (
    <article className="container gig-page" aria-labelledby="gig-title">
      {gig.status !== "published" ? (
        <p className="notice" role="status">
          {gig.status === "draft" ? t("catalog.gig.draft") : t("catalog.gig.paused")} <Link to={`/gig/${gig.id}/edit`}>{t("catalog.gig.edit")}</Link>
        </p>
      ) : null}
      {/* Phones: title, packages, the rest. Wide screens: the packages beside the rest, in view while it scrolls. */}
      <div className="gig-layout">
        <header className="gig-head">
          <p className="breadcrumbs">
            <Link to="/browse">{t("catalog.gig.browse")}</Link> ›{" "}
            <Link to={`/browse?category=${gig.category.slug}`}>{categoryName(gig.category.slug, gig.category.name)}</Link>
          </p>
          <h1 id="gig-title">{gig.title}</h1>
          {own || gig.status !== "published" ? null : <SaveButton kind="gig" id={gig.id} name={gig.title} saved={saved} />}
          <p className="gig-seller-line">
            <T id="catalog.shared.by" values={{ name: gig.seller.name }} components={{ 0: <Link to={`/user/${encodeURIComponent(gig.seller.username)}`} /> }} />
            {gig.seller.level ? <> · {sayLevel(t, gig.seller.level)}</> : null}
            {" · "}
            {gig.reviewsCount > 0 ? (
              <>
                <Stars rating={gig.rating} /> {t("catalog.shared.ratingReviews", { rating: number(gig.rating, ONE_DECIMAL), count: gig.reviewsCount })}
              </>
            ) : (
              t("catalog.shared.new")
            )}
            {own ? (
              <>
                {" · "}
                <Link to={`/gig/${gig.id}/edit`}>{t("catalog.gig.editYours")}</Link>
              </>
            ) : null}
          </p>
        </header>

        <aside className="gig-buy" aria-labelledby="packages">
          <h2 id="packages" className="visually-hidden">
            {t("catalog.gig.packages")}
          </h2>
          <PackagePanel packages={gig.packages} buyable={buyable} />
        </aside>

        <div className="gig-main">
          {cover ? (
            <figure className="gig-gallery">
              <StoredImage
                imageKey={cover}
                largest="large"
                lazy={false}
                sizes={GIG_COVER_SIZES}
                alt={t("catalog.gig.image", { title: gig.title, n: 1 })}
                width={1280}
                height={720}
              />
              {more.length ? (
                <ul aria-label={t("catalog.gig.moreImages")}>
                  {more.map((key, i) => (
                    <li key={key}>
                      {saver ? (
                        <StoredImage imageKey={key} sizes="160px" alt={t("catalog.gig.image", { title: gig.title, n: i + 2 })} width={160} height={90} />
                      ) : (
                        <a href={imageUrl(key, "large")}>
                          <ResponsiveImage imageKey={key} sizes="160px" alt={t("catalog.gig.image", { title: gig.title, n: i + 2 })} width={160} height={90} />
                        </a>
                      )}
                    </li>
                  ))}
                </ul>
              ) : null}
            </figure>
          ) : (
            <GigPlaceholder slug={gig.category.slug} name={gig.category.name} cover />
          )}

          <h2>{t("catalog.gig.about")}</h2>
          {/* Text, never markup: React escapes it; line breaks are kept by CSS. */}
          <div className="gig-description">{gig.description}</div>
          {gig.tags.length ? (
            <ul className="tag-list" aria-label={t("catalog.gig.tags")}>
              {gig.tags.map((tag) => (
                <li key={tag}>{tag}</li>
              ))}
            </ul>
          ) : null}

          <SellerCard gigId={gig.id} seller={gig.seller} contact={buyable ? (signedIn ? "member" : "visitor") : null} />

          <ReviewList reviews={reviews} page={page} hasMore={hasMore} showGig={false} replyFrom={own ? `/gig/${gig.id}` : null} />
        </div>
      </div>
    </article>
  );
}
