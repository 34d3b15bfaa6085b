import { Form, useLocation, useRouteLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import type { loader as rootLoader } from "~/root";
import { SUPPORT_EMAIL, SUPPORT_HOURS, SUPPORT_PHONE, SUPPORT_PHONE_HREF } from "~/content/faq";

/** The main site's footer. `year` comes from the root loader so server and browser render the same text. */
export function SiteFooter({ year }: { year: number }) {
  const location = useLocation();
  const currency = useRouteLoaderData<typeof rootLoader>("root")?.currency.code ?? "UGX";
  return (
    <footer className="site-footer">
      <div className="container footer-grid">
        <section aria-labelledby="footer-about">
          <h2 id="footer-about" className="footer-brand">
            Soko
          </h2>
          <p>Hire trusted Ugandan freelancers for fixed-price services, paid safely through escrow.</p>
        </section>
        <nav aria-labelledby="footer-clients">
          <h2 id="footer-clients">For clients</h2>
          <ul>
            <li>
              <Link to="/browse">Browse services</Link>
            </li>
            <li>
              <Link to="/search">Search</Link>
            </li>
            <li>
              <Link to="/help">How it works</Link>
            </li>
            <li>
              <Link to="/register">Join as a client</Link>
            </li>
          </ul>
        </nav>
        <nav aria-labelledby="footer-freelancers">
          <h2 id="footer-freelancers">For freelancers</h2>
          <ul>
            <li>
              <Link to="/freelancer/register">Become a seller</Link>
            </li>
            <li>
              <Link to="/gig/create">Create a gig</Link>
            </li>
            <li>
              <Link to="/dashboard">Dashboard</Link>
            </li>
            <li>
              <Link to="/help">Seller help</Link>
            </li>
          </ul>
        </nav>
        <section aria-labelledby="footer-contact">
          <h2 id="footer-contact">Contact us</h2>
          <address>
            <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a>
            <br />
            <a href={SUPPORT_PHONE_HREF}>{SUPPORT_PHONE}</a>
            <br />
            Kampala, Uganda
          </address>
          <p className="footer-hours">Support: {SUPPORT_HOURS}</p>
        </section>
      </div>
      <div className="container footer-bottom">
        <p>© {year} Soko</p>
        <Form method="post" action="/currency" className="currency-switch">
          <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
          <label htmlFor="footer-currency">Show prices in</label>
          <select id="footer-currency" name="currency" defaultValue={currency} key={currency}>
            <option value="UGX">UGX (Uganda shillings)</option>
            <option value="USD">USD (US dollars)</option>
          </select>
          <button type="submit" className="button button-secondary button-small">
            Change
          </button>
        </Form>
        <nav aria-label="Policies">
          <Link to="/terms">Terms of service</Link>
          <Link to="/privacy">Privacy policy</Link>
          <Link to="/consent">Privacy choices</Link>
        </nav>
      </div>
    </footer>
  );
}
