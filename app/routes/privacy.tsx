import type { MetaFunction } from "@remix-run/node";
import { Link } from "~/components/link";

export const meta: MetaFunction = () => [{ title: "Privacy Policy | Soko" }];

export default function Privacy() {
  return (
    <article className="container form-page" aria-labelledby="privacy-title">
      <h1 id="privacy-title">Privacy Policy</h1>
      <p>Soko processes personal data under Uganda's Data Protection and Privacy Act, 2019.</p>
      <h2>What we keep</h2>
      <p>
        Your name, email, profile details you choose to add, your mobile-money number for payouts, your orders and messages, and a hashed form of your password
        (never the password itself).
      </p>
      <h2>Analytics</h2>
      <p>
        We count anonymous page views to keep the site working well: the page, the time, your browser and device type, and the country and city worked out from
        your IP address, which is shortened before it is stored. These counts are not linked to your account. In the same way we count the platform's own events
        when they happen (an account created, a gig published, an order placed, paid or completed, with its amount), without linking them to your account unless
        you agree to analytics.
      </p>
      <p>
        Anything beyond that is recorded only if you agree, as the Data Protection and Privacy Act, 2019 requires: the buttons and links you click, the form
        fields you move through (never what you type in them), how far you scroll, how long you stay on a page, errors in the page, and your screen size and
        time zone. If you are signed in, these are linked to your account. We ask the first time you visit; your answer is kept in a cookie (soko_consent) in
        your browser for a year. If you agree, a second cookie (soko_sid), which ends when you close the browser, ties the pages you visit in one sitting
        together. You may withdraw your consent at any time on the <Link to="/consent">Privacy choices</Link> page, from the footer, or in your settings; from
        then on nothing but anonymous page views is recorded.
      </p>
      <h2>Your rights</h2>
      <p>You may see, correct or delete your data. Write to privacy@soko.ug; we answer within 30 days.</p>
      <p>
        See also our <Link to="/terms">Terms of Service</Link>.
      </p>
    </article>
  );
}
