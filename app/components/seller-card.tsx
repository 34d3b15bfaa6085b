import { Form } from "@remix-run/react";
import { Link } from "~/components/link";
import { SubmitButton } from "~/components/forms";
import { Stars } from "~/components/reviews";
import { SellerFacts } from "~/components/seller-facts";
import { TrustBadges } from "~/components/trust-badges";
import type { GigPage } from "~/models/gig.server";
import { MemberAvatar } from "~/components/data-saver";
import { ONE_DECIMAL, sayLevel } from "~/domain/catalog-vocabulary";
import { usePreferences } from "~/hooks/use-preferences";
import { dateTimeFormat } from "~/i18n/format";
import { useT } from "~/i18n/react";

/** "Dec 2026", in the reader's language. */
const MEMBER_SINCE: Intl.DateTimeFormatOptions = { month: "short", year: "numeric", timeZone: "Africa/Kampala" };

/**
 * "About the seller" on a gig page: who they are and how they work, from their profile, and Contact Seller.
 * `contact` is "member" (start or open the conversation), "visitor" (sign in first) or null (none: the seller's
 * own gig, or one buyers cannot see).
 */
export function SellerCard({ gigId, seller, contact }: { gigId: number; seller: GigPage["seller"]; contact: "member" | "visitor" | null }) {
  const profile = `/user/${encodeURIComponent(seller.username)}`;
  const { t, locale } = useT();
  const { number } = usePreferences();
  return (
    <section className="seller-card" aria-labelledby="seller-title">
      <h2 id="seller-title">{t("catalog.seller.title")}</h2>
      <div className="seller-head">
        <MemberAvatar name={seller.name} avatarKey={seller.avatarKey} size={64} />
        <p>
          <Link to={profile}>
            <strong>{seller.name}</strong>
          </Link>
          <br />
          {seller.level === null ? t("catalog.level.new") : sayLevel(t, seller.level)}
          {seller.location ? ` · ${seller.location}` : null}
        </p>
      </div>
      <TrustBadges badges={seller.trust} />
      <dl className="seller-facts">
        <div>
          <dt>{t("catalog.shared.rating")}</dt>
          <dd>
            {seller.reviewsCount > 0 ? (
              <>
                <Stars rating={seller.rating} /> {number(seller.rating, ONE_DECIMAL)} ({number(seller.reviewsCount)})
              </>
            ) : (
              t("catalog.shared.noReviews")
            )}
          </dd>
        </div>
        <SellerFacts responseTimeHours={seller.responseTimeHours} yearsExperience={seller.yearsExperience} portfolioUrl={seller.portfolioUrl} />
        <div>
          <dt>{t("catalog.shared.memberSince")}</dt>
          <dd>{dateTimeFormat(locale, MEMBER_SINCE).format(new Date(seller.memberSince))}</dd>
        </div>
        <div>
          <dt>{t("catalog.shared.languages")}</dt>
          <dd>{seller.languages.length ? seller.languages.join(", ") : t("catalog.shared.notListed")}</dd>
        </div>
      </dl>
      {contact === "member" ? (
        // A member starts (or finds) the conversation with the seller about this gig, and goes to it.
        <Form method="post" action="/messages">
          <input type="hidden" name="gigId" value={gigId} />
          <input type="hidden" name="to" value={seller.username} />
          <SubmitButton name="intent" value="start" pendingLabel={t("catalog.shared.pending")}>
            {t("catalog.seller.contact")}
          </SubmitButton>
        </Form>
      ) : contact === "visitor" ? (
        // A visitor signs in first and comes back to /messages, which offers to start it.
        <Form method="post">
          <SubmitButton name="intent" value="contact" pendingLabel={t("catalog.shared.pending")}>
            {t("catalog.seller.contact")}
          </SubmitButton>
        </Form>
      ) : null}
    </section>
  );
}
