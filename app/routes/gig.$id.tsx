import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import type { loader as rootLoader } from "~/root";
import { ReviewList, reviewPageOf, Stars } from "~/components/reviews";
import { getGigPage, getGigPageWithReviews } from "~/models/gig.server";
import { getUser } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { imageUrl } from "~/utils/media";
import { GigPlaceholder } from "~/components/gig-card";
import { PackagePanel } from "~/components/gig-packages";
import { SellerCard } from "~/components/seller-card";
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
  const buyable = !own && gig.status === "published";
  const [cover, ...more] = gig.images;
  return (
    <article className="container gig-page" aria-labelledby="gig-title">
      {gig.status !== "published" ? (
        <p className="notice" role="status">
          {gig.status === "draft" ? "This is a draft: only you can see it." : "This gig is paused: buyers cannot see it."}{" "}
          <Link to={`/gig/${gig.id}/edit`}>Edit</Link>
        </p>
      ) : null}
      {/* Phones: title, packages, the rest. Wide screens: the packages beside the rest, in view while it scrolls. */}
      <div className="gig-layout">
        <header className="gig-head">
          <p className="breadcrumbs">
            <Link to="/browse">Browse</Link> › <Link to={`/browse?category=${gig.category.slug}`}>{gig.category.name}</Link>
          </p>
          <h1 id="gig-title">{gig.title}</h1>
          <p className="gig-seller-line">
            by <Link to={`/user/${encodeURIComponent(gig.seller.username)}`}>{gig.seller.name}</Link>
            {gig.seller.level ? <> · {gig.seller.level}</> : null}
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
        </header>

        <aside className="gig-buy" aria-labelledby="packages">
          <h2 id="packages" className="visually-hidden">
            Packages
          </h2>
          <PackagePanel packages={gig.packages} buyable={buyable} />
        </aside>

        <div className="gig-main">
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
          ) : (
            <GigPlaceholder slug={gig.category.slug} name={gig.category.name} cover />
          )}

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

          <SellerCard gigId={gig.id} seller={gig.seller} contact={buyable ? (signedIn ? "member" : "visitor") : null} />

          <ReviewList reviews={reviews} page={page} hasMore={hasMore} showGig={false} />
        </div>
      </div>
    </article>
  );
}
