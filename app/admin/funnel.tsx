import { data, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { getClickHouse } from "~/analytics/clickhouse.server";
import { conversionFunnel, rangeParam, readOrFailure } from "~/analytics/insights.server";
import { adminBase, FigureTable, FunnelChart, InsightLinks, RangeSelect } from "~/components/analytics-insights";
import { ErrorList } from "~/components/forms";
import { adminScreenAction, adminScreenLoader } from "~/server/admin-area.server";
import insightsStylesUrl from "~/styles/insights.css?url";
import tablesStylesUrl from "~/styles/admin-tables.css?url";

/**
 * `/analytics/conversion-funnel?range` on the admin host, `/admin/analytics/conversion-funnel` on the main
 * host: visit → gig view → contact or continue → order placed → paid, every step counted in
 * sessions, with the drop-off at each step (insights.server.ts defines each step). Default range 30d.
 */
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: insightsStylesUrl },
  { rel: "stylesheet", href: tablesStylesUrl },
];

export const meta: MetaFunction = () => [{ title: "Conversion funnel | Soko Admin" }, { name: "robots", content: "noindex" }];

export async function loader({ request }: LoaderFunctionArgs) {
  await adminScreenLoader(request);
  const url = new URL(request.url);
  const { range, error } = rangeParam(url.searchParams, "30d");
  const base = adminBase(url.pathname);
  if (error) return data({ base, range, error, steps: null, failure: null }, { status: 400 });
  const read = await readOrFailure(conversionFunnel(getClickHouse(), range), "Failed to fetch conversion funnel");
  if (!read.ok) return data({ base, range, error, steps: null, failure: read.message }, { status: 503 });
  return { base, range, error, steps: read.value, failure: null };
}

export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

export default function AdminFunnel() {
  const { base, range, error, steps, failure } = useLoaderData<typeof loader>();
  return (
    <section className="container insights" aria-labelledby="funnel-title">
      <h1 id="funnel-title">Conversion funnel</h1>
      <InsightLinks base={base} />
      <Form method="get" className="insight-form">
        <RangeSelect value={range} error={error} />
        <button type="submit" className="button">
          Show funnel
        </button>
      </Form>
      <ErrorList errors={failure ? [failure] : undefined} />
      {steps ? (
        <>
          <FunnelChart title="Conversion funnel" steps={steps} />
          <FigureTable caption="Each step, with the share lost since the step before" head={["Step", "Count", "Drop-off"]}>
            {steps.map((s) => (
              <tr key={s.key}>
                <th scope="row">{s.label}</th>
                <td>{s.count}</td>
                <td>{s.dropOff === null ? "—" : `${s.dropOff}%`}</td>
              </tr>
            ))}
          </FigureTable>
          <p className="field-hint">
            Every step counts sessions, each of them among the step before: a session with a page view; of those, one that viewed a gig (/gig/:id); of those,
            one that went on to the order form or to messages, or chose a package or contacted the seller; of those, one in which an order was placed (as the
            server recorded it; several orders count once); of those, one whose order was then paid.
          </p>
        </>
      ) : null}
    </section>
  );
}
