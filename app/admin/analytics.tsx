import { data, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useFetcher, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { getClickHouse } from "~/analytics/clickhouse.server";
import { EXPORT_REPORTS, parsePeriod, periodQuery, RANGE_LABELS, type PeriodErrors } from "~/analytics/period";
import { conversions, pageViews, realTime, referrers, sessionReport, traffic, type Period, type RealTimeReport } from "~/analytics/reports.server";
import { adminBase, clockTime, InsightLinks, useTimeZone } from "~/components/analytics-insights";
import { BarChart, LineChart } from "~/components/charts";
import { usePolling } from "~/hooks/use-polling";
import analyticsStylesUrl from "~/styles/admin-analytics.css?url";
import tablesStylesUrl from "~/styles/admin-tables.css?url";
import { adminScreenAction, adminScreenLoader } from "~/server/admin-area.server";
import { getDb } from "~/server/db.server";
import { usePreferences } from "~/hooks/use-preferences";

/**
 * `/analytics` on the admin host, `/admin/analytics` on the main host (app/utils/site-routes.ts): the
 * analytics reports (docs/product.md, Analytics) for a period (a GET form: 1d, 7d, 30d, 90d, default 7d, or custom
 * days, at most a year; anything else is a 400 with the message by its field), real time (refreshed every
 * 10 s with JavaScript, that section alone), and the CSV export (app/admin/analytics-export.tsx).
 */
export const meta: MetaFunction = () => [{ title: "Analytics | Soko Admin" }, { name: "robots", content: "noindex" }];
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: analyticsStylesUrl },
  { rel: "stylesheet", href: tablesStylesUrl },
];

/** Analytics real time is polled every 10 seconds (docs/product.md). */
const REALTIME_MS = 10_000;

type RealTimeView = Omit<RealTimeReport, "recentActions"> & { recentActions: (RealTimeReport["recentActions"][number] & { user: string })[] };

export async function loader({ request }: LoaderFunctionArgs) {
  await adminScreenLoader(request);
  const params = new URL(request.url).searchParams;
  if (params.get("section") === "realtime") {
    // The section's own reload: a failure answers 503 with the screen's own message (thrown, it would replace the page).
    try {
      return { kind: "realtime" as const, realTime: await readRealTime() };
    } catch (error) {
      console.error("admin analytics: real time unavailable", error);
      return data({ kind: "realtime-failed" as const, message: "Failed to fetch realtime metrics" }, { status: 503 });
    }
  }
  const parsed = parsePeriod(params);
  if (!parsed.ok) {
    return data({ kind: "invalid" as const, errors: parsed.errors, values: parsed.values }, { status: 400 });
  }
  const { period } = parsed;
  const range: Period = period.kind === "range" ? period.range : period.window;
  const client = getClickHouse();
  try {
    const [views, sessions, byReferrer, converted, points, live] = await Promise.all([
      pageViews(client, range),
      // Sessions, devices, countries and browsers in one pass over the period's sessions.
      sessionReport(client, range),
      referrers(client, range),
      conversions(client, range),
      traffic(client, range),
      readRealTime(),
    ]);
    return {
      kind: "report" as const,
      period,
      query: periodQuery(period).toString(),
      values: {
        range: period.kind === "range" ? period.range : "custom",
        from: period.kind === "custom" ? period.from : "",
        to: period.kind === "custom" ? period.to : "",
      },
      views,
      activity: sessions.activity,
      countries: sessions.countries,
      browsers: sessions.browsers,
      referrers: byReferrer,
      conversions: converted,
      traffic: points,
      hourly: points.length > 1 && points[1]!.at - points[0]!.at === 3600,
      realTime: live,
    };
  } catch (error) {
    console.error("admin analytics: ClickHouse did not answer", error);
    return data(
      { kind: "unavailable" as const, values: { range: params.get("range") ?? "", from: params.get("from") ?? "", to: params.get("to") ?? "" } },
      { status: 503 },
    );
  }
}

