import { data, redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation, useRevalidator } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { getClickHouse } from "~/analytics/clickhouse.server";
import { replayFailed } from "~/analytics/pipeline-replay.server";
import { failedEntries, pipelineCounts, queueHealth } from "~/analytics/pipeline-stats.server";
import { adminBase, clockTime, FigureTable, InsightLinks, LineChart, useTimeZone } from "~/components/analytics-insights";
import { usePreferences } from "~/hooks/use-preferences";
import { FormMessage } from "~/components/forms";
import { SmsTotalsTable } from "~/components/admin-sms-totals";
import { smsTotals } from "~/models/sms.server";
import { getDb } from "~/server/db.server";
import { adminScreenLoader } from "~/server/admin-area.server";
import { requireMemberActor } from "~/server/auth.server";
import { getEnv } from "~/server/env.server";
import { readFormData } from "~/server/form-data.server";
import { failureStatus } from "~/server/operation-results.server";
import { getRedis } from "~/server/redis.server";
import insightsStylesUrl from "~/styles/insights.css?url";
import tablesStylesUrl from "~/styles/admin-tables.css?url";
import { messageOf } from "~/content/operation-messages";
import { requestLocale } from "~/i18n/locale.server";
import { pageMessages } from "~/i18n/messages.server";
import { metaI18n, T, useT } from "~/i18n/react";

/**
 * `/pipeline` on the admin host, `/admin/pipeline` on the main host (app/utils/site-routes.ts): the analytics
 * pipeline's health. Events accepted, inserted, dropped (by reason) and failed per minute over the last day
 * (pipeline-stats.server.ts: ClickHouse's pipeline_minutes plus the minutes still in Redis), the queue's
 * depth and lag, and the failed events (the dead letters) with Replay (POST, audited as pipeline.replay).
 */
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: insightsStylesUrl },
  { rel: "stylesheet", href: tablesStylesUrl },
];

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("admin.pipeline.title") }, { name: "robots", content: "noindex" }];
};

/** Redis or ClickHouse not answering must not hold the page: each part says so instead. */
function within<T>(promise: Promise<T>, ms = 5_000): Promise<T | null> {
  return Promise.race([promise.catch(() => null), new Promise<null>((resolve) => setTimeout(() => resolve(null), ms).unref())]);
}

export async function loader({ request }: LoaderFunctionArgs) {
  await adminScreenLoader(request);
  const prefix = getEnv().QUEUE_PREFIX;
  const now = new Date();
  const [counts, health, failed] = await Promise.all([
    within(pipelineCounts(getClickHouse(), getRedis(), prefix, { now })),
    within(queueHealth(getRedis(), prefix, now.getTime())),
    within(failedEntries(getRedis(), prefix, 50)),
  ]);
  const [smsToday, smsWeek] = await Promise.all([smsTotals(getDb(), 1), smsTotals(getDb(), 7)]);
  const url = new URL(request.url);
  const params = url.searchParams;
  const replayed = params.get("replayed");
  return {
    counts,
    health,
    failed,
    sms: { today: smsToday, week: smsWeek },
    replayed: replayed && /^\d{1,7}$/.test(replayed) ? Number(replayed) : null,
    now: now.toISOString(),
    base: adminBase(url.pathname),
    ...(await pageMessages(request, ["admin"])),
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  await adminScreenLoader(request);
  const actor = await requireMemberActor(request, context.clientIp);
  const form = await readFormData(request);
  // Keys (FormMessage says them) or the operation's words in the admin's language.
  if (form.get("intent") !== "replay") return data({ error: "admin.pipeline.chooseReplay" }, { status: 400 });
  const result = await replayFailed(actor, getRedis(), getEnv().QUEUE_PREFIX);
  if (!result.ok) {
    const locale = await requestLocale(request);
    if (result.error === "not_found" || result.error === "forbidden") throw new Response(messageOf(result, locale), { status: failureStatus(result) });
    return data({ error: result.error === "invalid" ? "admin.pipeline.couldNotReplay" : messageOf(result, locale) }, { status: failureStatus(result) });
  }
  return redirect(`${new URL(request.url).pathname}?replayed=${result.value.entries}`, 303);
}

/** With JavaScript the figures are read again this often while the tab is visible. */
const REFRESH_MS = 30_000;

function useRefresh(ms: number) {
  const revalidator = useRevalidator();
  const latest = useRef(revalidator);
  latest.current = revalidator;
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === "visible" && latest.current.state === "idle") latest.current.revalidate();
    }, ms);
    return () => clearInterval(timer);
  }, [ms]);
}

