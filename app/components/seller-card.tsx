import { Form } from "@remix-run/react";
import { Link } from "~/components/link";
import { SubmitButton } from "~/components/forms";
import { Stars } from "~/components/reviews";
import type { GigPage } from "~/models/gig.server";
import { imageUrl } from "~/utils/media";

const memberSince = new Intl.DateTimeFormat("en-GB", { month: "short", year: "numeric", timeZone: "Africa/Kampala" });

/**
 * "About the seller" on a gig page: who they are and how they work, from their profile, and Contact Seller.
 * `contact` is "member" (start or open the conversation), "visitor" (sign in first) or null (none: the seller's
 * own gig, or one buyers cannot see).
 */
export function SellerCard({ gigId, seller, contact }: { gigId: number; seller: GigPage["seller"]; contact: "member" | "visitor" | null }) {
  const profile = `/user/${encodeURIComponent(seller.username)}`;
  const hours = seller.responseTimeHours;
  return (
    <section className="seller-card" aria-labelledby="seller-title">
      <h2 id="seller-title">About the seller</h2>
      <div className="seller-head">
        {seller.avatarKey ? (
          <img src={imageUrl(seller.avatarKey, "avatar")} alt="" width={64} height={64} className="avatar" loading="lazy" />
        ) : (
          <span className="avatar avatar-initials" aria-hidden="true">
            {seller.name
              .split(/\s+/)
              .slice(0, 2)
              .map((w) => w[0])
              .join("")}
          </span>
        )}
        <p>
          <Link to={profile}>
            <strong>{seller.name}</strong>
          </Link>
          <br />
          {seller.level ?? "New Seller"}
          {seller.location ? ` · ${seller.location}` : null}
        </p>
      </div>
      <dl className="seller-facts">
        <div>
          <dt>Rating</dt>
          <dd>
            {seller.reviewsCount > 0 ? (
              <>
                <Stars rating={seller.rating} /> {seller.rating.toFixed(1)} ({seller.reviewsCount})
              </>
            ) : (
              "No reviews yet"
            )}
          </dd>
        </div>
        <div>
          <dt>Response time</dt>
          <dd>{hours === null ? "Not yet known" : `Within ${hours} ${hours === 1 ? "hour" : "hours"}`}</dd>
        </div>
        <div>
          <dt>Member since</dt>
          <dd>{memberSince.format(new Date(seller.memberSince))}</dd>
        </div>
        <div>
          <dt>Languages</dt>
          <dd>{seller.languages.length ? seller.languages.join(", ") : "Not listed"}</dd>
        </div>
      </dl>
      {contact === "member" ? (
        // A member starts (or finds) the conversation with the seller about this gig, and goes to it.
        <Form method="post" action="/messages">
          <input type="hidden" name="gigId" value={gigId} />
          <input type="hidden" name="to" value={seller.username} />
          <SubmitButton name="intent" value="start" pendingLabel="One moment…">
            Contact Seller
          </SubmitButton>
        </Form>
      ) : contact === "visitor" ? (
        // A visitor signs in first and comes back to /messages, which offers to start it.
        <Form method="post">
          <SubmitButton name="intent" value="contact" pendingLabel="One moment…">
            Contact Seller
          </SubmitButton>
        </Form>
      ) : null}
    </section>
  );
}
