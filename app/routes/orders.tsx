import type { LinksFunction } from "@remix-run/node";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { pageMessages } from "~/i18n/messages.server";
import { metaI18n, useT } from "~/i18n/react";
import { useLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { OrderCard } from "~/components/order-card";
import { listOrders, orderTabCounts } from "~/models/order.server";
import { requireUser } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { ORDER_TABS, orderActions, type OrderTab } from "~/domain/order-rules";
import ordersStylesUrl from "~/styles/orders.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: ordersStylesUrl }];

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("orders.list.metaTitle") }];
};

const TAB_LABEL: Record<OrderTab, string> = {
  active: "orders.list.tab.active",
  completed: "orders.list.tab.completed",
  cancelled: "orders.list.tab.cancelled",
};

/** Each tab's heading for screen readers and its list's name ("Active orders"). */
const TAB_HEADING: Record<OrderTab, string> = {
  active: "orders.list.heading.active",
  completed: "orders.list.heading.completed",
  cancelled: "orders.list.heading.cancelled",
};

const EMPTY: Record<OrderTab, string> = {
  active: "orders.list.empty.active",
  completed: "orders.list.empty.completed",
  cancelled: "orders.list.empty.cancelled",
};

function tabOf(request: Request): OrderTab {
  const tab = new URL(request.url).searchParams.get("tab");
  return tab && tab in ORDER_TABS ? (tab as OrderTab) : "active";
}

/**
 * The member's orders, as buyer and as seller, in three tabs. Each order's buttons are worked out here, at
 * the server's clock, so the page offers exactly what the order's operations would accept now.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const tab = tabOf(request);
  const db = getDb();
  const [orders, counts] = await Promise.all([listOrders(db, user.id, tab), orderTabCounts(db, user.id)]);
  const now = new Date();
  return {
    tab,
    counts,
    orders: orders.map(({ facts, ...order }) => ({ ...order, disputeOpen: facts.disputeOpen, actions: [...orderActions(facts, user.id, now)] })),
    ...(await pageMessages(request, ["orders.card", "orders.days", "orders.list", "orders.party", "orders.status"])),
  };
}

export default function Orders() {
  const { tab, counts, orders } = useLoaderData<typeof loader>();
  const { t } = useT();
  const back = `/orders?tab=${tab}`;
  return (
    <section className="container orders-page" aria-labelledby="orders-title">
      <h1 id="orders-title">{t("orders.list.title")}</h1>
      <nav aria-label={t("orders.list.tabs")}>
        <ul className="tabs">
          {(Object.keys(TAB_LABEL) as OrderTab[]).map((name) => (
            <li key={name}>
              <Link to={`/orders?tab=${name}`} aria-current={name === tab ? "page" : undefined} preventScrollReset>
                {t(TAB_LABEL[name])} <span className="tab-count">({counts[name]})</span>
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <h2 className="visually-hidden">{t(TAB_HEADING[tab])}</h2>
      {orders.length ? (
        <ul className="order-list" aria-label={t(TAB_HEADING[tab])}>
          {orders.map((order) => (
            <li key={order.id}>
              <OrderCard order={order} back={back} />
            </li>
          ))}
        </ul>
      ) : (
        <div className="empty-state">
          <p>{t(EMPTY[tab])}</p>
          <Link to="/browse" className="button">
            {t("orders.list.browse")}
          </Link>
        </div>
      )}
    </section>
  );
}