const COLOURS = { accepted: "#1f77b4", inserted: "#2ca02c", dropped: "#ff7f0e", failed: "#d62728" } as const;
/** Each line's name in the chart's legend. */
const SERIES_WORDS: Record<keyof typeof COLOURS, string> = {
  accepted: "admin.pipeline.seriesAccepted",
  inserted: "admin.pipeline.seriesInserted",
  dropped: "admin.pipeline.seriesDropped",
  failed: "admin.pipeline.seriesFailed",
};

export default function AdminPipeline() {
  const { counts, health, failed, sms, replayed, now, base } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const navigation = useNavigation();
  const replaying = navigation.state === "submitting" && navigation.formData?.get("intent") === "replay";
  useRefresh(REFRESH_MS);
  const { dateTime } = usePreferences();
  const { t } = useT();
  return (
    <section className="container pipeline" aria-labelledby="pipeline-title">
      <h1 id="pipeline-title">{t("admin.pipeline.heading")}</h1>
      <InsightLinks base={base} />
      <p>
        <T id="admin.pipeline.lead" values={{ at: dateTime(now) }} components={{ 0: <time dateTime={now} /> }} />
      </p>
      <FormMessage errors={answer ? [answer.error] : undefined} success={replayed === null ? null : t("admin.pipeline.replayed", { count: replayed })} />

      <h2>{t("admin.pipeline.last24h")}</h2>
      {counts ? <Counts counts={counts} /> : <p role="alert">{t("admin.pipeline.countersUnavailable")}</p>}

      <h2 id="sms-title">{t("admin.sms.title")}</h2>
      <SmsTotalsTable today={sms.today} week={sms.week} />

      <h2>{t("admin.pipeline.queue")}</h2>
      {health ? (
        <dl className="pipeline-queue">
          <div>
            <dt>{t("admin.pipeline.waiting")}</dt>
            <dd>{health.waiting}</dd>
          </div>
          <div>
            <dt>{t("admin.pipeline.beingInserted")}</dt>
            <dd>{health.active}</dd>
          </div>
          <div>
            <dt>{t("admin.pipeline.failed")}</dt>
            <dd>{health.failed}</dd>
          </div>
          <div>
            <dt>{t("admin.pipeline.lag")}</dt>
            <dd>{health.oldestWaitingAt ? t("admin.pipeline.seconds", { s: Math.round(health.lagMs / 1000) }) : t("admin.pipeline.noneWaiting")}</dd>
          </div>
        </dl>
      ) : (
        <p role="alert">{t("admin.pipeline.queueUnavailable")}</p>
      )}

      <h2>{t("admin.pipeline.failedEvents")}</h2>
      {failed === null ? (
        <p role="alert">{t("admin.pipeline.failedUnavailable")}</p>
      ) : failed.length === 0 ? (
        <p>{t("admin.pipeline.noFailed")}</p>
      ) : (
        <>
          <FigureTable
            caption={
              health && health.failed > failed.length
                ? t("admin.pipeline.failedJobsOf", { shown: failed.length, total: health.failed })
                : t("admin.pipeline.failedJobs", { shown: failed.length })
            }
            head={[
              t("admin.pipeline.colJob"),
              t("admin.pipeline.colEvents"),
              t("admin.pipeline.colWhy"),
              t("admin.pipeline.colQueued"),
              t("admin.pipeline.failed"),
            ]}
          >
            {failed.map((job) => (
              <tr key={job.id}>
                <td>{job.id}</td>
                <td>{job.events}</td>
                <td>{job.reason}</td>
                <td>
                  <time dateTime={job.queuedAt}>{dateTime(job.queuedAt)}</time>
                </td>
                <td>{job.failedAt ? <time dateTime={job.failedAt}>{dateTime(job.failedAt)}</time> : ""}</td>
              </tr>
            ))}
          </FigureTable>
          <Form method="post">
            <p className="field-hint">{t("admin.pipeline.replayHint")}</p>
            <button type="submit" className="button" name="intent" value="replay" disabled={replaying}>
              {replaying ? t("admin.pipeline.replaying") : t("admin.pipeline.replay")}
            </button>
          </Form>
        </>
      )}
    </section>
  );
}

