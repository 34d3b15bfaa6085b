import { useFetcher, useLocation } from "@remix-run/react";
import { Link } from "~/components/link";
import { useEffect, useState } from "react";
import { useT } from "~/i18n/react";

/**
 * Pages where the analytics question would stand in the way of the page's one task (placing an order, paying,
 * a conversation): the banner waits for the next page.
 */
const QUIET_PAGES = [/^\/gig\/[^/]+\/order\/?$/, /^\/orders\/[^/]+\/pay\/?$/, /^\/messages\/[^/]+\/?$/, /^\/consent\/?$/];

/** Whether the banner may ask on this path. */
export const consentBannerShown = (pathname: string) => !QUIET_PAGES.some((page) => page.test(pathname));

/**
 * Asks for the analytics choice while none is stored (the root shows it on both hosts): one line, the
 * question, the policy a tap away, and the two answers. It sits at the foot of the screen (sticky), so it never
 * pushes the page's content down. A plain form posting to /consent, so it works without JavaScript (the server
 * sets the cookie and sends the visitor back here); with JavaScript it submits in place and disappears, and the
 * root starts the tracker if allowed. /consent explains each choice in full.
 */
export function ConsentBanner() {
  const { t } = useT();
  const fetcher = useFetcher();
  const location = useLocation();
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  // Gone as soon as a choice is on its way; the root's reloaded data then keeps it gone.
  if (fetcher.state !== "idle" || fetcher.data) return null;
  return (
    <section className="consent-bar" aria-labelledby="consent-banner-title">
      <h2 id="consent-banner-title" className="visually-hidden">
        {t("common.consent.title")}
      </h2>
      <fetcher.Form method="post" action="/consent" className="container consent-row">
        <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
        {hydrated ? <input type="hidden" name="inPlace" value="1" /> : null}
        <p className="consent-text">
          {t("common.consent.question")}{" "}
          <Link to="/privacy" aria-label={t("common.consent.policy")}>
            {t("common.consent.privacy")}
          </Link>
        </p>
        <button type="submit" name="consent" value="granted" className="button button-small" aria-label={t("common.consent.yesLabel")}>
          {t("common.consent.yes")}
        </button>
        <button type="submit" name="consent" value="denied" className="button button-secondary button-small" aria-label={t("common.consent.noLabel")}>
          {t("common.consent.no")}
        </button>
      </fetcher.Form>
    </section>
  );
}
