import { responseWords, type ResponseWords } from "~/domain/seller-levels";
import { useT } from "~/i18n/react";

/** The response-time words as catalogue keys (app/locales/<language>/catalog.json): kept here, their one reader. */
const RESPONSE_WORDS_KEY: Record<ResponseWords, string> = {
  hour: "catalog.levels.responseHour",
  hours: "catalog.levels.responseHours",
  day: "catalog.levels.responseDay",
};

/**
 * A seller's facts shared by their profile and the gig page's "About the seller" (ADR 049), as items of a
 * <dl>: how soon they answer (in words, and nothing at all while too few conversations say), their years of
 * experience and their portfolio. Each is left out when there is nothing to say.
 */
export function SellerFacts({
  responseTimeHours,
  yearsExperience,
  portfolioUrl,
}: {
  responseTimeHours: number | null;
  yearsExperience: number | null;
  portfolioUrl: string | null;
}) {
  const { t } = useT();
  const words = responseWords(responseTimeHours);
  return (
    <>
      {words ? (
        <div>
          <dt>{t("catalog.shared.responseTime")}</dt>
          <dd>{t(RESPONSE_WORDS_KEY[words])}</dd>
        </div>
      ) : null}
      {yearsExperience !== null ? (
        <div>
          <dt>{t("catalog.sellerProfile.experience")}</dt>
          <dd>{t("catalog.sellerProfile.years", { count: yearsExperience })}</dd>
        </div>
      ) : null}
      {portfolioUrl && /^https?:\/\//i.test(portfolioUrl) ? (
        <div>
          <dt>{t("catalog.sellerProfile.portfolio")}</dt>
          <dd>
            {/* The member's own link: never vouched for (nofollow ugc), and the page it opens gets no hold on this one. */}
            <a href={portfolioUrl} rel="nofollow ugc noopener" className="portfolio-link">
              {portfolioUrl.replace(/^https?:\/\//i, "").replace(/\/$/, "")}
            </a>
          </dd>
        </div>
      ) : null}
    </>
  );
}
