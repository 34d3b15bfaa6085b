import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData, useRevalidator } from "@remix-run/react";
import { Link } from "~/components/link";
import { getClickHouse } from "~/analytics/clickhouse.server";
import { activeUsers, sessionReport } from "~/analytics/reports.server";
import { BarChart } from "~/components/charts";
import { usePolling } from "~/hooks/use-polling";
import { businessFigures, recentActivity } from "~/models/admin-dashboard.server";
import analyticsStylesUrl from "~/styles/admin-analytics.css?url";
import tablesStylesUrl from "~/styles/admin-tables.css?url";
import { adminScreenAction, adminScreenLoader } from "~/server/admin-area.server";
import { getDb } from "~/server/db.server";
import { usePreferences } from "~/hooks/use-preferences";

/**
 * The admin portal's entry: `/` on the admin host, `/admin` on the main host (app/utils/site-routes.ts).
 * The admin dashboard: business figures from Postgres (app/models/admin-dashboard.server.ts),
 * behaviour from ClickHouse over the last 7 days, active users over the last 5 minutes. With JavaScript
 * it refreshes every 30 s while the tab is visible (docs/product.md); without, it is a plain page.
 */
export const meta: MetaFunction = () => [{ title: "Admin dashboard | Soko Admin" }, { name: "robots", content: "noindex" }];
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: analyticsStylesUrl },
  { rel: "stylesheet", href: tablesStylesUrl },
];

/** The admin dashboard is polled every 30 seconds (docs/product.md). */
const REFRESH_MS = 30_000;

export async function loader({ request }: LoaderFunctionArgs) {
  const { adminName } = await adminScreenLoader(request);
  const db = getDb();
  const now = new Date();
  const [business, activity, behaviour] = await Promise.all([businessFigures(db, { now }), recentActivity(db), readBehaviour(now)]);
  return { adminName, business, activity, behaviour, at: now.toISOString() };
}

/** ClickHouse's figures, or null when it cannot answer: the business figures are still worth showing. */
async function readBehaviour(now: Date) {
  const client = getClickHouse();
  try {
    const [active, sessions] = await Promise.all([activeUsers(client, { now }), sessionReport(client, "7d", { now })]);
    return { activeUsers: active, conversionRate: sessions.conversionRate, topCountries: sessions.countries, deviceBreakdown: sessions.activity.devices };
  } catch (error) {
    console.error("admin dashboard: analytics unavailable", error);
    return null;
  }
}

export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

export default function AdminDashboard() {
  const { business, activity, behaviour, at } = useLoaderData<typeof loader>();
  const { price, dateTime } = usePreferences();
  const revalidator = useRevalidator();
  usePolling(REFRESH_MS, () => {
    if (revalidator.state === "idle") revalidator.revalidate();
  });
  const stats: [string, string][] = [
    ["Active users now", behaviour ? behaviour.activeUsers.toLocaleString("en-US") : "—"],
    ["New signups today", business.newSignupsToday.toLocaleString("en-US")],
    ["Orders today", business.ordersToday.toLocaleString("en-US")],
    ["Order value today", price(business.orderValueTodayUgx)],
    ["Revenue today", price(business.revenueTodayUgx)],
    ["Conversion rate (7 days)", behaviour ? percent(behaviour.conversionRate) : "—"],
    ["Total users", business.totalUsers.toLocaleString("en-US")],
    ["Total orders", business.totalOrders.toLocaleString("en-US")],
    ["Total revenue", price(business.totalRevenueUgx)],
    ["Published gigs", business.totalGigs.toLocaleString("en-US")],
  ];
  return (
    <section className="container analytics-page" aria-labelledby="dashboard-title">
      <h1 id="dashboard-title">Admin dashboard</h1>
      <p className="live-note">
        As of <time dateTime={at}>{dateTime(at)}</time>. Refreshes every 30 seconds with JavaScript; reload the page otherwise.
      </p>
      {/* Relative links: /users on the admin host, /admin/users on the main host. */}
      <p>
        Go to <Link to="users">users</Link>, <Link to="messages">messages</Link>, <Link to="analytics">analytics</Link> or <Link to="disputes">disputes</Link>.
      </p>
      <ul className="analytics-stats" aria-label="Figures">
        {stats.map(([label, value]) => (
          <li key={label} className="stat-card">
            <span className="stat-value">{value}</span> <span className="stat-label">{label}</span>
          </li>
        ))}
      </ul>
      {behaviour ? null : (
        <p role="status">
          Failed to fetch dashboard data from analytics: the figures shown as — are unavailable right now; the business figures above are up to date.
        </p>
      )}
      <details className="analytics-definitions">
        <summary>How these are counted</summary>
        <ul>
          <li>Today: since midnight in Kampala (EAT).</li>
          <li>
            Orders: orders whose payment was taken into escrow; orders today were paid today. Order value: what buyers paid for them, price plus the
            buyer&apos;s fee.
          </li>
          <li>
            Revenue: Soko&apos;s own revenue, the fees the ledger credits to the platform (the buyer&apos;s service fee and the seller&apos;s commission) when
            an order&apos;s escrow is released to the seller; a refunded order earns nothing.
          </li>
          <li>
            Active users: visitors (sessions) seen in the last 5 minutes. Conversion rate: share of the last 7 days&apos; sessions that signed up, placed an
            order or published a gig.
          </li>
          <li>Countries and devices: sessions of the last 7 days, by where and on what they started.</li>
        </ul>
      </details>

      <div className="analytics-grid analytics-section">
        <BarChart
          title="Top countries (last 7 days)"
          columns={["Country", "Sessions"]}
          data={(behaviour?.topCountries ?? []).map((c) => ({ label: c.country, value: c.users, note: `${c.percentage}%` }))}
        />
        <BarChart
          title="Devices (last 7 days)"
          columns={["Device", "Sessions"]}
          data={(behaviour?.deviceBreakdown ?? []).map((d) => ({ label: d.device, value: d.count, note: `${d.percentage}%` }))}
        />
      </div>

      <section className="analytics-section" aria-labelledby="activity-title">
        <h2 id="activity-title">Recent activity</h2>
        {activity.length === 0 ? (
          <p>No activity yet.</p>
        ) : (
          <table className="analytics-table stack-table">
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">What</th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {activity.map((a) => (
                <tr key={a.id}>
                  <td data-label="Member">{a.user}</td>
                  <td data-label="What">{a.action}</td>
                  <td data-label="When">
                    <time dateTime={new Date(a.timestamp).toISOString()}>{dateTime(a.timestamp)}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </section>
  );
}
