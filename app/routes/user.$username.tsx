import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { SubmitButton } from "~/components/forms";
import type { loader as rootLoader } from "~/root";
import { GigCard } from "~/components/gig-card";
import { ReviewList, reviewPageOf, Stars } from "~/components/reviews";
import { listSellerGigs } from "~/models/gig.server";
import { listSellerReviews } from "~/models/review.server";
import { getPublicProfile } from "~/models/profile.server";
import { getDb } from "~/server/db.server";
import { imageUrl } from "~/utils/media";
import { usePreferences } from "~/hooks/use-preferences";

export const meta: MetaFunction<typeof loader> = ({ data }) =>
  data
    ? [{ title: `${data.profile.name} (@${data.profile.username}) | Soko` }, { name: "description", content: data.profile.bio.slice(0, 160) }]
    : [{ title: "Not found | Soko" }];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const db = getDb();
  const profile = await getPublicProfile(db, params.username ?? "");
  if (!profile) throw new Response("Not Found", { status: 404 });
  const page = reviewPageOf(request);
  const [gigs, reviews] = await Promise.all([listSellerGigs(db, profile.id), listSellerReviews(db, profile.id, page)]);
  return { profile, gigs, reviews: reviews.reviews, hasMore: reviews.hasMore, page };
}

export default function Profile() {
  const { profile: p, gigs, reviews, hasMore, page } = useLoaderData<typeof loader>();
  const { date } = usePreferences();
  const viewer = useRouteLoaderData<typeof rootLoader>("root")?.user ?? null;
  return (
    <section className="container profile" aria-labelledby="profile-title">
      <header className="profile-head">
        {p.avatarKey ? (
          <img src={imageUrl(p.avatarKey, "avatar")} alt="" width={96} height={96} className="avatar" />
        ) : (
          <span className="avatar avatar-initials" aria-hidden="true">
            {p.name
              .split(/\s+/)
              .slice(0, 2)
              .map((w) => w[0])
              .join("")}
          </span>
        )}
        <div>
          <h1 id="profile-title">{p.name}</h1>
          <p>@{p.username}</p>
          {viewer?.username === p.username ? null : viewer ? (
            // A member starts (or finds) the conversation with this member, and goes to it.
            <Form method="post" action="/messages" className="contact-seller">
              <input type="hidden" name="to" value={p.username} />
              <SubmitButton name="intent" value="start" pendingLabel="One moment…">
                Contact
              </SubmitButton>
            </Form>
          ) : (
            // A visitor signs in first; /messages then offers to start the conversation.
            <Link className="button" to={`/login?redirectTo=${encodeURIComponent(`/messages?to=${p.username}`)}`}>
              Contact
            </Link>
          )}
        </div>
      </header>
      <dl className="profile-facts">
        <div>
          <dt>Level</dt>
          <dd>{p.level}</dd>
        </div>
        <div>
          <dt>Rating</dt>
          <dd>
            {p.reviewsCount > 0 ? (
              <>
                <Stars rating={p.rating} /> {`${p.rating.toFixed(1)} (${p.reviewsCount} ${p.reviewsCount === 1 ? "review" : "reviews"})`}
              </>
            ) : (
              "No reviews yet"
            )}
          </dd>
        </div>
        <div>
          <dt>Location</dt>
          <dd>{p.location || "Uganda"}</dd>
        </div>
        <div>
          <dt>Member since</dt>
          <dd>{date(p.memberSince)}</dd>
        </div>
        <div>
          <dt>Response time</dt>
          <dd>{p.responseTimeHours === null ? "Not yet known" : `Within ${p.responseTimeHours} ${p.responseTimeHours === 1 ? "hour" : "hours"}`}</dd>
        </div>
        <div>
          <dt>Languages</dt>
          <dd>{p.languages.length ? p.languages.join(", ") : "Not listed"}</dd>
        </div>
      </dl>
      {p.bio ? <p>{p.bio}</p> : null}
      {p.skills.length ? (
        <>
          <h2>Skills</h2>
          <ul className="tag-list" aria-label="Skills">
            {p.skills.map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ul>
        </>
      ) : null}
      {p.role === "freelancer" ? (
        <>
          <h2>Gigs by {p.name.split(/\s+/)[0]}</h2>
          {gigs.length ? (
            <ul className="card-grid gig-grid">
              {gigs.map((g) => (
                <li key={g.id}>
                  <GigCard gig={g} />
                </li>
              ))}
            </ul>
          ) : (
            <p>No published gigs yet.</p>
          )}
          <ReviewList reviews={reviews} page={page} hasMore={hasMore} showGig />
        </>
      ) : null}
    </section>
  );
}
