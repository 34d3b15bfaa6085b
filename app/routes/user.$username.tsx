import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, isRouteErrorResponse, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { TrustBadges } from "~/components/trust-badges";
import { SubmitButton } from "~/components/forms";
import type { loader as rootLoader } from "~/root";
import { GigCard } from "~/components/gig-card";
import { ReviewList, reviewPageOf, Stars } from "~/components/reviews";
import { SellerFacts } from "~/components/seller-facts";
import { listSellerGigs } from "~/models/gig.server";
import { listSellerReviews } from "~/models/review.server";
import { getPublicProfile } from "~/models/profile.server";
import { getDb } from "~/server/db.server";
import { getUser } from "~/server/auth.server";
import { isSellerSaved, savedGigIdsAmong } from "~/models/saved.server";
import { SaveButton } from "~/components/save-button";
import { MemberAvatar } from "~/components/data-saver";
import { usePreferences } from "~/hooks/use-preferences";
import { ONE_DECIMAL, sayLevel } from "~/domain/catalog-vocabulary";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { metaI18n, useT } from "~/i18n/react";

export const meta: MetaFunction<typeof loader> = ({ data, matches, error }) => {
  if (!data) {
    // Thrown responses carry their title in the reader's language: the page's messages never arrived.
    return [{ title: isRouteErrorResponse(error) && typeof error.data === "string" && error.data ? error.data : "404 | Soko" }];
  }
  const { _ } = metaI18n(matches);
  return [
    { title: _("catalog.profile.metaTitle", { name: data.profile.name, username: data.profile.username }) },
    { name: "description", content: data.profile.bio.slice(0, 160) },
  ];
};

export async function loader({ request, params }: LoaderFunctionArgs) {
  const db = getDb();
  const user = await getUser(request);
  const profile = await getPublicProfile(db, params.username ?? "");
  if (!profile) {
    // Its text is the not-found page's title, in the reader's language (the meta above shows it).
    const t = await requestT(request);
    throw new Response(t("catalog.notFound.title"), { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  const page = reviewPageOf(request);
  const [gigs, reviews] = await Promise.all([listSellerGigs(db, profile.id), listSellerReviews(db, profile.id, page)]);
  // The member's hearts from their own rows (ADR 052); a visitor's (cacheable) page has none.
  const mine = user && user.id !== profile.id;
  const [sellerSaved, savedGigIds] = mine
    ? await Promise.all([
        isSellerSaved(db, user.id, profile.id),
        savedGigIdsAmong(
          db,
          user.id,
          gigs.map((g) => g.id),
        ),
      ])
    : [null, null];
  const saved = { seller: sellerSaved, gigs: savedGigIds };
  return {
    profile,
    gigs,
    saved,
    reviews: reviews.reviews,
    hasMore: reviews.hasMore,
    page,
    ...(await pageMessages(request, ["catalog", "orders.reviewReplies"])),
  };
}

export default function Profile() {
  const { profile: p, gigs, saved, reviews, hasMore, page } = useLoaderData<typeof loader>();
  const { date, number } = usePreferences();
  const { t } = useT();
  const viewer = useRouteLoaderData<typeof rootLoader>("root")?.user ?? null;
  return (
    <section className="container profile" aria-labelledby="profile-title">
      <header className="profile-head">
        <MemberAvatar name={p.name} avatarKey={p.avatarKey} size={96} />
        <div>
          <h1 id="profile-title">{p.name}</h1>
          <p>@{p.username}</p>
          {p.role !== "freelancer" || viewer?.username === p.username ? null : (
            <SaveButton kind="seller" id={p.id} name={p.name} saved={viewer ? Boolean(saved.seller) : null} />
          )}
          <TrustBadges badges={p.trust} />
          {viewer?.username === p.username ? null : viewer ? (
            // A member starts (or finds) the conversation with this member, and goes to it.
            <Form method="post" action="/messages" className="contact-seller">
              <input type="hidden" name="to" value={p.username} />
              <SubmitButton name="intent" value="start" pendingLabel={t("catalog.shared.pending")}>
                {t("catalog.profile.contact")}
              </SubmitButton>
            </Form>
          ) : (
            // A visitor signs in first; /messages then offers to start the conversation.
            <Link className="button" to={`/login?redirectTo=${encodeURIComponent(`/messages?to=${p.username}`)}`}>
              {t("catalog.profile.contact")}
            </Link>
          )}
        </div>
      </header>
      <dl className="profile-facts">
        <div>
          <dt>{t("catalog.profile.level")}</dt>
          <dd>{sayLevel(t, p.level)}</dd>
        </div>
        <div>
          <dt>{t("catalog.shared.rating")}</dt>
          <dd>
            {p.reviewsCount > 0 ? (
              <>
                <Stars rating={p.rating} /> {t("catalog.shared.ratingReviews", { rating: number(p.rating, ONE_DECIMAL), count: p.reviewsCount })}
              </>
            ) : (
              t("catalog.shared.noReviews")
            )}
          </dd>
        </div>
        <div>
          <dt>{t("catalog.profile.location")}</dt>
          <dd>{p.location || t("catalog.profile.uganda")}</dd>
        </div>
        <div>
          <dt>{t("catalog.shared.memberSince")}</dt>
          <dd>{date(p.memberSince)}</dd>
        </div>
        <SellerFacts responseTimeHours={p.responseTimeHours} yearsExperience={p.yearsExperience} portfolioUrl={p.portfolioUrl} />
        <div>
          <dt>{t("catalog.shared.languages")}</dt>
          <dd>{p.languages.length ? p.languages.join(", ") : t("catalog.shared.notListed")}</dd>
        </div>
      </dl>
      {p.bio ? <p>{p.bio}</p> : null}
      {p.skills.length ? (
        <>
          <h2>{t("catalog.profile.skills")}</h2>
          <ul className="tag-list" aria-label={t("catalog.profile.skills")}>
            {p.skills.map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ul>
        </>
      ) : null}
      {p.role === "freelancer" ? (
        <>
          <h2>{t("catalog.profile.gigsBy", { name: p.name.split(/\s+/)[0] })}</h2>
          {gigs.length ? (
            <ul className="card-grid gig-grid">
              {gigs.map((g) => (
                <li key={g.id}>
                  <GigCard gig={g} saved={saved.gigs ? saved.gigs.includes(g.id) : undefined} />
                </li>
              ))}
            </ul>
          ) : (
            <p>{t("catalog.profile.noGigs")}</p>
          )}
          <ReviewList
            reviews={reviews}
            page={page}
            hasMore={hasMore}
            showGig
            replyFrom={viewer?.username === p.username ? `/user/${encodeURIComponent(p.username)}` : null}
          />
        </>
      ) : null}
    </section>
  );
}
