/**
 * An order's timeline (its order_events rows) in plain words: who did what, when, and why. The words come
 * from the event's kind; a kind this version does not know still shows, as the status it led to.
 */
import type { I18n } from "@lingui/core";
import { statusKey } from "~/domain/order-rules";
import type { EventRole, OrderEvent } from "~/models/order.server";
import { usePreferences } from "~/hooks/use-preferences";
import { useT } from "~/i18n/react";

/** An order event as the page gets it: the model's row, its time as JSON brought it (a string) or a Date. */
export type TimelineEvent = Omit<OrderEvent, "at"> & { at: Date | string };

/** Who did it, as a message key; the platform itself is "Soko" in every language. */
const WHO: Record<Exclude<EventRole, "system">, string> = {
  buyer: "orders.timeline.who.buyer",
  seller: "orders.timeline.who.seller",
  admin: "orders.timeline.who.admin",
};

/**
 * What happened, as one sentence in the reader's language, and whether the event's reason belongs after it
 * ("Buyer asked for a revision: …"). `paidUgx` is what the buyer's payment put in escrow, already formatted.
 */
export function eventText(
  t: I18n["_"],
  e: Pick<TimelineEvent, "kind" | "actorRole" | "to" | "reason">,
  paidUgx: string,
): { text: string; withReason: boolean } {
  const role = e.actorRole as string;
  const who = role in WHO ? t(WHO[role as keyof typeof WHO]) : "Soko";
  const plain = (text: string) => ({ text, withReason: false });
  const because = (text: string) => ({ text, withReason: true });
  switch (e.kind) {
    case "placed":
      return plain(t("orders.timeline.placed", { who }));
    case "paid":
      return plain(t("orders.timeline.paid", { amount: paidUgx }));
    case "payment_failed":
      return because(t("orders.timeline.paymentFailed"));
    case "delivered":
      return plain(t("orders.timeline.delivered", { who }));
    case "revision_requested":
      return because(t("orders.timeline.revisionRequested", { who }));
    case "approved":
      return plain(t("orders.timeline.approved", { who }));
    case "auto_completed":
      return plain(t("orders.timeline.autoCompleted"));
    case "cancelled":
      return because(t("orders.timeline.cancelled", { who }));
    case "cancelled_late":
      return because(t("orders.timeline.cancelledLate", { who }));
    case "cancel_requested":
      return because(t("orders.timeline.cancelRequested", { who }));
    case "cancel_agreed":
      return plain(t("orders.timeline.cancelAgreed", { who }));
    case "cancel_withdrawn":
      return plain(t("orders.timeline.cancelWithdrawn", { who }));
    case "cancel_declined":
      return plain(t("orders.timeline.cancelDeclined", { who }));
    case "dispute_opened":
      return because(t("orders.timeline.disputeOpened", { who: who.toLowerCase() }));
    case "dispute_released":
      return because(t("orders.timeline.disputeReleased"));
    case "dispute_refunded":
      return because(t("orders.timeline.disputeRefunded"));
    case "dispute_split":
      return because(t("orders.timeline.disputeSplit"));
    case "late_payment_refunded":
      return plain(t("orders.timeline.latePaymentRefunded"));
    case "payment_requested":
      return because(t("orders.timeline.paymentRequested", { who }));
    case "extra_payment_refunded":
      return because(t("orders.timeline.extraPaymentRefunded"));
    case "cleared":
      return plain(t("orders.timeline.cleared"));
    case "reviewed":
      return because(t("orders.timeline.reviewed", { who }));
    default:
      return plain(t("orders.timeline.status", { who, status: t(statusKey(e.to)).toLowerCase() }));
  }
}

export function OrderTimeline({ events, paidUgx }: { events: TimelineEvent[]; paidUgx: number }) {
  const { dateTime, price } = usePreferences();
  const { t } = useT();
  return (
    <ol className="order-timeline" aria-label={t("orders.timeline.label")}>
      {events.map((e) => {
        const { text, withReason } = eventText(t, e, price(paidUgx));
        return (
          <li key={e.id}>
            <p>
              {text}
              {withReason && e.reason ? `${text.includes(":") ? " — " : ": "}${e.reason}` : null}
            </p>
            <p className="order-event-meta">
              {e.actorName && e.actorRole !== "system" ? <>{e.actorName} · </> : null}
              <time dateTime={new Date(e.at).toISOString()}>{dateTime(e.at)}</time>
            </p>
          </li>
        );
      })}
    </ol>
  );
}
