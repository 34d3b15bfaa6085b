import { data, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { getClickHouse } from "~/analytics/clickhouse.server";
import { FUNNEL_STEP_KEY } from "~/analytics/funnel-steps";
import { conversionFunnel, rangeParam, readOrFailure } from "~/analytics/insights.server";
import { adminBase, FigureTable, FunnelChart, InsightLinks, RangeSelect } from "~/components/analytics-insights";
import { ErrorList } from "~/components/forms";
import { adminScreenAction, adminScreenLoader } from "~/server/admin-area.server";
import insightsStylesUrl from "~/styles/insights.css?url";
import tablesStylesUrl from "~/styles/admin-tables.css?url";
import { pageMessages } from "~/i18n/messages.server";
import { metaI18n, useT } from "~/i18n/react";

/**
 * `/analytics/conversion-funnel?range` on the admin host, `/admin/analytics/conversion-funnel` on the main
 * host: visit → gig view → contact or continue → order placed → paid, every step counted in
 * sessions, with the drop-off at each step (insights.server.ts defines each step). Default range 30d.
 */
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: insightsStylesUrl },
  { rel: "stylesheet", href: tablesStylesUrl },
];

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("admin.funnel.title") }, { name: "robots", content: "noindex" }];
};

export async function loader({ request }: LoaderFunctionArgs) {
  await adminScreenLoader(request);
  const url = new URL(request.url);
  const { range, error } = rangeParam(url.searchParams, "30d");
  const base = adminBase(url.pathname);
  const words = await pageMessages(request, ["admin"]);
  if (error) return data({ base, range, error, steps: null, failure: null, ...words }, { status: 400 });
  // The log keeps the English; the page says the catalogue's words.
  const read = await readOrFailure(conversionFunnel(getClickHouse(), range), "Failed to fetch conversion funnel");
  if (!read.ok) return data({ base, range, error, steps: null, failure: "admin.funnel.failed", ...words }, { status: 503 });
  return { base, range, error, steps: read.value, failure: null, ...words };
}

export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

export default function AdminFunnel() {
  const { base, range, error, steps: read, failure } = useLoaderData<typeof loader>();
  const { t } = useT();
  const steps = read?.map((s) => ({ ...s, label: t(FUNNEL_STEP_KEY[s.key]) }));
  return (
    <section className="container insights" aria-labelledby="funnel-title">
      <h1 id="funnel-title">{t("admin.funnel.heading")}</h1>
      <InsightLinks base={base} />
      <Form method="get" className="insight-form">
        <RangeSelect value={range} error={error} />
        <button type="submit" className="button">
          {t("admin.funnel.show")}
        </button>
      </Form>
      <ErrorList errors={failure ? [failure] : undefined} />
      {steps ? (
        <>
          <FunnelChart title={t("admin.funnel.heading")} steps={steps} />
          <FigureTable caption={t("admin.funnel.caption")} head={[t("admin.funnel.colStep"), t("admin.funnel.colCount"), t("admin.funnel.colDropOff")]}>
            {steps.map((s) => (
              <tr key={s.key}>
                <th scope="row">{s.label}</th>
                <td>{s.count}</td>
                <td>{s.dropOff === null ? "—" : `${s.dropOff}%`}</td>
              </tr>
            ))}
          </FigureTable>
          <p className="field-hint">{t("admin.funnel.definition")}</p>
        </>
      ) : null}
    </section>
  );
}
