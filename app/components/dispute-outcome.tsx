/**
 * How an admin resolved the order's dispute, for both parties on the order page: the outcome, what each side
 * got (the buyer's refund with their share of the processing fee, the seller's earnings after the service fee:
 * ADR 044), the admin's reason and the date. Reuses the page's notice and summary styles (no CSS of its own).
 */
import type { DisputeOutcome as Outcome } from "~/models/dispute.server";
import { usePreferences } from "~/hooks/use-preferences";

const HEADLINE = {
  release: "The dispute was decided for the seller: the payment was released to them.",
  refund: "The dispute was decided for the buyer: everything they paid was refunded.",
  split: "The dispute was settled with a split: part of the price was refunded to the buyer, the rest paid to the seller.",
} as const;

export function DisputeOutcome({ outcome, role }: { outcome: Outcome | null; role: "buyer" | "seller" }) {
  const { price, date } = usePreferences();
  if (!outcome) return null;
  const you = (side: "buyer" | "seller") => (side === role ? "you" : `the ${side}`);
  return (
    <section className="notice" aria-labelledby="dispute-outcome-title" id="dispute-outcome">
      <h2 id="dispute-outcome-title">Dispute resolved</h2>
      <p>{HEADLINE[outcome.resolution]}</p>
      <dl className="order-summary">
        <div>
          <dt>Refunded to {you("buyer")}</dt>
          <dd>{price(outcome.buyerUgx)}</dd>
        </div>
        <div>
          <dt>Paid to {you("seller")}, after the service fee</dt>
          <dd>{price(outcome.sellerUgx)}</dd>
        </div>
        <div>
          <dt>Decided on</dt>
          <dd>
            <time dateTime={outcome.resolvedAt}>{date(outcome.resolvedAt)}</time>
          </dd>
        </div>
      </dl>
      <p>The admin&apos;s reason:</p>
      <blockquote className="dispute-reason">{outcome.reason}</blockquote>
    </section>
  );
}
