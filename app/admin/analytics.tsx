import { data, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useFetcher, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { getClickHouse } from "~/analytics/clickhouse.server";
import { EXPORT_REPORTS, parsePeriod, periodQuery, type ExportReport, type PeriodChoice, type PeriodErrors } from "~/analytics/period";
import { conversions, pageViews, realTime, referrers, sessionReport, traffic, type Period, type RealTimeReport } from "~/analytics/reports.server";
import { adminBase, clockTime, InsightLinks, useTimeZone } from "~/components/analytics-insights";
import { BarChart, LineChart } from "~/components/charts";
import { usePolling } from "~/hooks/use-polling";
import analyticsStylesUrl from "~/styles/admin-analytics.css?url";
import tablesStylesUrl from "~/styles/admin-tables.css?url";
import { adminScreenAction, adminScreenLoader } from "~/server/admin-area.server";
import { getDb } from "~/server/db.server";
import { usePreferences } from "~/hooks/use-preferences";
import { RANGE_LABEL_KEYS } from "~/analytics/ranges";
import { pageMessages } from "~/i18n/messages.server";
import { metaI18n, useT } from "~/i18n/react";
import { log } from "~/server/log.server";

/**
 * `/analytics` on the admin host, `/admin/analytics` on the main host (app/utils/site-routes.ts): the
 * analytics reports (docs/product.md, Analytics) for a period (a GET form: 1d, 7d, 30d, 90d, default 7d, or custom
 * days, at most a year; anything else is a 400 with the message by its field), real time (refreshed every
 * 10 s with JavaScript, that section alone), and the CSV export (app/admin/analytics-export.tsx).
 */
export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("admin.analytics.title") }, { name: "robots", content: "noindex" }];
};
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: analyticsStylesUrl },
  { rel: "stylesheet", href: tablesStylesUrl },
];

/** Analytics real time is polled every 10 seconds (docs/product.md). */
const REALTIME_MS = 10_000;

/** `user`: the member's name, or null for a visitor not signed in (and a member gone since). */
type RealTimeView = Omit<RealTimeReport, "recentActions"> & { recentActions: (RealTimeReport["recentActions"][number] & { user: string | null })[] };

export async function loader({ request }: LoaderFunctionArgs) {
  await adminScreenLoader(request);
  const params = new URL(request.url).searchParams;
  if (params.get("section") === "realtime") {
    // The section's own reload (the page's words came with the page): a failure answers 503 with the screen's own
    // message (thrown, it would replace the page). The failure brings the screen's words too: asked for as a
    // document, the answer is drawn as a page of its own (a rare answer, so the figures' reloads stay small).
    try {
      return { kind: "realtime" as const, realTime: await readRealTime() };
    } catch (error) {
      log.error({ err: error }, "admin analytics: real time unavailable");
      const words = await pageMessages(request, ["admin"]);
      return data({ kind: "realtime-failed" as const, message: "admin.analytics.realtimeFailed", ...words }, { status: 503 });
    }
  }
  const words = await pageMessages(request, ["admin"]);
  const parsed = parsePeriod(params);
  if (!parsed.ok) {
    return data({ kind: "invalid" as const, errors: parsed.errors, values: parsed.values, ...words }, { status: 400 });
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
      ...words,
    };
  } catch (error) {
    log.error({ err: error }, "admin analytics: ClickHouse did not answer");
    return data(
      { kind: "unavailable" as const, values: { range: params.get("range") ?? "", from: params.get("from") ?? "", to: params.get("to") ?? "" }, ...words },
      { status: 503 },
    );
  }
}

/** Real time, with the members' names in place of their ids (null when not signed in: the screen says "Visitor"). */
async function readRealTime(): Promise<RealTimeView> {
  const live = await realTime(getClickHouse());
  const ids = [...new Set(live.recentActions.map((a) => a.userId).filter((id) => id > 0))];
  const names = new Map<number, string>();
  if (ids.length > 0) for (const u of await getDb()("users").whereIn("id", ids).select("id", "name")) names.set(Number(u.id), u.name);
  return { ...live, recentActions: live.recentActions.map((a) => ({ ...a, user: a.userId > 0 ? (names.get(a.userId) ?? null) : null })) };
}

