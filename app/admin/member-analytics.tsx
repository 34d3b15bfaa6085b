import { data, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { getClickHouse } from "~/analytics/clickhouse.server";
import { memberAnalytics, memberIdParam, rangeParam, readOrFailure } from "~/analytics/insights.server";
import { adminBase, FigureTable, InsightLinks, PlainLink, RangeSelect } from "~/components/analytics-insights";
import { ErrorList } from "~/components/forms";
import { adminScreenAction, adminScreenLoader } from "~/server/admin-area.server";
import { getDb } from "~/server/db.server";
import { usePreferences } from "~/hooks/use-preferences";
import insightsStylesUrl from "~/styles/insights.css?url";
import tablesStylesUrl from "~/styles/admin-tables.css?url";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { metaI18n, T, useT } from "~/i18n/react";

/**
 * `/users/{id}/analytics` on the admin host, `/admin/users/{id}/analytics` on the main host: a
 * member's own analytics in a range (default 30d): sessions, page views, clicks, devices, browsers, their
 * most viewed pages and their conversions (insights.server.ts).
 */
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: insightsStylesUrl },
  { rel: "stylesheet", href: tablesStylesUrl },
];

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("admin.member.title") }, { name: "robots", content: "noindex" }];
};

export async function loader({ request, params }: LoaderFunctionArgs) {
  await adminScreenLoader(request);
  const url = new URL(request.url);
  const base = adminBase(url.pathname);
  const { id } = memberIdParam(params.id);
  if (id === null) throw new Response((await requestT(request))("admin.member.notFound"), { status: 404 });
  const member = await getDb()("users")
    .where({ id })
    .first<{ id: number; name: string; email: string; role: string } | undefined>("id", "name", "email", "role");
  if (!member) throw new Response((await requestT(request))("admin.member.notFound"), { status: 404 });
  const { range, error } = rangeParam(url.searchParams, "30d");
  const words = await pageMessages(request, ["admin"]);
  if (error) return data({ base, range, error, member, stats: null, failure: null, ...words }, { status: 400 });
  // The log keeps the English; the page says the catalogue's words.
  const read = await readOrFailure(memberAnalytics(getClickHouse(), id, range), "Failed to fetch user analytics");
  if (!read.ok) return data({ base, range, error, member, stats: null, failure: "admin.member.failed", ...words }, { status: 503 });
  return { base, range, error, member, stats: read.value, failure: null, ...words };
}

export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

/** A member's role in words, in the sentence (the roles a member can have; one not listed reads as itself). */
const ROLE_WORDS: Record<string, string> = { client: "admin.member.roleClient", freelancer: "admin.member.roleFreelancer", admin: "admin.member.roleAdmin" };

export default function AdminMemberAnalytics() {
  const { base, range, error, member, stats, failure } = useLoaderData<typeof loader>();
  const { dateTime, number } = usePreferences();
  const { t } = useT();
  const role = ROLE_WORDS[member.role];
  return (
    <section className="container insights" aria-labelledby="member-title">
      <h1 id="member-title">{t("admin.member.heading", { name: member.name })}</h1>
      <InsightLinks base={base} />
      <p>
        <T
          id="admin.member.about"
          values={{ id: member.id, email: member.email, role: role ? t(role) : member.role }}
          components={{ 0: <PlainLink href={`${base}/analytics/user-journey/${member.id}?range=${range}`} /> }}
        />
      </p>
      <Form method="get" className="insight-form">
        <RangeSelect value={range} error={error} />
        <button type="submit" className="button">
          {t("admin.member.show")}
        </button>
      </Form>
      <ErrorList errors={failure ? [failure] : undefined} />
      {stats ? (
        <>
          <dl className="insight-totals">
            <div>
              <dt>{t("admin.member.sessions")}</dt>
              <dd>{stats.sessions}</dd>
            </div>
            <div>
              <dt>{t("admin.member.pageViews")}</dt>
              <dd>{stats.pageViews}</dd>
            </div>
            <div>
              <dt>{t("admin.member.clicks")}</dt>
              <dd>{stats.clicks}</dd>
            </div>
            <div>
              <dt>{t("admin.member.firstSeen")}</dt>
              <dd>{stats.firstSeen ? <time dateTime={stats.firstSeen}>{dateTime(stats.firstSeen)}</time> : t("admin.member.notInRange")}</dd>
            </div>
            <div>
              <dt>{t("admin.member.lastSeen")}</dt>
              <dd>{stats.lastSeen ? <time dateTime={stats.lastSeen}>{dateTime(stats.lastSeen)}</time> : t("admin.member.notInRange")}</dd>
            </div>
          </dl>
          {stats.sessions === 0 ? <p>{t("admin.member.noSessions")}</p> : null}
          <FigureTable caption={t("admin.member.devicesCaption")} head={[t("admin.member.colDevice"), t("admin.member.sessions"), t("admin.member.colShare")]}>
            {stats.devices.map((d) => (
              <tr key={d.device}>
                <td>{d.device}</td>
                <td>{d.sessions}</td>
                <td>{d.percentage}%</td>
              </tr>
            ))}
          </FigureTable>
          <FigureTable
            caption={t("admin.member.browsersCaption")}
            head={[t("admin.member.colBrowser"), t("admin.member.sessions"), t("admin.member.colShare")]}
          >
            {stats.browsers.map((b) => (
              <tr key={b.browser}>
                <td>{b.browser}</td>
                <td>{b.sessions}</td>
                <td>{b.percentage}%</td>
              </tr>
            ))}
          </FigureTable>
          <FigureTable caption={t("admin.member.pagesCaption")} head={[t("admin.member.colPage"), t("admin.member.colViews")]}>
            {stats.pages.map((p) => (
              <tr key={p.page}>
                <td>{p.page}</td>
                <td>{p.views}</td>
              </tr>
            ))}
          </FigureTable>
          <FigureTable
            caption={t("admin.member.conversionsCaption")}
            head={[t("admin.member.colConversion"), t("admin.member.colCount"), t("admin.member.colValue")]}
          >
            {stats.conversions.map((c) => (
              <tr key={c.type}>
                <td>{c.type.replace(/_/g, " ")}</td>
                <td>{c.count}</td>
                <td>{number(c.value)}</td>
              </tr>
            ))}
          </FigureTable>
        </>
      ) : null}
    </section>
  );
}
