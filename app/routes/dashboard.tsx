import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { SignOutButton } from "~/components/site-header";
import { listRecentActivity } from "~/models/activity.server";
import { getDashboardStats, listOwnGigs } from "~/models/dashboard.server";
import { getSettings, profileCompletion } from "~/models/user.server";
import { requireUser } from "~/utils/auth.server";
import { getDb } from "~/utils/db.server";
import { usePreferences } from "~/utils/use-preferences";

export const meta: MetaFunction = () => [{ title: "Dashboard | Soko" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const db = getDb();
  const [stats, gigs, activity, settings] = await Promise.all([
    getDashboardStats(db, user),
    user.role === "freelancer" ? listOwnGigs(db, user.id) : Promise.resolve([]),
    listRecentActivity(db, user.id),
    getSettings(db, user.id),
  ]);
  if (!settings) throw new Response("Not Found", { status: 404 });
  return {
    firstName: user.name.split(/\s+/)[0] ?? user.name,
    role: user.role,
    username: user.username,
    stats,
    gigs,
    activity,
    completion: profileCompletion(settings),
    notice: GIG_NOTICES[new URL(request.url).searchParams.get("gig") ?? ""] ?? null,
  };
}

const GIG_NOTICES: Record<string, string> = {
  published: "Your gig is published: buyers can find it now.",
  draft: "Your gig is saved as a draft. Only you can see it.",
  deleted: "Your gig is deleted.",
};

const STATUS_LABEL = { draft: "Draft", published: "Published", paused: "Paused" } as const;

export default function Dashboard() {
  const d = useLoaderData<typeof loader>();
  const { price, dateTime } = usePreferences();
  const seller = d.role === "freelancer";
  return (
    <section className="container dashboard" aria-labelledby="dashboard-title">
      <h1 id="dashboard-title">Welcome back, {d.firstName}!</h1>
      {d.notice ? (
        <p className="form-success" role="status">
          {d.notice}
        </p>
      ) : null}
      <p>{seller ? "Manage your gigs, orders and earnings in one place." : "Find skilled Ugandan freelancers and keep track of your orders."}</p>

      <ul className="stat-grid" aria-label="Your numbers">
        {d.stats.map((s) => (
          <li key={s.label} className="stat-card">
            <span className="stat-value">{s.kind === "money" ? price(s.value) : s.kind === "rating" ? s.value.toFixed(1) : s.value}</span>
            <span className="stat-label">{s.label}</span>
          </li>
        ))}
      </ul>

      <div className="dashboard-grid">
        <div>
          <h2>Quick actions</h2>
          <p className="error-actions">
            {seller ? (
              <Link to="/gig/create" className="button">
                Create a gig
              </Link>
            ) : (
              <Link to="/browse" className="button">
                Find freelancers
              </Link>
            )}
            <Link to="/messages">Messages</Link>
            {seller ? null : <Link to="/freelancer/register">Start selling</Link>}
          </p>

          {seller ? (
            <>
              <h2>Your gigs</h2>
              {d.gigs.length === 0 ? (
                <p>
                  You have no gigs yet. <Link to="/gig/create">Create your first gig</Link> to start selling.
                </p>
              ) : (
                <ul className="plain-list" aria-label="Your gigs">
                  {d.gigs.map((g) => (
                    <li key={g.id}>
                      <span>
                        {g.status === "published" ? <Link to={`/gig/${g.id}`}>{g.title}</Link> : g.title}{" "}
                        <span className="status-badge">{STATUS_LABEL[g.status]}</span>
                        {g.startingPriceUgx !== null ? <> · From {price(g.startingPriceUgx)}</> : null}
                      </span>
                      <Link to={`/gig/${g.id}/edit`} aria-label={`Edit ${g.title}`}>
                        Edit
                      </Link>
                    </li>
                  ))}
                </ul>
              )}
            </>
          ) : null}

          <h2>Recent activity</h2>
          {d.activity.length === 0 ? (
            <p>Nothing yet.</p>
          ) : (
            <ul className="plain-list" aria-label="Recent activity">
              {d.activity.map((a) => (
                <li key={a.id}>
                  <span>{a.label}</span>
                  <time dateTime={new Date(a.at).toISOString()}>{dateTime(a.at)}</time>
                </li>
              ))}
            </ul>
          )}
        </div>

        <aside aria-labelledby="completion-title">
          <h2 id="completion-title">Profile completion</h2>
          <p>
            <strong>{d.completion.percent}%</strong> complete
          </p>
          <progress className="progress" max={100} value={d.completion.percent} aria-labelledby="completion-title" />
          {d.completion.missing.length ? (
            <>
              <p>Still missing:</p>
              <ul>
                {d.completion.missing.map((m) => (
                  <li key={m}>{m}</li>
                ))}
              </ul>
              <p>
                <Link to="/settings">Complete your profile</Link>
              </p>
            </>
          ) : (
            <p>Your profile is complete.</p>
          )}
          {seller ? (
            <p>
              <Link to={`/user/${d.username}`}>View your public profile</Link>
            </p>
          ) : null}
          <SignOutButton />
        </aside>
      </div>
    </section>
  );
}
