import type { MetaFunction } from "@remix-run/node";
import { Link } from "@remix-run/react";

export const meta: MetaFunction = () => [{ title: "Privacy Policy | Soko" }];

export default function Privacy() {
  return (
    <article className="container form-page" aria-labelledby="privacy-title">
      <h1 id="privacy-title">Privacy Policy</h1>
      <p>Soko processes personal data under Uganda's Data Protection and Privacy Act, 2019.</p>
      <h2>What we keep</h2>
      <p>Your name, email, profile details you choose to add, your mobile-money number for payouts, your orders and messages, and a hashed form of your password (never the password itself).</p>
      <h2>Analytics</h2>
      <p>We count anonymous page views to keep the site working well. Anything beyond that (clicks, scrolling, time on page) is recorded only if you agree, and you can change your choice at any time. IP addresses are shortened before they are stored.</p>
      <h2>Your rights</h2>
      <p>You may see, correct or delete your data. Write to privacy@soko.ug; we answer within 30 days.</p>
      <p>
        See also our <Link to="/terms">Terms of Service</Link>.
      </p>
    </article>
  );
}