export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

type Loaded = ReturnType<typeof useLoaderData<typeof loader>>;
type Report = Extract<Loaded, { kind: "report" }>;

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
/** 45s, 1m 43s, 2h 5m. */
function duration(t: ReturnType<typeof useT>["t"], seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return t("admin.analytics.durationHours", { h, m });
  return m > 0 ? t("admin.analytics.durationMinutes", { m, s }) : t("admin.analytics.durationSeconds", { s });
}

/** The export's reports in words (EXPORT_REPORTS in period.ts holds the English). */
const REPORT_WORDS: Record<ExportReport, string> = {
  pageviews: "admin.analytics.reportPageviews",
  pages: "admin.analytics.reportPages",
  sessions: "admin.analytics.reportSessions",
  actions: "admin.analytics.reportActions",
  conversions: "admin.analytics.reportConversions",
};

/** The period's name: a range's ("Last 7 days"), or custom days ("2026-01-01 to 2026-01-31 (UTC)"). */
function periodLabel(t: ReturnType<typeof useT>["t"], period: PeriodChoice): string {
  if (period.kind === "range") return t(RANGE_LABEL_KEYS[period.range]);
  return period.from === period.to
    ? t("admin.analytics.periodDay", { from: period.from })
    : t("admin.analytics.periodDays", { from: period.from, to: period.to });
}

