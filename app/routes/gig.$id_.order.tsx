import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { getGigPage } from "~/models/gig.server";
import { requireUser } from "~/utils/auth.server";
import { getDb } from "~/utils/db.server";
import { buyerFee } from "~/utils/fees";
import { TIER_LABEL } from "~/utils/gig-schemas";
import { usePreferences } from "~/utils/use-preferences";

export const meta: MetaFunction = () => [{ title: "Your order | Soko" }];

/**
 * Where Continue leads: the chosen package, what it will cost with the buyer's fee, and what happens next.
 * Checkout (payment into escrow) arrives with the orders feature; until then this page says so plainly.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const gig = await getGigPage(getDb(), Number(params.id), user);
  if (!gig || gig.status !== "published") throw new Response("Not Found", { status: 404 });
  const tier = new URL(request.url).searchParams.get("package");
  const pkg = gig.packages.find((p) => p.tier === tier) ?? gig.packages[0];
  if (!pkg) throw new Response("Not Found", { status: 404 });
  return { gig: { id: gig.id, title: gig.title, seller: gig.seller.name, sellerUsername: gig.seller.username }, pkg, fee: buyerFee(pkg.priceUgx) };
}

export default function OrderNext() {
  const { gig, pkg, fee } = useLoaderData<typeof loader>();
  const { price } = usePreferences();
  return (
    <section className="container narrow" aria-labelledby="order-title">
      <h1 id="order-title">Your order</h1>
      <p>
        <Link to={`/gig/${gig.id}`}>{gig.title}</Link> by {gig.seller}
      </p>
      <dl className="order-summary">
        <div>
          <dt>Package</dt>
          <dd>
            {TIER_LABEL[pkg.tier]} · {pkg.deliveryDays} {pkg.deliveryDays === 1 ? "day" : "days"} delivery · {pkg.revisions}{" "}
            {pkg.revisions === 1 ? "revision" : "revisions"}
          </dd>
        </div>
        <div>
          <dt>Price</dt>
          <dd>{price(pkg.priceUgx)}</dd>
        </div>
        <div>
          <dt>Processing fee (5%, at least UGX 1,000)</dt>
          <dd>{price(fee)}</dd>
        </div>
        <div>
          <dt>Total</dt>
          <dd>
            <strong>{price(pkg.priceUgx + fee)}</strong>
          </dd>
        </div>
      </dl>
      <h2>What happens next</h2>
      <p role="status">
        Paying for orders opens soon on Soko. When it does, you will pay this total by mobile money into escrow: the seller
        starts work, and the money is released to them only when you approve the delivery. Nothing has been charged.
      </p>
      <p>
        Until then, <Link to={`/messages?to=${encodeURIComponent(gig.sellerUsername)}&gig=${gig.id}`}>contact the seller</Link> or{" "}
        <Link to={`/gig/${gig.id}`}>go back to the gig</Link>.
      </p>
    </section>
  );
}
