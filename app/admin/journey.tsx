import { data, redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { getClickHouse } from "~/analytics/clickhouse.server";
import { memberIdParam, rangeParam, readOrFailure, userJourney } from "~/analytics/insights.server";
import { adminBase, clockTime, FigureTable, InsightLinks, PlainLink, RangeSelect, useTimeZone } from "~/components/analytics-insights";
import { usePreferences } from "~/hooks/use-preferences";
import { ErrorList } from "~/components/forms";
import { adminScreenAction, adminScreenLoader } from "~/server/admin-area.server";
import { getDb } from "~/server/db.server";
import insightsStylesUrl from "~/styles/insights.css?url";
import tablesStylesUrl from "~/styles/admin-tables.css?url";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { metaI18n, T, useT } from "~/i18n/react";

/**
 * `/analytics/user-journey/{id}` on the admin host, `/admin/analytics/user-journey/{id}` on the main host:
 * one member's sessions, the latest first, each with its pages and conversions in time order
 * (insights.server.ts). Without an id, a GET form picks the member (`?user=12`, sent on to the member's address).
 */
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: insightsStylesUrl },
  { rel: "stylesheet", href: tablesStylesUrl },
];

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("admin.journey.title") }, { name: "robots", content: "noindex" }];
};

export async function loader({ request, params }: LoaderFunctionArgs) {
  await adminScreenLoader(request);
  const url = new URL(request.url);
  const base = adminBase(url.pathname);
  const { range, error: rangeError } = rangeParam(url.searchParams, "30d");
  const words = await pageMessages(request, ["admin"]);
  const picked = url.searchParams.get("user");
  if (params.id === undefined && picked !== null) {
    const { id, error } = memberIdParam(picked);
    if (id !== null && !rangeError) return redirect(`${base}/analytics/user-journey/${id}?range=${range}`);
    const userError = error ?? "admin.journey.enterId";
    return data({ base, range, rangeError, userError, userInput: picked, member: null, sessions: [], ...words }, { status: 400 });
  }
  if (params.id === undefined) return { base, range, rangeError, userError: null, userInput: "", member: null, sessions: [], ...words };
  const { id, error } = memberIdParam(params.id);
  if (id === null) throw new Response((await requestT(request))(error ?? "admin.journey.notFound"), { status: 404 });
  const member = await getDb()("users").where({ id }).first<{ id: number; name: string; email: string } | undefined>("id", "name", "email");
  if (!member) throw new Response((await requestT(request))("admin.member.notFound"), { status: 404 });
  if (rangeError) return data({ base, range, rangeError, userError: null, userInput: String(id), member, sessions: [], ...words }, { status: 400 });
  // The log keeps the English; the page says the catalogue's words.
  const read = await readOrFailure(userJourney(getClickHouse(), id, range), "Failed to fetch user journey");
  if (!read.ok) {
    return data({ base, range, rangeError, userError: "admin.journey.failed", userInput: String(id), member: null, sessions: [], ...words }, { status: 503 });
  }
  return { base, range, rangeError, userError: null, userInput: String(id), member, sessions: read.value, ...words };
}

export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

export default function AdminJourney() {
  const { base, range, rangeError, userError, userInput, member, sessions } = useLoaderData<typeof loader>();
  const zone = useTimeZone();
  const { dateTime, ugx } = usePreferences();
  const { t } = useT();
  return (
    <section className="container insights" aria-labelledby="journey-title">
      <h1 id="journey-title">{member ? t("admin.journey.headingOf", { name: member.name }) : t("admin.journey.heading")}</h1>
      <InsightLinks base={base} />
      <Form method="get" action={`${base}/analytics/user-journey`} className="insight-form">
        <div className="field">
          <label htmlFor="journey-user">{t("admin.journey.memberId")}</label>
          <input
            id="journey-user"
            name="user"
            type="text"
            inputMode="numeric"
            pattern="[0-9]+"
            required
            defaultValue={userInput}
            aria-invalid={userError ? true : undefined}
            aria-describedby={userError ? "user-error" : undefined}
          />
          <ErrorList id="user-error" errors={userError ? [userError] : undefined} />
        </div>
        <RangeSelect value={range} error={rangeError} />
        <button type="submit" className="button">
          {t("admin.journey.show")}
        </button>
      </Form>
      {member ? (
        <>
          <p>
            <T
              id="admin.journey.about"
              values={{ id: member.id, email: member.email, zone }}
              components={{ 0: <PlainLink href={`${base}/users/${member.id}/analytics?range=${range}`} /> }}
            />
          </p>
          {sessions.length === 0 ? (
            <p>{t("admin.journey.noSessions")}</p>
          ) : (
            sessions.map((s) => (
              <FigureTable
                key={s.sessionId}
                caption={t("admin.journey.session", {
                  id: s.sessionId,
                  start: dateTime(s.start),
                  end: clockTime(s.end, zone, true),
                  device: s.device,
                  browser: s.browser,
                  country: s.country,
                })}
                head={[t("admin.journey.colTime"), t("admin.journey.colWhat"), t("admin.journey.colDetails")]}
              >
                {s.steps.map((step, i) => (
                  <tr key={i}>
                    <td>
                      <time dateTime={step.at}>{clockTime(step.at, zone, true)}</time>
                    </td>
                    <td>
                      {step.kind === "page" ? (
                        <a href={`${base}/heatmap?${new URLSearchParams({ page: step.what, range })}`}>{step.what}</a>
                      ) : (
                        t("admin.journey.conversion", { what: step.what.replace(/_/g, " ") })
                      )}
                    </td>
                    <td>{step.kind === "conversion" ? ugx(Number(step.detail)) : step.detail}</td>
                  </tr>
                ))}
              </FigureTable>
            ))
          )}
        </>
      ) : null}
    </section>
  );
}
