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
import { pageMessages } from "~/i18n/messages.server";
import { metaI18n, T, useT } from "~/i18n/react";
import { ADMIN_ACTIVITY_KEY, sayActivity } from "~/domain/activity";
import { log } from "~/server/log.server";

/**
 * The admin portal's entry: `/` on the admin host, `/admin` on the main host (app/utils/site-routes.ts).
 * The admin dashboard: business figures from Postgres (app/models/admin-dashboard.server.ts),
 * behaviour from ClickHouse over the last 7 days, active users over the last 5 minutes. With JavaScript
 * it refreshes every 30 s while the tab is visible (docs/product.md); without, it is a plain page.
 */
export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("admin.dashboard.title") }, { name: "robots", content: "noindex" }];
};
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
  return { adminName, business, activity, behaviour, at: now.toISOString(), ...(await pageMessages(request, ["admin"])) };
}

/** ClickHouse's figures, or null when it cannot answer: the business figures are still worth showing. */
async function readBehaviour(now: Date) {
  const client = getClickHouse();
  try {
    const [active, sessions] = await Promise.all([activeUsers(client, { now }), sessionReport(client, "7d", { now })]);
    return { activeUsers: active, conversionRate: sessions.conversionRate, topCountries: sessions.countries, deviceBreakdown: sessions.activity.devices };
  } catch (error) {
    log.error({ err: error }, "admin dashboard: analytics unavailable");
    return null;
  }
}

export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

export default function AdminDashboard() {
  const { business, activity, behaviour, at } = useLoaderData<typeof loader>();
  const { price, dateTime, number } = usePreferences();
  const { t } = useT();
  const revalidator = useRevalidator();
  usePolling(REFRESH_MS, () => {
    if (revalidator.state === "idle") revalidator.revalidate();
  });
  const stats: [string, string][] = [
    [t("admin.dashboard.activeNow"), behaviour ? number(behaviour.activeUsers) : "—"],
    [t("admin.dashboard.signupsToday"), number(business.newSignupsToday)],
    [t("admin.dashboard.ordersToday"), number(business.ordersToday)],
    [t("admin.dashboard.orderValueToday"), price(business.orderValueTodayUgx)],
    [t("admin.dashboard.revenueToday"), price(business.revenueTodayUgx)],
    [t("admin.dashboard.conversionRate"), behaviour ? percent(behaviour.conversionRate) : "—"],
    [t("admin.dashboard.totalUsers"), number(business.totalUsers)],
    [t("admin.dashboard.totalOrders"), number(business.totalOrders)],
    [t("admin.dashboard.totalRevenue"), price(business.totalRevenueUgx)],
    [t("admin.dashboard.publishedGigs"), number(business.totalGigs)],
  ];
  return (
    <section className="container analytics-page" aria-labelledby="dashboard-title">
      <h1 id="dashboard-title">{t("admin.dashboard.heading")}</h1>
      <p className="live-note">
        <T id="admin.dashboard.asOf" values={{ at: dateTime(at) }} components={{ 0: <time dateTime={at} /> }} />
      </p>
      {/* Relative links: /users on the admin host, /admin/users on the main host. */}
      <p>
        <T
          id="admin.dashboard.goTo"
          components={{ 0: <Link to="users" />, 1: <Link to="messages" />, 2: <Link to="analytics" />, 3: <Link to="disputes" /> }}
        />
      </p>
      <ul className="analytics-stats" aria-label={t("admin.dashboard.figures")}>
        {stats.map(([label, value]) => (
          <li key={label} className="stat-card">
            <span className="stat-value">{value}</span> <span className="stat-label">{label}</span>
          </li>
        ))}
      </ul>
      {behaviour ? null : <p role="status">{t("admin.dashboard.analyticsFailed")}</p>}
      <details className="analytics-definitions">
        <summary>{t("admin.dashboard.howCounted")}</summary>
        <ul>
          <li>{t("admin.dashboard.defToday")}</li>
          <li>{t("admin.dashboard.defOrders")}</li>
          <li>{t("admin.dashboard.defRevenue")}</li>
          <li>{t("admin.dashboard.defActive")}</li>
          <li>{t("admin.dashboard.defCountries")}</li>
        </ul>
      </details>

      <div className="analytics-grid analytics-section">
        <BarChart
          title={t("admin.dashboard.topCountries")}
          columns={[t("admin.dashboard.colCountry"), t("admin.dashboard.colSessions")]}
          data={(behaviour?.topCountries ?? []).map((c) => ({ label: c.country, value: c.users, note: `${c.percentage}%` }))}
        />
        <BarChart
          title={t("admin.dashboard.devices")}
          columns={[t("admin.dashboard.colDevice"), t("admin.dashboard.colSessions")]}
          data={(behaviour?.deviceBreakdown ?? []).map((d) => ({ label: d.device, value: d.count, note: `${d.percentage}%` }))}
        />
      </div>

      <section className="analytics-section" aria-labelledby="activity-title">
        <h2 id="activity-title">{t("admin.dashboard.recentActivity")}</h2>
        {activity.length === 0 ? (
          <p>{t("admin.dashboard.noActivity")}</p>
        ) : (
          <table className="analytics-table stack-table">
            <thead>
              <tr>
                <th scope="col">{t("admin.dashboard.colMember")}</th>
                <th scope="col">{t("admin.dashboard.colWhat")}</th>
                <th scope="col">{t("admin.dashboard.colWhen")}</th>
              </tr>
            </thead>
            <tbody>
              {activity.map((a) => (
                <tr key={a.id}>
                  <td data-label={t("admin.dashboard.colMember")}>{a.user}</td>
                  <td data-label={t("admin.dashboard.colWhat")}>{sayActivity(t, ADMIN_ACTIVITY_KEY, a.kind, "admin.activity.unknown")}</td>
                  <td data-label={t("admin.dashboard.colWhen")}>
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
