/**
 * An order's timeline (its order_events rows) in plain words: who did what, when, and why. The words come
 * from the event's kind; a kind this version does not know still shows, as the status it led to.
 */
import { statusLabel } from "~/domain/order-rules";
import type { EventRole, OrderEvent } from "~/models/order.server";
import { usePreferences } from "~/hooks/use-preferences";

/** An order event as the page gets it: the model's row, its time as JSON brought it (a string) or a Date. */
export type TimelineEvent = Omit<OrderEvent, "at"> & { at: Date | string };

const WHO: Record<EventRole, string> = { buyer: "Buyer", seller: "Seller", admin: "Admin", system: "Soko" };

/**
 * What happened, as one sentence, and whether the event's reason belongs after it ("Buyer asked for a
 * revision: …"). `paidUgx` is what the buyer's payment put in escrow, already formatted.
 */
export function eventText(e: Pick<TimelineEvent, "kind" | "actorRole" | "to" | "reason">, paidUgx: string): { text: string; withReason: boolean } {
  const who = WHO[e.actorRole] ?? "Soko";
  const plain = (text: string) => ({ text, withReason: false });
  const because = (text: string) => ({ text, withReason: true });
  switch (e.kind) {
    case "placed":
      return plain(`${who} placed the order`);
    case "paid":
      return plain(`Payment received — ${paidUgx} held in escrow`);
    case "payment_failed":
      return because("The payment did not go through");
    case "delivered":
      return plain(`${who} delivered`);
    case "revision_requested":
      return because(`${who} asked for a revision`);
    case "approved":
      return plain(`${who} approved the delivery: the order is complete`);
    case "auto_completed":
      return plain("Completed automatically after 3 days");
    case "cancelled":
      return because(`${who} cancelled the order`);
    case "cancelled_late":
      return because(`${who} cancelled the late order`);
    case "cancel_requested":
      return because(`${who} asked to cancel`);
    case "cancel_agreed":
      return plain(`${who} agreed to cancel: the order is cancelled`);
    case "cancel_withdrawn":
      return plain(`${who} withdrew the cancel request`);
    case "cancel_declined":
      return plain(`${who} declined the cancel request`);
    case "dispute_opened":
      return because(`Dispute opened by ${who.toLowerCase()}`);
    case "dispute_released":
      return because("Admin resolved the dispute: released to the seller");
    case "dispute_refunded":
      return because("Admin resolved the dispute: refunded");
    case "dispute_split":
      return because("Admin resolved the dispute: split the price");
    case "late_payment_refunded":
      return plain("A payment arrived after the order was cancelled: it is being refunded");
    case "payment_requested":
      return because(`${who} asked for the payment again`);
    case "extra_payment_refunded":
      return because("A second payment arrived after the order was paid: it is being refunded");
    case "cleared":
      return plain("Earnings cleared");
    case "reviewed":
      return because(`${who} left a review`);
    default:
      return plain(`${who}: order ${statusLabel(e.to).toLowerCase()}`);
  }
}

export function OrderTimeline({ events, paidUgx }: { events: TimelineEvent[]; paidUgx: number }) {
  const { dateTime, price } = usePreferences();
  return (
    <ol className="order-timeline" aria-label="Timeline">
      {events.map((e) => {
        const { text, withReason } = eventText(e, price(paidUgx));
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
