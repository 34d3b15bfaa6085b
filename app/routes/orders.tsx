import type { LinksFunction } from "@remix-run/node";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { OrderCard } from "~/components/order-card";
import { listOrders, orderTabCounts } from "~/models/order.server";
import { requireUser } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { ORDER_TABS, orderActions, type OrderTab } from "~/domain/order-rules";
import ordersStylesUrl from "~/styles/orders.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: ordersStylesUrl }];

export const meta: MetaFunction = () => [{ title: "Orders | Soko" }];

const TAB_LABEL: Record<OrderTab, string> = { active: "Active", completed: "Completed", cancelled: "Cancelled" };

const EMPTY: Record<OrderTab, string> = {
  active: "No active orders right now. When you buy a service, or a buyer orders one of your gigs, it shows here.",
  completed: "No completed orders yet.",
  cancelled: "No cancelled orders.",
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
  };
}

export default function Orders() {
  const { tab, counts, orders } = useLoaderData<typeof loader>();
  const back = `/orders?tab=${tab}`;
  return (
    <section className="container orders-page" aria-labelledby="orders-title">
      <h1 id="orders-title">Orders</h1>
      <nav aria-label="Order tabs">
        <ul className="tabs">
          {(Object.keys(TAB_LABEL) as OrderTab[]).map((t) => (
            <li key={t}>
              <Link to={`/orders?tab=${t}`} aria-current={t === tab ? "page" : undefined} preventScrollReset>
                {TAB_LABEL[t]} <span className="tab-count">({counts[t]})</span>
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <h2 className="visually-hidden">{TAB_LABEL[tab]} orders</h2>
      {orders.length ? (
        <ul className="order-list" aria-label={`${TAB_LABEL[tab]} orders`}>
          {orders.map((order) => (
            <li key={order.id}>
              <OrderCard order={order} back={back} />
            </li>
          ))}
        </ul>
      ) : (
        <div className="empty-state">
          <p>{EMPTY[tab]}</p>
          <Link to="/browse" className="button">
            Browse services
          </Link>
        </div>
      )}
    </section>
  );
}