export default function AdminAnalytics() {
  const loaded = useLoaderData<typeof loader>();
  const { pathname } = useLocation();
  const { t } = useT();
  if (loaded.kind === "realtime") return <RealTime initial={loaded.realTime} />;
  if (loaded.kind === "realtime-failed") return <p role="alert">{t(loaded.message)}</p>;
  return (
    <section className="container analytics-page" aria-labelledby="analytics-title">
      <h1 id="analytics-title">{t("admin.analytics.heading")}</h1>
      <InsightLinks base={adminBase(pathname)} />
      <PeriodForm values={loaded.values} errors={loaded.kind === "invalid" ? loaded.errors : {}} />
      {loaded.kind === "invalid" ? <p role="alert">{t("admin.analytics.fixPeriod")}</p> : null}
      {loaded.kind === "unavailable" ? <p role="alert">{t("admin.analytics.unavailable")}</p> : null}
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
  const { t } = useT();
  return (
    <Form method="get" className="period-form" aria-label={t("admin.analytics.choosePeriod")}>
      <div className="field">
        <label htmlFor="period-range">{t("admin.analytics.period")}</label>
        <select
          id="period-range"
          name="range"
          defaultValue={range}
          aria-invalid={errors.range ? true : undefined}
          aria-describedby={errors.range ? "period-range-error" : undefined}
        >
          {Object.entries(RANGE_LABEL_KEYS).map(([value, label]) => (
            <option key={value} value={value}>
              {t(label)}
            </option>
          ))}
          <option value="custom">{t("admin.analytics.customDates")}</option>
        </select>
        {errors.range ? (
          <span id="period-range-error" className="field-error">
            {t(errors.range)}
          </span>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor="period-from">{t("admin.analytics.from")}</label>
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
            {t(errors.from)}
          </span>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor="period-to">{t("admin.analytics.to")}</label>
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
            {t(errors.to)}
          </span>
        ) : null}
      </div>
      <button type="submit" className="button" disabled={pending} aria-disabled={pending}>
        {pending ? t("admin.analytics.loading") : t("admin.analytics.show")}
      </button>
    </Form>
  );
}

function Reports({ r }: { r: Report }) {
  const { price, number: count } = usePreferences();
  const { t } = useT();
  const zone = useTimeZone();
  const label = periodLabel(t, r.period);
  // Hours in the admin's time zone; days are the reports' UTC days, and say so.
  const bucketZone = r.hourly ? zone : "UTC";
  const day = (at: number) => (r.hourly ? clockTime(at * 1000, zone) : new Date(at * 1000).toISOString().slice(5, 10));
  return (
    <>
      {/* A div: the note's <details> may not sit in a paragraph. */}
      <div className="live-note">
        {label}. <DefinitionsNote />
      </div>

      <section className="analytics-section" aria-labelledby="pageviews-title">
        <h2 id="pageviews-title">{t("admin.analytics.pageViews")}</h2>
        <ul className="analytics-stats" aria-label={t("admin.analytics.pageViewFigures")}>
          <Stat label={t("admin.analytics.pageViews")} value={count(r.views.total)} />
          <Stat label={t("admin.analytics.uniqueVisitors")} value={count(r.views.unique)} />
        </ul>
        <LineChart
          title={r.hourly ? t("admin.analytics.trafficPerHour", { zone: bucketZone }) : t("admin.analytics.trafficPerDay", { zone: bucketZone })}
          xLabel={r.hourly ? t("admin.analytics.hour", { zone: bucketZone }) : t("admin.analytics.dayUtc")}
          series={[t("admin.analytics.pageViews"), t("admin.analytics.visitors")]}
          points={r.traffic.map((p) => ({ label: day(p.at), values: [p.views, p.sessions] }))}
          empty={t("admin.analytics.noPageViews")}
        />
        <h3>{t("admin.analytics.topPages")}</h3>
        {r.views.pages.length === 0 ? (
          <p>{t("admin.analytics.noPageViews")}</p>
        ) : (
          <table className="analytics-table stack-table" aria-label={t("admin.analytics.topPages")}>
            <thead>
              <tr>
                <th scope="col">{t("admin.analytics.colPage")}</th>
                <th scope="col" className="number">
                  {t("admin.analytics.colViews")}
                </th>
                <th scope="col" className="number">
                  {t("admin.analytics.colUniqueViews")}
                </th>
              </tr>
            </thead>
            <tbody>
              {r.views.pages.map((p) => (
                <tr key={p.page}>
                  <td data-label={t("admin.analytics.colPage")}>{p.page}</td>
                  <td className="number" data-label={t("admin.analytics.colViews")}>
                    {count(p.views)}
                  </td>
                  <td className="number" data-label={t("admin.analytics.colUniqueViews")}>
                    {count(p.unique_views)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section className="analytics-section" aria-labelledby="sessions-title">
        <h2 id="sessions-title">{t("admin.analytics.sessions")}</h2>
        <ul className="analytics-stats" aria-label={t("admin.analytics.sessionFigures")}>
          <Stat label={t("admin.analytics.sessions")} value={count(r.activity.sessions)} />
          <Stat label={t("admin.analytics.avgDuration")} value={duration(t, r.activity.avgSessionDuration)} />
          <Stat label={t("admin.analytics.bounceRate")} value={percent(r.activity.bounceRate)} />
        </ul>
        <div className="analytics-grid">
          <BarChart
            title={t("admin.analytics.devices")}
            columns={[t("admin.analytics.colDevice"), t("admin.analytics.sessions")]}
            data={r.activity.devices.map((d) => ({ label: d.device, value: d.count, note: `${d.percentage}%` }))}
          />
          <BarChart
            title={t("admin.analytics.browsers")}
            columns={[t("admin.analytics.colBrowser"), t("admin.analytics.sessions")]}
            data={r.browsers.map((b) => ({ label: b.name, value: b.count, note: `${b.percentage}%` }))}
          />
          <BarChart
            title={t("admin.analytics.countries")}
            columns={[t("admin.analytics.colCountry"), t("admin.analytics.sessions")]}
            data={r.countries.map((c) => ({ label: c.country, value: c.users, note: `${c.percentage}%` }))}
          />
          <BarChart
            title={t("admin.analytics.referrers")}
            columns={[t("admin.analytics.colReferrer"), t("admin.analytics.sessions")]}
            data={r.referrers.map((c) => ({ label: c.name, value: c.count, note: `${c.percentage}%` }))}
          />
        </div>
      </section>

      <section className="analytics-section" aria-labelledby="conversions-title">
        <h2 id="conversions-title">{t("admin.analytics.conversions")}</h2>
        <ul className="analytics-stats" aria-label={t("admin.analytics.conversionFigures")}>
          <Stat label={t("admin.analytics.revenue")} value={price(r.conversions.revenue)} />
          <Stat label={t("admin.analytics.ordersPlaced")} value={count(r.conversions.orders)} />
          <Stat label={t("admin.analytics.conversionRate")} value={percent(r.conversions.conversionRate)} />
          <Stat label={t("admin.analytics.signups")} value={count(r.conversions.signups)} />
        </ul>
      </section>

      <RealTime initial={r.realTime} />

      <section className="analytics-section" aria-labelledby="export-title">
        <h2 id="export-title">{t("admin.analytics.export")}</h2>
        <p>{t("admin.analytics.exportLead", { period: label })}</p>
        <Form method="get" action="export" reloadDocument className="export-form">
          <input type="hidden" name="range" value={r.values.range} />
          {r.values.range === "custom" ? (
            <>
              <input type="hidden" name="from" value={r.values.from} />
              <input type="hidden" name="to" value={r.values.to} />
            </>
          ) : null}
          <div className="field">
            <label htmlFor="export-report">{t("admin.analytics.report")}</label>
            <select id="export-report" name="report" defaultValue="pageviews">
              {(Object.keys(EXPORT_REPORTS) as ExportReport[]).map((value) => (
                <option key={value} value={value}>
                  {t(REPORT_WORDS[value])}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="button button-secondary">
            {t("admin.analytics.downloadCsv")}
          </button>
        </Form>
      </section>
    </>
  );
}

function DefinitionsNote() {
  const { t } = useT();
  return (
    <details className="analytics-definitions">
      <summary>{t("admin.analytics.howCounted")}</summary>
      <ul>
        <li>{t("admin.analytics.defPeriods")}</li>
        <li>{t("admin.analytics.defSession")}</li>
        <li>{t("admin.analytics.defUnique")}</li>
        <li>{t("admin.analytics.defReferrer")}</li>
        <li>{t("admin.analytics.defConversions")}</li>
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
  const { dateTime, number: count } = usePreferences();
  const { t } = useT();
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
      <h2 id="realtime-title">{t("admin.analytics.realTime")}</h2>
      <p className="live-note">{t("admin.analytics.realTimeNote")}</p>
      {failed ? <p role="status">{t("admin.analytics.realtimeStale", { failure: t(failed) })}</p> : null}
      <ul className="analytics-stats" aria-label={t("admin.analytics.realTimeFigures")}>
        <Stat label={t("admin.analytics.activeUsers")} value={count(live.activeUsers)} />
      </ul>
      <div className="analytics-grid">
        <BarChart
          title={t("admin.analytics.currentPages")}
          columns={[t("admin.analytics.colPage"), t("admin.analytics.visitors")]}
          data={live.currentPages.map((p) => ({ label: p.page, value: p.users }))}
          empty={t("admin.analytics.nobodyViewing")}
        />
        <div>
          <h3>{t("admin.analytics.recentActions")}</h3>
          {live.recentActions.length === 0 ? (
            <p>{t("admin.analytics.noActions")}</p>
          ) : (
            <table className="analytics-table stack-table" aria-label={t("admin.analytics.recentActions")}>
              <thead>
                <tr>
                  <th scope="col">{t("admin.analytics.colWho")}</th>
                  <th scope="col">{t("admin.analytics.colAction")}</th>
                  <th scope="col">{t("admin.analytics.colWhen")}</th>
                </tr>
              </thead>
              <tbody>
                {live.recentActions.map((a, i) => (
                  <tr key={`${a.sessionId}-${a.at}-${i}`}>
                    <td data-label={t("admin.analytics.colWho")}>
                      {a.user ?? (a.userId > 0 ? t("admin.analytics.memberNumber", { id: a.userId }) : t("admin.analytics.visitor"))}
                    </td>
                    <td data-label={t("admin.analytics.colAction")}>{a.page ? t("admin.analytics.actionOn", { action: a.action, page: a.page }) : a.action}</td>
                    <td data-label={t("admin.analytics.colWhen")}>
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