/** Real time, with the members' names in place of their ids ("Visitor" when not signed in). */
async function readRealTime(): Promise<RealTimeView> {
  const live = await realTime(getClickHouse());
  const ids = [...new Set(live.recentActions.map((a) => a.userId).filter((id) => id > 0))];
  const names = new Map<number, string>();
  if (ids.length > 0) for (const u of await getDb()("users").whereIn("id", ids).select("id", "name")) names.set(Number(u.id), u.name);
  return { ...live, recentActions: live.recentActions.map((a) => ({ ...a, user: a.userId > 0 ? (names.get(a.userId) ?? `Member ${a.userId}`) : "Visitor" })) };
}

export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

type Loaded = ReturnType<typeof useLoaderData<typeof loader>>;
type Report = Extract<Loaded, { kind: "report" }>;

const count = (n: number) => n.toLocaleString("en-US");
const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
/** 45s, 1m 43s, 2h 5m. */
function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h ${m}m`;
  return m > 0 ? `${m}m ${s}s` : `${s}s`;
}

export default function AdminAnalytics() {
  const loaded = useLoaderData<typeof loader>();
  const { pathname } = useLocation();
  if (loaded.kind === "realtime") return <RealTime initial={loaded.realTime} />;
  if (loaded.kind === "realtime-failed") return <p role="alert">{loaded.message}</p>;
  return (
    <section className="container analytics-page" aria-labelledby="analytics-title">
      <h1 id="analytics-title">Analytics</h1>
      <InsightLinks base={adminBase(pathname)} />
      <PeriodForm values={loaded.values} errors={loaded.kind === "invalid" ? loaded.errors : {}} />
      {loaded.kind === "invalid" ? <p role="alert">Fix the period above to see the reports.</p> : null}
      {loaded.kind === "unavailable" ? <p role="alert">Failed to fetch stats: analytics are unavailable right now. Try again in a minute.</p> : null}
      {loaded.kind === "report" ? <Reports r={loaded} /> : null}
    </section>
  );
}

/** With JavaScript, picking a date chooses the custom period (without, the select says "Custom dates"). */
function chooseCustom(event: React.ChangeEvent<HTMLInputElement>) {
  const select = event.currentTarget.form?.elements.namedItem("range");
  if (select instanceof HTMLSelectElement) select.value = "custom";
}

function PeriodForm({ values, errors }: { values: { range: string; from: string; to: string }; errors: PeriodErrors }) {
  const navigation = useNavigation();
  const { pathname } = useLocation();
  // The GET form's own navigation: to this page with other parameters.
  const pending = navigation.state === "loading" && navigation.location.pathname === pathname;
  const range = values.range === "" ? "7d" : values.range;
  return (
    <Form method="get" className="period-form" aria-label="Choose the period">
      <div className="field">
        <label htmlFor="period-range">Period</label>
        <select
          id="period-range"
          name="range"
          defaultValue={range}
          aria-invalid={errors.range ? true : undefined}
          aria-describedby={errors.range ? "period-range-error" : undefined}
        >
          {Object.entries(RANGE_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
          <option value="custom">Custom dates (below)</option>
        </select>
        {errors.range ? (
          <span id="period-range-error" className="field-error">
            {errors.range}
          </span>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor="period-from">From (custom)</label>
        <input
          id="period-from"
          name="from"
          type="date"
          defaultValue={values.from}
          onChange={chooseCustom}
          aria-invalid={errors.from ? true : undefined}
          aria-describedby={errors.from ? "period-from-error" : undefined}
        />
        {errors.from ? (
          <span id="period-from-error" className="field-error">
            {errors.from}
          </span>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor="period-to">To (custom)</label>
        <input
          id="period-to"
          name="to"
          type="date"
          defaultValue={values.to}
          onChange={chooseCustom}
          aria-invalid={errors.to ? true : undefined}
          aria-describedby={errors.to ? "period-to-error" : undefined}
        />
        {errors.to ? (
          <span id="period-to-error" className="field-error">
            {errors.to}
          </span>
        ) : null}
      </div>
      <button type="submit" className="button" disabled={pending} aria-disabled={pending}>
        {pending ? "Loading…" : "Show"}
      </button>
    </Form>
  );
}

function Reports({ r }: { r: Report }) {
  const { price } = usePreferences();
  const zone = useTimeZone();
  // Hours in the admin's time zone; days are the reports' UTC days, and say so.
  const bucketZone = r.hourly ? zone : "UTC";
  const day = (at: number) => (r.hourly ? clockTime(at * 1000, zone) : new Date(at * 1000).toISOString().slice(5, 10));
  return (
    <>
      {/* A div: the note's <details> may not sit in a paragraph. */}
      <div className="live-note">
        {r.period.label}. <DefinitionsNote />
      </div>

      <section className="analytics-section" aria-labelledby="pageviews-title">
        <h2 id="pageviews-title">Page views</h2>
        <ul className="analytics-stats" aria-label="Page view figures">
          <Stat label="Page views" value={count(r.views.total)} />
          <Stat label="Unique visitors (sessions)" value={count(r.views.unique)} />
        </ul>
        <LineChart
          title={`Page views and visitors per ${r.hourly ? "hour" : "day"} (${bucketZone})`}
          xLabel={r.hourly ? `Hour (${bucketZone})` : "Day (UTC)"}
          series={["Page views", "Visitors"]}
          points={r.traffic.map((p) => ({ label: day(p.at), values: [p.views, p.sessions] }))}
          empty="No page views in this period."
        />
        <h3>Top pages</h3>
        {r.views.pages.length === 0 ? (
          <p>No page views in this period.</p>
        ) : (
          <table className="analytics-table stack-table" aria-label="Top pages">
            <thead>
              <tr>
                <th scope="col">Page</th>
                <th scope="col" className="number">
                  Views
                </th>
                <th scope="col" className="number">
                  Unique views
                </th>
              </tr>
            </thead>
            <tbody>
              {r.views.pages.map((p) => (
                <tr key={p.page}>
                  <td data-label="Page">{p.page}</td>
                  <td className="number" data-label="Views">
                    {count(p.views)}
                  </td>
                  <td className="number" data-label="Unique views">
                    {count(p.unique_views)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section className="analytics-section" aria-labelledby="sessions-title">
        <h2 id="sessions-title">Sessions</h2>
        <ul className="analytics-stats" aria-label="Session figures">
          <Stat label="Sessions" value={count(r.activity.sessions)} />
          <Stat label="Average session duration" value={duration(r.activity.avgSessionDuration)} />
          <Stat label="Bounce rate" value={percent(r.activity.bounceRate)} />
        </ul>
        <div className="analytics-grid">
          <BarChart
            title="Devices"
            columns={["Device", "Sessions"]}
            data={r.activity.devices.map((d) => ({ label: d.device, value: d.count, note: `${d.percentage}%` }))}
          />
          <BarChart
            title="Browsers"
            columns={["Browser", "Sessions"]}
            data={r.browsers.map((b) => ({ label: b.name, value: b.count, note: `${b.percentage}%` }))}
          />
          <BarChart
            title="Countries"
            columns={["Country", "Sessions"]}
            data={r.countries.map((c) => ({ label: c.country, value: c.users, note: `${c.percentage}%` }))}
          />
          <BarChart
            title="Referrers"
            columns={["Referrer", "Sessions"]}
            data={r.referrers.map((c) => ({ label: c.name, value: c.count, note: `${c.percentage}%` }))}
          />
        </div>
      </section>

      <section className="analytics-section" aria-labelledby="conversions-title">
        <h2 id="conversions-title">Conversions</h2>
        <ul className="analytics-stats" aria-label="Conversion figures">
          <Stat label="Revenue (orders placed)" value={price(r.conversions.revenue)} />
          <Stat label="Orders placed" value={count(r.conversions.orders)} />
          <Stat label="Conversion rate" value={percent(r.conversions.conversionRate)} />
          <Stat label="Signups" value={count(r.conversions.signups)} />
        </ul>
      </section>

      <RealTime initial={r.realTime} />

      <section className="analytics-section" aria-labelledby="export-title">
        <h2 id="export-title">Export</h2>
        <p>Download one report of this period ({r.period.label}) as a CSV file, every row, straight from the analytics store.</p>
        <Form method="get" action="export" reloadDocument className="export-form">
          <input type="hidden" name="range" value={r.values.range} />
          {r.values.range === "custom" ? (
            <>
              <input type="hidden" name="from" value={r.values.from} />
              <input type="hidden" name="to" value={r.values.to} />
            </>
          ) : null}
          <div className="field">
            <label htmlFor="export-report">Report</label>
            <select id="export-report" name="report" defaultValue="pageviews">
              {Object.entries(EXPORT_REPORTS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="button button-secondary">
            Download CSV
          </button>
        </Form>
      </section>
    </>
  );
}

function DefinitionsNote() {
  return (
    <details className="analytics-definitions">
      <summary>How these are counted</summary>
      <ul>
        <li>Periods end now, and the last N days start at the top of the hour N days ago; custom dates are whole days in UTC, both included.</li>
        <li>
          A session is a visitor&apos;s visit with at least one page view or action in the period; its device, browser and country are those it started with.
        </li>
        <li>
          Unique views: sessions that viewed the page. Duration: first to last event of a session. A bounce: one page view and no click, form submit or focus.
        </li>
        <li>Referrer: where a session&apos;s first page view came from; Direct when nowhere.</li>
        <li>
          Conversions are those the server recorded: signups, orders placed (revenue is their value) and gigs published. Conversion rate: share of sessions with
          one.
        </li>
      </ul>
    </details>
  );
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <li className="stat-card">
      <span className="stat-value">{value}</span> <span className="stat-label">{label}</span>
    </li>
  );
}

/** Real time: the loader's figures, then (with JavaScript) this section alone reloaded every 10 s. */
function RealTime({ initial }: { initial: RealTimeView }) {
  const fetcher = useFetcher<typeof loader>({ key: "analytics-realtime" });
  const { pathname } = useLocation();
  const { dateTime } = usePreferences();
  usePolling(REALTIME_MS, () => {
    if (fetcher.state === "idle") fetcher.load(`${pathname}?section=realtime`);
  });
  // The latest figures that came; a failed reload keeps them and says so.
  const [live, setLive] = useState(initial);
  useEffect(() => setLive(initial), [initial]);
  useEffect(() => {
    if (fetcher.data?.kind === "realtime") setLive(fetcher.data.realTime);
  }, [fetcher.data]);
  const failed = fetcher.data?.kind === "realtime-failed" ? fetcher.data.message : null;
  return (
    <section className="analytics-section" aria-labelledby="realtime-title">
      <h2 id="realtime-title">Real time</h2>
      <p className="live-note">The last 5 minutes. Refreshes every 10 seconds with JavaScript.</p>
      {failed ? <p role="status">{failed}; these are the last figures that came.</p> : null}
      <ul className="analytics-stats" aria-label="Real-time figures">
        <Stat label="Active users (last 5 minutes)" value={count(live.activeUsers)} />
      </ul>
      <div className="analytics-grid">
        <BarChart
          title="Current pages"
          columns={["Page", "Visitors"]}
          data={live.currentPages.map((p) => ({ label: p.page, value: p.users }))}
          empty="Nobody is viewing a page right now."
        />
        <div>
          <h3>Recent actions</h3>
          {live.recentActions.length === 0 ? (
            <p>No actions in the last 5 minutes.</p>
          ) : (
            <table className="analytics-table stack-table" aria-label="Recent actions">
              <thead>
                <tr>
                  <th scope="col">Who</th>
                  <th scope="col">Action</th>
                  <th scope="col">When</th>
                </tr>
              </thead>
              <tbody>
                {live.recentActions.map((a, i) => (
                  <tr key={`${a.sessionId}-${a.at}-${i}`}>
                    <td data-label="Who">{a.user}</td>
                    <td data-label="Action">
                      {a.action}
                      {a.page ? ` on ${a.page}` : ""}
                    </td>
                    <td data-label="When">
                      <time dateTime={new Date(a.at * 1000).toISOString()}>{dateTime(new Date(a.at * 1000))}</time>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </div>
    </section>
  );
}
