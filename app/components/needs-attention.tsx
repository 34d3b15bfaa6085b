/**
 * The dashboard's "Needs your attention": what waits for the member, each with the one link that acts on it
 * (orders awaiting their payment or their answer to a delivery, work due soon or late, disputes, unread
 * messages), or a short line saying nothing does. Plain links: it works the same with JavaScript off.
 */
import { Link } from "~/components/link";
import { usePreferences } from "~/hooks/use-preferences";
import { T, useT } from "~/i18n/react";

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

const ACTION = {
  pay: "dashboard.attention.action.pay",
  approve: "dashboard.attention.action.approve",
  deliver: "dashboard.attention.action.deliver",
  dispute: "dashboard.attention.action.dispute",
} as const;

export function NeedsAttention({ orders, messages }: { orders: AttentionItem[]; messages: AttentionMessages }) {
  const { t } = useT();
  const { day } = usePreferences();
  const empty = orders.length === 0 && messages.total === 0;
  return (
    <section className="attention" aria-labelledby="attention-title">
      <h2 id="attention-title">{t("dashboard.attention.title")}</h2>
      {empty ? (
        <p className="attention-empty">{t("dashboard.attention.empty")}</p>
      ) : (
        <ul className="attention-list" aria-label={t("dashboard.attention.title")}>
          {orders.map((o) => (
            <li key={o.id} className={`attention-item attention-${o.late ? "late" : o.need}`}>
              <p>
                <OrderLine o={o} day={day} />
              </p>
              <Link to={o.need === "pay" ? `/orders/${o.id}/pay` : `/orders/${o.id}`} className="button button-small">
                {t(ACTION[o.need])}
                <span className="visually-hidden"> “{o.gigTitle}”</span>
              </Link>
            </li>
          ))}
          {messages.total > 0 ? (
            <li className="attention-item attention-messages">
              <p>
                {messages.conversationCount > 1 ? (
                  <T
                    id="dashboard.attention.unreadIn"
                    values={{ count: messages.total, conversations: messages.conversationCount }}
                    components={{ 0: <strong /> }}
                  />
                ) : (
                  <T id="dashboard.attention.unread" values={{ count: messages.total }} components={{ 0: <strong /> }} />
                )}
              </p>
              <ul className="attention-conversations" aria-label={t("dashboard.attention.conversationsLabel")}>
                {messages.conversations.map((c) => (
                  <li key={c.id}>
                    <Link to={`/messages/${c.id}`}>
                      {c.gigTitle
                        ? t("dashboard.attention.conversationAbout", { name: c.otherName, title: c.gigTitle, count: c.unread })
                        : t("dashboard.attention.conversation", { name: c.otherName, count: c.unread })}
                    </Link>
                  </li>
                ))}
              </ul>
              {messages.conversationCount > messages.conversations.length ? (
                <Link to="/messages" className="button button-small button-secondary">
                  {t("dashboard.attention.allMessages")}
                </Link>
              ) : null}
            </li>
          ) : null}
        </ul>
      )}
    </section>
  );
}

/**
 * What waits on an order, as one sentence with the gig's title in it (bold, quoted): "“Logo design” from Amina is
 * waiting for your payment." Member-written words (the title, a name) go in as elements, never as message text.
 */
function OrderLine({ o, day }: { o: AttentionItem; day: (d: Date | string) => string }) {
  const values = { title: <>{o.gigTitle}</>, name: <>{o.otherName}</> };
  const components = { 0: <strong /> };
  switch (o.need) {
    case "pay":
      return <T id="dashboard.attention.pay" values={values} components={components} />;
    case "approve":
      return o.completesAt ? (
        <T id="dashboard.attention.approveUntil" values={{ ...values, date: day(o.completesAt) }} components={components} />
      ) : (
        <T id="dashboard.attention.approve" values={values} components={components} />
      );
    case "deliver":
      if (!o.dueAt) return <T id="dashboard.attention.deliver" values={values} components={components} />;
      return o.late ? (
        <T id="dashboard.attention.late" values={{ ...values, date: day(o.dueAt) }} components={components} />
      ) : (
        <T id="dashboard.attention.due" values={{ ...values, date: day(o.dueAt) }} components={components} />
      );
    case "dispute":
      return <T id="dashboard.attention.dispute" values={values} components={components} />;
  }
}
