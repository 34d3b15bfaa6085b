/**
 * How an admin resolved the order's dispute, for both parties on the order page: the outcome, what each side
 * got (the buyer's refund with their share of the processing fee, the seller's earnings after the service fee:
 * ADR 044), the admin's reason and the date. Reuses the page's notice and summary styles (no CSS of its own).
 */
import type { DisputeOutcome as Outcome } from "~/models/dispute.server";
import { usePreferences } from "~/hooks/use-preferences";
import { useT } from "~/i18n/react";

const HEADLINE = {
  release: "orders.outcome.release",
  refund: "orders.outcome.refund",
  split: "orders.outcome.split",
} as const;

export function DisputeOutcome({ outcome, role }: { outcome: Outcome | null; role: "buyer" | "seller" }) {
  const { price, date } = usePreferences();
  const { t } = useT();
  if (!outcome) return null;
  /** "yes" when the row is about the reader ("Refunded to you"), for the messages' select. */
  const you = (side: "buyer" | "seller") => (side === role ? "yes" : "no");
  return (
    <section className="notice" aria-labelledby="dispute-outcome-title" id="dispute-outcome">
      <h2 id="dispute-outcome-title">{t("orders.outcome.title")}</h2>
      <p>{t(HEADLINE[outcome.resolution])}</p>
      <dl className="order-summary">
        <div>
          <dt>{t("orders.outcome.refundedTo", { you: you("buyer") })}</dt>
          <dd>{price(outcome.buyerUgx)}</dd>
        </div>
        <div>
          <dt>{t("orders.outcome.paidTo", { you: you("seller") })}</dt>
          <dd>{price(outcome.sellerUgx)}</dd>
        </div>
        <div>
          <dt>{t("orders.outcome.decidedOn")}</dt>
          <dd>
            <time dateTime={outcome.resolvedAt}>{date(outcome.resolvedAt)}</time>
          </dd>
        </div>
      </dl>
      <p>{t("orders.outcome.reason")}</p>
      <blockquote className="dispute-reason">{outcome.reason}</blockquote>
    </section>
  );
}
