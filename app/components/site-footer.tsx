import { Form, useLocation, useRouteLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import type { loader as rootLoader } from "~/root";
import { SUPPORT_EMAIL, SUPPORT_PHONE, SUPPORT_PHONE_HREF } from "~/content/faq";
import { LanguageSwitch } from "~/components/language-switch";
import { DataSaverSwitch } from "~/components/data-saver";
import { useT } from "~/i18n/react";

/** The main site's footer. `year` comes from the root loader so server and browser render the same text. */
export function SiteFooter({ year }: { year: number }) {
  const { t } = useT();
  const location = useLocation();
  const currency = useRouteLoaderData<typeof rootLoader>("root")?.currency.code ?? "UGX";
  return (
    <footer className="site-footer">
      <div className="container footer-grid">
        <section aria-labelledby="footer-about">
          <h2 id="footer-about" className="footer-brand">
            Soko
          </h2>
          <p>{t("common.footer.about")}</p>
        </section>
        <nav aria-labelledby="footer-clients">
          <h2 id="footer-clients">{t("common.footer.forClients")}</h2>
          <ul>
            <li>
              <Link to="/browse">{t("common.footer.browseServices")}</Link>
            </li>
            <li>
              <Link to="/search">{t("common.header.search")}</Link>
            </li>
            <li>
              <Link to="/freelancers">{t("common.directory.link")}</Link>
            </li>
            <li>
              <Link to="/help">{t("common.header.howItWorks")}</Link>
            </li>
            <li>
              <Link to="/register">{t("common.footer.joinAsClient")}</Link>
            </li>
          </ul>
        </nav>
        <nav aria-labelledby="footer-freelancers">
          <h2 id="footer-freelancers">{t("common.footer.forFreelancers")}</h2>
          <ul>
            <li>
              <Link to="/freelancer/register">{t("common.header.becomeSeller")}</Link>
            </li>
            <li>
              <Link to="/gig/create">{t("common.footer.createGig")}</Link>
            </li>
            <li>
              <Link to="/dashboard">{t("common.header.dashboard")}</Link>
            </li>
            <li>
              <Link to="/help">{t("common.footer.sellerHelp")}</Link>
            </li>
          </ul>
        </nav>
        <section aria-labelledby="footer-contact">
          <h2 id="footer-contact">{t("common.footer.contact")}</h2>
          <address>
            <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a>
            <br />
            <a href={SUPPORT_PHONE_HREF}>{SUPPORT_PHONE}</a>
            <br />
            {t("common.footer.place")}
          </address>
          <p className="footer-hours">{t("common.footer.support")}</p>
        </section>
      </div>
      <div className="container footer-bottom">
        <p>© {year} Soko</p>
        <Form method="post" action="/currency" className="currency-switch">
          <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
          <label htmlFor="footer-currency">{t("common.footer.showPricesIn")}</label>
          <select id="footer-currency" name="currency" defaultValue={currency} key={currency}>
            <option value="UGX">{t("common.footer.ugx")}</option>
            <option value="USD">{t("common.footer.usd")}</option>
          </select>
          <button type="submit" className="button button-secondary button-small">
            {t("common.footer.change")}
          </button>
        </Form>
        <LanguageSwitch />
        <DataSaverSwitch />
        <nav aria-label={t("common.footer.policies")}>
          <Link to="/terms">{t("common.footer.terms")}</Link>
          <Link to="/privacy">{t("common.footer.privacy")}</Link>
          <Link to="/consent">{t("common.footer.privacyChoices")}</Link>
        </nav>
      </div>
    </footer>
  );
}
