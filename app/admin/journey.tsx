import { data, redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { getClickHouse } from "~/analytics/clickhouse.server";
import { memberIdParam, rangeParam, readOrFailure, userJourney } from "~/analytics/insights.server";
import { adminBase, clockTime, FigureTable, InsightLinks, RangeSelect, useTimeZone } from "~/components/analytics-insights";
import { usePreferences } from "~/hooks/use-preferences";
import { ErrorList } from "~/components/forms";
import { adminScreenAction, adminScreenLoader } from "~/server/admin-area.server";
import { getDb } from "~/server/db.server";
import insightsStylesUrl from "~/styles/insights.css?url";
import tablesStylesUrl from "~/styles/admin-tables.css?url";

/**
 * `/analytics/user-journey/{id}` on the admin host, `/admin/analytics/user-journey/{id}` on the main host:
 * one member's sessions, the latest first, each with its pages and conversions in time order
 * (insights.server.ts). Without an id, a GET form picks the member (`?user=12`, sent on to the member's address).
 */
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: insightsStylesUrl },
  { rel: "stylesheet", href: tablesStylesUrl },
];

export const meta: MetaFunction = () => [{ title: "User journey | Soko Admin" }, { name: "robots", content: "noindex" }];

export async function loader({ request, params }: LoaderFunctionArgs) {
  await adminScreenLoader(request);
  const url = new URL(request.url);
  const base = adminBase(url.pathname);
  const { range, error: rangeError } = rangeParam(url.searchParams, "30d");
  const picked = url.searchParams.get("user");
  if (params.id === undefined && picked !== null) {
    const { id, error } = memberIdParam(picked);
    if (id !== null && !rangeError) return redirect(`${base}/analytics/user-journey/${id}?range=${range}`);
    return data({ base, range, rangeError, userError: error ?? "Enter a member id", userInput: picked, member: null, sessions: [] }, { status: 400 });
  }
  if (params.id === undefined) return { base, range, rangeError, userError: null, userInput: "", member: null, sessions: [] };
  const { id, error } = memberIdParam(params.id);
  if (id === null) throw new Response(error ?? "Not found", { status: 404 });
  const member = await getDb()("users").where({ id }).first<{ id: number; name: string; email: string } | undefined>("id", "name", "email");
  if (!member) throw new Response("No member has that id.", { status: 404 });
  if (rangeError) return data({ base, range, rangeError, userError: null, userInput: String(id), member, sessions: [] }, { status: 400 });
  const read = await readOrFailure(userJourney(getClickHouse(), id, range), "Failed to fetch user journey");
  if (!read.ok) return data({ base, range, rangeError, userError: read.message, userInput: String(id), member: null, sessions: [] }, { status: 503 });
  return { base, range, rangeError, userError: null, userInput: String(id), member, sessions: read.value };
}

export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

export default function AdminJourney() {
  const { base, range, rangeError, userError, userInput, member, sessions } = useLoaderData<typeof loader>();
  const zone = useTimeZone();
  const { dateTime } = usePreferences();
  return (
    <section className="container insights" aria-labelledby="journey-title">
      <h1 id="journey-title">{member ? `Journey of ${member.name}` : "User journey"}</h1>
      <InsightLinks base={base} />
      <Form method="get" action={`${base}/analytics/user-journey`} className="insight-form">
        <div className="field">
          <label htmlFor="journey-user">Member id</label>
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
          Show journey
        </button>
      </Form>
      {member ? (
        <>
          <p>
            Member {member.id}, {member.email}. <a href={`${base}/users/${member.id}/analytics?range=${range}`}>Their analytics</a>. Times are {zone}; only what
            they did signed in with analytics allowed carries their id.
          </p>
          {sessions.length === 0 ? (
            <p>No sessions in the range.</p>
          ) : (
            sessions.map((s) => (
              <FigureTable
                key={s.sessionId}
                caption={`Session ${s.sessionId}: ${dateTime(s.start)}, until ${clockTime(s.end, zone, true)}, ${s.device}, ${s.browser}, ${s.country}`}
                head={["Time", "What", "Details"]}
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
                        `Conversion: ${step.what.replace(/_/g, " ")}`
                      )}
                    </td>
                    <td>{step.kind === "conversion" ? `UGX ${Number(step.detail).toLocaleString("en-US")}` : step.detail}</td>
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
