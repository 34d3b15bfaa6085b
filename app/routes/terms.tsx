import type { MetaFunction } from "@remix-run/node";
import { Link } from "~/components/link";

export const meta: MetaFunction = () => [{ title: "Terms of Service | Soko" }];

export default function Terms() {
  return (
    <article className="container form-page" aria-labelledby="terms-title">
      <h1 id="terms-title">Terms of Service</h1>
      <p>These terms govern your use of Soko, a marketplace where clients in Uganda buy fixed-price services (gigs) from freelancers.</p>
      <h2>Accounts</h2>
      <p>
        You must give true details, keep your password to yourself, and be at least 18 years old. One person, one account. We may suspend or ban accounts that
        break these terms; a suspended or banned member cannot sign in.
      </p>
      <h2>Payments and escrow</h2>
      <p>
        Clients pay the gig price plus a buyer processing fee into escrow when they order. The money is released to the freelancer when the client approves the
        delivered work. Soko keeps a 20% service fee from each completed order; payouts reach the freelancer about 14 days after completion.
      </p>
      <h2>Gigs and conduct</h2>
      <p>
        Freelancers describe only work they can deliver, in the time and price stated. No off-platform payment requests, no harassment, no illegal or infringing
        work.
      </p>
      <h2>Disputes</h2>
      <p>If an order goes wrong, contact support before leaving a review. Our support team works Monday to Friday, 9 AM to 6 PM East Africa Time.</p>
      <p>
        See also our <Link to="/privacy">Privacy Policy</Link> and the <Link to="/help">help centre</Link>.
      </p>
    </article>
  );
}