type Loaded = ReturnType<typeof useLoaderData<typeof loader>>;

function Counts({ counts }: { counts: NonNullable<Loaded["counts"]> }) {
  const zone = useTimeZone();
  const { dateTime } = usePreferences();
  const { t } = useT();
  const start = counts.from;
  const steps = Math.round((counts.to - counts.from) / 60);
  const byMinute = new Map(counts.minutes.map((m) => [Math.floor(Date.parse(m.minute) / 1000), m]));
  const series = (["accepted", "inserted", "dropped", "failed"] as const).map((name) => ({
    name: t(SERIES_WORDS[name]),
    colour: COLOURS[name],
    values: Array.from({ length: steps }, (_, i) => byMinute.get(start + i * 60)?.[name] ?? 0),
  }));
  const labels: [number, string][] = [0, Math.round(steps / 4), Math.round(steps / 2), Math.round((3 * steps) / 4), steps - 1].map((i) => [
    i,
    clockTime((start + i * 60) * 1000, zone),
  ]);
  const reasons = Object.entries(counts.totals.droppedBy).sort(([a], [b]) => a.localeCompare(b));
  const totals = counts.totals;
  return (
    <>
      <dl className="pipeline-totals">
        <div>
          <dt>{t("admin.pipeline.accepted")}</dt>
          <dd>{totals.accepted}</dd>
        </div>
        <div>
          <dt>{t("admin.pipeline.inserted")}</dt>
          <dd>{totals.inserted}</dd>
        </div>
        <div>
          <dt>{t("admin.pipeline.dropped")}</dt>
          <dd>{totals.dropped}</dd>
        </div>
        <div>
          <dt>{t("admin.pipeline.failed")}</dt>
          <dd>{totals.failed}</dd>
        </div>
      </dl>
      <LineChart title={t("admin.pipeline.chartTitle", { zone })} series={series} labels={labels} />
      {reasons.length > 0 ? (
        <FigureTable caption={t("admin.pipeline.droppedCaption")} head={[t("admin.pipeline.colReason"), t("admin.pipeline.colEvents")]}>
          {reasons.map(([reason, n]) => (
            <tr key={reason}>
              <td>{reason.replace(/_/g, " ")}</td>
              <td>{n}</td>
            </tr>
          ))}
        </FigureTable>
      ) : null}
      {counts.minutes.length === 0 ? (
        <p>{t("admin.pipeline.noEvents")}</p>
      ) : (
        <details>
          <summary>{t("admin.pipeline.perMinute", { count: counts.minutes.length })}</summary>
          <FigureTable
            caption={t("admin.pipeline.perMinuteCaption", { zone })}
            head={[
              t("admin.pipeline.colMinute"),
              t("admin.pipeline.accepted"),
              t("admin.pipeline.inserted"),
              t("admin.pipeline.dropped"),
              t("admin.pipeline.failed"),
              t("admin.pipeline.colDroppedBy"),
            ]}
          >
            {[...counts.minutes].reverse().map((m) => (
              <tr key={m.minute}>
                <td>
                  <time dateTime={m.minute}>{dateTime(m.minute)}</time>
                </td>
                <td>{m.accepted}</td>
                <td>{m.inserted}</td>
                <td>{m.dropped}</td>
                <td>{m.failed}</td>
                <td>
                  {Object.entries(m.droppedBy)
                    .map(([reason, n]) => `${reason.replace(/_/g, " ")} ${n}`)
                    .join(", ")}
                </td>
              </tr>
            ))}
          </FigureTable>
        </details>
      )}
    </>
  );
}
