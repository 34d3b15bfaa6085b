import { data, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { getClickHouse } from "~/analytics/clickhouse.server";
import { memberAnalytics, memberIdParam, rangeParam, readOrFailure } from "~/analytics/insights.server";
import { adminBase, FigureTable, InsightLinks, RangeSelect } from "~/components/analytics-insights";
import { ErrorList } from "~/components/forms";
import { adminScreenAction, adminScreenLoader } from "~/server/admin-area.server";
import { getDb } from "~/server/db.server";
import { usePreferences } from "~/hooks/use-preferences";
import insightsStylesUrl from "~/styles/insights.css?url";
import tablesStylesUrl from "~/styles/admin-tables.css?url";

/**
 * `/users/{id}/analytics` on the admin host, `/admin/users/{id}/analytics` on the main host: a
 * member's own analytics in a range (default 30d): sessions, page views, clicks, devices, browsers, their
 * most viewed pages and their conversions (insights.server.ts).
 */
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: insightsStylesUrl },
  { rel: "stylesheet", href: tablesStylesUrl },
];

export const meta: MetaFunction = () => [{ title: "Member analytics | Soko Admin" }, { name: "robots", content: "noindex" }];

export async function loader({ request, params }: LoaderFunctionArgs) {
  await adminScreenLoader(request);
  const url = new URL(request.url);
  const base = adminBase(url.pathname);
  const { id } = memberIdParam(params.id);
  if (id === null) throw new Response("No member has that id.", { status: 404 });
  const member = await getDb()("users")
    .where({ id })
    .first<{ id: number; name: string; email: string; role: string } | undefined>("id", "name", "email", "role");
  if (!member) throw new Response("No member has that id.", { status: 404 });
  const { range, error } = rangeParam(url.searchParams, "30d");
  if (error) return data({ base, range, error, member, stats: null, failure: null }, { status: 400 });
  const read = await readOrFailure(memberAnalytics(getClickHouse(), id, range), "Failed to fetch user analytics");
  if (!read.ok) return data({ base, range, error, member, stats: null, failure: read.message }, { status: 503 });
  return { base, range, error, member, stats: read.value, failure: null };
}

export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

export default function AdminMemberAnalytics() {
  const { base, range, error, member, stats, failure } = useLoaderData<typeof loader>();
  const { dateTime } = usePreferences();
  return (
    <section className="container insights" aria-labelledby="member-title">
      <h1 id="member-title">Analytics of {member.name}</h1>
      <InsightLinks base={base} />
      <p>
        Member {member.id}, {member.email}, {member.role}. <a href={`${base}/analytics/user-journey/${member.id}?range=${range}`}>Their journey</a>.
      </p>
      <Form method="get" className="insight-form">
        <RangeSelect value={range} error={error} />
        <button type="submit" className="button">
          Show
        </button>
      </Form>
      <ErrorList errors={failure ? [failure] : undefined} />
      {stats ? (
        <>
          <dl className="insight-totals">
            <div>
              <dt>Sessions</dt>
              <dd>{stats.sessions}</dd>
            </div>
            <div>
              <dt>Page views</dt>
              <dd>{stats.pageViews}</dd>
            </div>
            <div>
              <dt>Clicks</dt>
              <dd>{stats.clicks}</dd>
            </div>
            <div>
              <dt>First seen</dt>
              <dd>{stats.firstSeen ? <time dateTime={stats.firstSeen}>{dateTime(stats.firstSeen)}</time> : "Not in the range"}</dd>
            </div>
            <div>
              <dt>Last seen</dt>
              <dd>{stats.lastSeen ? <time dateTime={stats.lastSeen}>{dateTime(stats.lastSeen)}</time> : "Not in the range"}</dd>
            </div>
          </dl>
          {stats.sessions === 0 ? <p>No sessions in the range. Only what a member does signed in, with analytics allowed, carries their id.</p> : null}
          <FigureTable caption="Devices (of each session's first event)" head={["Device", "Sessions", "Share"]}>
            {stats.devices.map((d) => (
              <tr key={d.device}>
                <td>{d.device}</td>
                <td>{d.sessions}</td>
                <td>{d.percentage}%</td>
              </tr>
            ))}
          </FigureTable>
          <FigureTable caption="Browsers" head={["Browser", "Sessions", "Share"]}>
            {stats.browsers.map((b) => (
              <tr key={b.browser}>
                <td>{b.browser}</td>
                <td>{b.sessions}</td>
                <td>{b.percentage}%</td>
              </tr>
            ))}
          </FigureTable>
          <FigureTable caption="Most viewed pages" head={["Page", "Views"]}>
            {stats.pages.map((p) => (
              <tr key={p.page}>
                <td>{p.page}</td>
                <td>{p.views}</td>
              </tr>
            ))}
          </FigureTable>
          <FigureTable caption="Conversions" head={["Conversion", "Count", "Value (UGX)"]}>
            {stats.conversions.map((c) => (
              <tr key={c.type}>
                <td>{c.type.replace(/_/g, " ")}</td>
                <td>{c.count}</td>
                <td>{c.value.toLocaleString("en-US")}</td>
              </tr>
            ))}
          </FigureTable>
        </>
      ) : null}
    </section>
  );
}
