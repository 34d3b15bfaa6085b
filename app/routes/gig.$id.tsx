import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Form, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import type { loader as rootLoader } from "~/root";
import { SubmitButton } from "~/components/forms";
import { ReviewList, reviewPageOf, Stars } from "~/components/reviews";
import { getGigPage, getGigPageWithReviews } from "~/models/gig.server";
import { getUser } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { TIER_LABEL, TIERS } from "~/domain/catalog-vocabulary";
import { imageUrl } from "~/utils/media";
import { usePreferences } from "~/hooks/use-preferences";
import { readFormData } from "~/server/form-data.server";

export const meta: MetaFunction<typeof loader> = ({ data }) =>
  data ? [{ title: `${data.gig.title} | Soko` }, { name: "description", content: data.gig.description.slice(0, 160) }] : [{ title: "Not found | Soko" }];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await getUser(request);
  const db = getDb();
  const page = reviewPageOf(request);
  const found = await getGigPageWithReviews(db, Number(params.id), user, page);
  if (!found) throw new Response("Not Found", { status: 404 });
  const { gig, reviews, hasMore } = found;
  return { gig, own: user?.id === gig.seller.id, reviews, hasMore, page };
}

/**
 * Continue (with a package) and Contact Seller. Both need a signed-in buyer: an anonymous visitor signs in
 * and then lands where the button was taking them.
 */
export async function action({ request, params }: ActionFunctionArgs) {
  const user = await getUser(request);
  const gig = await getGigPage(getDb(), Number(params.id), user);
  if (!gig || gig.status !== "published") throw new Response("Not Found", { status: 404 });
  const form = await readFormData(request);
  const intent = form.get("intent");
  const tier = form.get("package");
  let destination: string;
  if (intent === "continue" && typeof tier === "string" && gig.packages.some((p) => p.tier === tier)) {
    destination = `/gig/${gig.id}/order?package=${tier}`;
  } else if (intent === "contact") {
    destination = `/messages?to=${encodeURIComponent(gig.seller.username)}&gig=${gig.id}`;
  } else {
    throw new Response("Choose a package", { status: 400 });
  }
  if (!user) return redirect(`/login?redirectTo=${encodeURIComponent(destination)}`);
  if (user.id === gig.seller.id) return redirect(`/gig/${gig.id}`);
  return redirect(destination);
}

export default function GigDetail() {
  const { gig, own, reviews, hasMore, page } = useLoaderData<typeof loader>();
  const signedIn = Boolean(useRouteLoaderData<typeof rootLoader>("root")?.user);
  const { price } = usePreferences();
  const [cover, ...more] = gig.images;
  return (
    <article className="container gig-page" aria-labelledby="gig-title">
      {gig.status !== "published" ? (
        <p className="notice" role="status">
          {gig.status === "draft" ? "This is a draft: only you can see it." : "This gig is paused: buyers cannot see it."}{" "}
          <Link to={`/gig/${gig.id}/edit`}>Edit</Link>
        </p>
      ) : null}
      <p className="breadcrumbs">
        <Link to="/browse">Browse</Link> › <Link to={`/browse?category=${gig.category.slug}`}>{gig.category.name}</Link>
      </p>
      <h1 id="gig-title">{gig.title}</h1>
      <p className="gig-seller-line">
        by <Link to={`/user/${encodeURIComponent(gig.seller.username)}`}>{gig.seller.name}</Link>
        {gig.seller.level ? <> · {gig.seller.level}</> : null}
        {gig.seller.location ? <> · {gig.seller.location}</> : null}
        {" · "}
        {gig.reviewsCount > 0 ? (
          <>
            <Stars rating={gig.rating} /> {gig.rating.toFixed(1)} ({gig.reviewsCount} {gig.reviewsCount === 1 ? "review" : "reviews"})
          </>
        ) : (
          "New"
        )}
        {own ? (
          <>
            {" · "}
            <Link to={`/gig/${gig.id}/edit`}>Edit your gig</Link>
          </>
        ) : null}
      </p>

      {cover ? (
        <figure className="gig-gallery">
          <img src={imageUrl(cover, "large")} alt={`${gig.title}: image 1`} width={1280} height={720} />
          {more.length ? (
            <ul aria-label="More images">
              {more.map((key, i) => (
                <li key={key}>
                  <a href={imageUrl(key, "large")}>
                    <img src={imageUrl(key, "thumb")} alt={`${gig.title}: image ${i + 2}`} width={160} height={90} loading="lazy" />
                  </a>
                </li>
              ))}
            </ul>
          ) : null}
        </figure>
      ) : null}

      <h2>About this gig</h2>
      {/* Text, never markup: React escapes it; line breaks are kept by CSS. */}
      <div className="gig-description">{gig.description}</div>
      {gig.tags.length ? (
        <ul className="tag-list" aria-label="Tags">
          {gig.tags.map((t) => (
            <li key={t}>{t}</li>
          ))}
        </ul>
      ) : null}

      <h2 id="packages">Packages</h2>
      <div className="package-grid">
        {TIERS.map((tier) => gig.packages.find((p) => p.tier === tier))
          .filter((p) => p !== undefined)
          .map((p) => (
            <section key={p.tier} className={`package-card${p.popular ? " package-popular" : ""}`} aria-labelledby={`package-${p.tier}`}>
              <h3 id={`package-${p.tier}`}>
                {TIER_LABEL[p.tier]}
                {p.name !== TIER_LABEL[p.tier] ? `: ${p.name}` : ""}
                {p.popular ? <span className="status-badge">Popular</span> : null}
              </h3>
              <p className="package-price">{price(p.priceUgx)}</p>
              {p.description ? <p>{p.description}</p> : null}
              <ul>
                <li>
                  {p.deliveryDays} {p.deliveryDays === 1 ? "day" : "days"} delivery
                </li>
                <li>
                  {p.revisions} {p.revisions === 1 ? "revision" : "revisions"}
                </li>
                {p.features.map((f) => (
                  <li key={f}>{f}</li>
                ))}
              </ul>
              {own || gig.status !== "published" ? null : (
                <Form method="post">
                  <input type="hidden" name="package" value={p.tier} />
                  <SubmitButton name="intent" value="continue" pendingLabel="One moment…">
                    Continue with {TIER_LABEL[p.tier]} ({price(p.priceUgx)})
                  </SubmitButton>
                </Form>
              )}
            </section>
          ))}
      </div>
      {own || gig.status !== "published" ? null : signedIn ? (
        // A member starts (or finds) the conversation with the seller about this gig, and goes to it.
        <Form method="post" action="/messages" className="contact-seller">
          <input type="hidden" name="gigId" value={gig.id} />
          <input type="hidden" name="to" value={gig.seller.username} />
          <SubmitButton name="intent" value="start" pendingLabel="One moment…">
            Contact Seller
          </SubmitButton>
        </Form>
      ) : (
        // A visitor signs in first and comes back to /messages, which offers to start it.
        <Form method="post" className="contact-seller">
          <SubmitButton name="intent" value="contact" pendingLabel="One moment…">
            Contact Seller
          </SubmitButton>
        </Form>
      )}

      <ReviewList reviews={reviews} page={page} hasMore={hasMore} showGig={false} />
    </article>
  );
}
