/**
 * The dashboard's "Needs your attention": what waits for the member, each with the one link that acts on it
 * (orders awaiting their payment or their answer to a delivery, work due soon or late, disputes, unread
 * messages), or a short line saying nothing does. Plain links: it works the same with JavaScript off.
 */
import { Link } from "~/components/link";
import { usePreferences } from "~/hooks/use-preferences";

export type AttentionItem = {
  id: number;
  gigTitle: string;
  need: "pay" | "approve" | "deliver" | "dispute";
  otherName: string;
  dueAt: Date | string | null;
  /** For "approve": when the delivery completes by itself. */
  completesAt: Date | string | null;
  late: boolean;
};

export type AttentionMessages = {
  total: number;
  conversationCount: number;
  conversations: { id: string; otherName: string; unread: number; gigTitle: string | null }[];
};

const ACTION = { pay: "Pay", approve: "Review the delivery", deliver: "Deliver", dispute: "See the dispute" } as const;

export function NeedsAttention({ orders, messages }: { orders: AttentionItem[]; messages: AttentionMessages }) {
  const { day } = usePreferences();
  const empty = orders.length === 0 && messages.total === 0;
  return (
    <section className="attention" aria-labelledby="attention-title">
      <h2 id="attention-title">Needs your attention</h2>
      {empty ? (
        <p className="attention-empty">
          Nothing needs your attention right now. We will list here what waits for you: payments, deliveries, due dates and messages.
        </p>
      ) : (
        <ul className="attention-list" aria-label="Needs your attention">
          {orders.map((o) => (
            <li key={o.id} className={`attention-item attention-${o.late ? "late" : o.need}`}>
              <p>
                <strong>“{o.gigTitle}”</strong> <OrderLine o={o} day={day} />
              </p>
              <Link to={o.need === "pay" ? `/orders/${o.id}/pay` : `/orders/${o.id}`} className="button button-small">
                {ACTION[o.need]}
                <span className="visually-hidden"> “{o.gigTitle}”</span>
              </Link>
            </li>
          ))}
          {messages.total > 0 ? (
            <li className="attention-item attention-messages">
              <p>
                <strong>
                  {messages.total} unread {messages.total === 1 ? "message" : "messages"}
                </strong>
                {messages.conversationCount > 1 ? ` in ${messages.conversationCount} conversations` : null}
              </p>
              <ul className="attention-conversations" aria-label="Conversations with unread messages">
                {messages.conversations.map((c) => (
                  <li key={c.id}>
                    <Link to={`/messages/${c.id}`}>
                      {c.otherName}
                      {c.gigTitle ? <> about “{c.gigTitle}”</> : null}: {c.unread} new
                    </Link>
                  </li>
                ))}
              </ul>
              {messages.conversationCount > messages.conversations.length ? (
                <Link to="/messages" className="button button-small button-secondary">
                  All messages
                </Link>
              ) : null}
            </li>
          ) : null}
        </ul>
      )}
    </section>
  );
}

function OrderLine({ o, day }: { o: AttentionItem; day: (d: Date | string) => string }) {
  switch (o.need) {
    case "pay":
      return <>from {o.otherName} is waiting for your payment.</>;
    case "approve":
      return (
        <>
          was delivered by {o.otherName}. {o.completesAt ? <>It completes by itself on {day(o.completesAt)} unless you ask for changes.</> : null}
        </>
      );
    case "deliver":
      if (!o.dueAt) return <>for {o.otherName} is waiting for your delivery.</>;
      return o.late ? (
        <>
          for {o.otherName} is late: it was due {day(o.dueAt)}.
        </>
      ) : (
        <>
          for {o.otherName} is due {day(o.dueAt)}.
        </>
      );
    case "dispute":
      return <>is in dispute: an admin will decide what happens to the payment.</>;
  }
}
