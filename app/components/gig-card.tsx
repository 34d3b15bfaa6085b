import { Link } from "~/components/link";
import type { GigCard as GigCardData } from "~/models/gig.server";
import { StoredImage } from "~/components/data-saver";
import { usePreferences } from "~/hooks/use-preferences";
import { categoryInitials, ONE_DECIMAL } from "~/domain/catalog-vocabulary";
import { T, useT } from "~/i18n/react";
import { useCategoryWords } from "~/hooks/use-category-words";
import { useRouteLoaderData } from "@remix-run/react";
import { SaveButton } from "~/components/save-button";
import type { loader as rootLoader } from "~/root";

/**
 * What a gig without images shows instead of a cover (cards and the gig page): the category's initials in a
 * badge on its tinted, patterned box, all CSS. `name` is the category's English name (the row's own), so the
 * badge looks the same in every language. Never the title: the card or page shows that right beside it.
 */
export function GigPlaceholder({ slug, name, cover = false }: { slug: string; name: string; cover?: boolean }) {
  return (
    <div className={`gig-thumb gig-ph cat-${slug}${cover ? " gig-cover" : ""}`} aria-hidden="true">
      <span>{categoryInitials(name)}</span>
    </div>
  );
}

/** How wide a card's cover is drawn: one card a row on a phone, two from 30em, four from 48em (app.css). */
const GIG_CARD_SIZES = "(min-width: 72rem) 17rem, (min-width: 48em) 24vw, (min-width: 30em) 50vw, 100vw";

/**
 * One gig in a grid: landing page Featured Services, browse, search, seller profiles and /saved. `saved`: whether
 * the signed-in member saved it, from their own rows (its heart); a visitor's heart asks them to sign in; no heart
 * on the member's own gig, or where the page did not say.
 */
export function GigCard({ gig, headingLevel = 3, saved }: { gig: GigCardData; headingLevel?: 2 | 3 | 4; saved?: boolean }) {
  const viewer = useRouteLoaderData<typeof rootLoader>("root")?.user ?? null;
  const heart = !viewer ? null : viewer.username === gig.sellerUsername ? undefined : saved;
  const Heading = `h${headingLevel}` as const;
  const { price, number } = usePreferences();
  const { t } = useT();
  const { categoryName } = useCategoryWords();
  const rating = number(gig.rating, ONE_DECIMAL);
  return (
    <article className="gig-card">
      {gig.imageKey ? (
        <StoredImage className="gig-thumb" imageKey={gig.imageKey} alt="" sizes={GIG_CARD_SIZES} width={320} height={180} />
      ) : (
        <GigPlaceholder slug={gig.categorySlug} name={gig.categoryName} />
      )}
      <div className="gig-body">
        <p className="gig-category">{categoryName(gig.categorySlug, gig.categoryName)}</p>
        <Heading className="gig-title">
          <Link to={`/gig/${gig.id}`}>{gig.title}</Link>
        </Heading>
        <p className="gig-seller">
          <T id="catalog.shared.by" values={{ name: gig.sellerName }} components={{ 0: <Link to={`/user/${encodeURIComponent(gig.sellerUsername)}`} /> }} />
        </p>
        <p className="gig-meta">
          {gig.reviewsCount > 0 ? (
            <span className="gig-rating">
              <span aria-hidden="true">
                <span className="star">★</span> {rating} <span className="gig-reviews">({number(gig.reviewsCount)})</span>
              </span>
              <span className="visually-hidden">{t("catalog.card.rated", { rating, count: gig.reviewsCount })}</span>
            </span>
          ) : (
            <span className="gig-rating gig-new">{t("catalog.shared.new")}</span>
          )}
          <span className="gig-price">
            <span className="gig-price-label">{t("catalog.card.from")}</span> <strong>{price(gig.startingPriceUgx)}</strong>
          </span>
        </p>
        {heart === undefined ? null : <SaveButton kind="gig" id={gig.id} name={gig.title} saved={heart} compact />}
      </div>
    </article>
  );
}
