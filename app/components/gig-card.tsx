import { Link } from "~/components/link";
import type { GigCard as GigCardData } from "~/models/gig.server";
import { imageUrl } from "~/utils/media";
import { usePreferences } from "~/hooks/use-preferences";
import { categoryInitials } from "~/domain/catalog-vocabulary";

/**
 * What a gig without images shows instead of a cover (cards and the gig page): the category's initials in a
 * badge on its tinted, patterned box, all CSS. Never the title: the card or page shows that right beside it.
 */
export function GigPlaceholder({ slug, name, cover = false }: { slug: string; name: string; cover?: boolean }) {
  return (
    <div className={`gig-thumb gig-ph cat-${slug}${cover ? " gig-cover" : ""}`} aria-hidden="true">
      <span>{categoryInitials(name)}</span>
    </div>
  );
}

/** One gig in a grid: landing page Featured Services, and later browse, search and seller profiles. */
export function GigCard({ gig, headingLevel = 3 }: { gig: GigCardData; headingLevel?: 2 | 3 | 4 }) {
  const Heading = `h${headingLevel}` as const;
  const { price } = usePreferences();
  const rating = gig.rating.toFixed(1);
  const reviews = `${gig.reviewsCount} ${gig.reviewsCount === 1 ? "review" : "reviews"}`;
  return (
    <article className="gig-card">
      {gig.imageKey ? (
        <img className="gig-thumb" src={imageUrl(gig.imageKey, "thumb")} alt="" loading="lazy" width={320} height={180} />
      ) : (
        <GigPlaceholder slug={gig.categorySlug} name={gig.categoryName} />
      )}
      <div className="gig-body">
        <p className="gig-category">{gig.categoryName}</p>
        <Heading className="gig-title">
          <Link to={`/gig/${gig.id}`}>{gig.title}</Link>
        </Heading>
        <p className="gig-seller">
          by <Link to={`/user/${encodeURIComponent(gig.sellerUsername)}`}>{gig.sellerName}</Link>
        </p>
        <p className="gig-meta">
          {gig.reviewsCount > 0 ? (
            <span className="gig-rating">
              <span aria-hidden="true">
                <span className="star">★</span> {rating} <span className="gig-reviews">({gig.reviewsCount})</span>
              </span>
              <span className="visually-hidden">
                Rated {rating} out of 5 from {reviews}
              </span>
            </span>
          ) : (
            <span className="gig-rating gig-new">New</span>
          )}
          <span className="gig-price">
            <span className="gig-price-label">From</span> <strong>{price(gig.startingPriceUgx)}</strong>
          </span>
        </p>
      </div>
    </article>
  );
}
