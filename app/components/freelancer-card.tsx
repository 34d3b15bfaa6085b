/**
 * One freelancer in a list: the directory (/freelancers) and a member's saved sellers (/saved). Their name leads
 * to their profile; the heart saves them (or, for a visitor, asks them to sign in). `saved` undefined: no heart
 * (the member's own card).
 */
import { initialsOf, useDataSaver } from "~/components/data-saver";
import { Link } from "~/components/link";
import { Stars } from "~/components/reviews";
import { SaveButton } from "~/components/save-button";
import { ONE_DECIMAL, sayLevel, type Level } from "~/domain/catalog-vocabulary";
import { usePreferences } from "~/hooks/use-preferences";
import { useT } from "~/i18n/react";
import { imageUrl } from "~/utils/media";

export type FreelancerCardData = {
  id: number;
  name: string;
  username: string;
  avatarKey: string | null;
  level: Level;
  rating: number;
  reviewsCount: number;
  location: string;
  skills?: string[];
  vetted?: boolean;
};

export function FreelancerCard({ freelancer: f, saved }: { freelancer: FreelancerCardData; saved?: boolean | null }) {
  const { t } = useT();
  const { number } = usePreferences();
  // Initials in data-saver mode (ADR 054), as for a freelancer without a photo; the name beside says who.
  const saver = useDataSaver();
  return (
    <article className="freelancer-card">
      {f.avatarKey && !saver ? (
        <img src={imageUrl(f.avatarKey, "avatar")} alt="" width={56} height={56} className="avatar" loading="lazy" />
      ) : (
        <span className="avatar avatar-initials" aria-hidden="true">
          {initialsOf(f.name)}
        </span>
      )}
      <div className="freelancer-body">
        <h2 className="freelancer-name">
          <Link to={`/user/${encodeURIComponent(f.username)}`}>{f.name}</Link>
        </h2>
        <p className="freelancer-meta">
          {sayLevel(t, f.level)}
          {f.vetted ? <> · {t("catalog.directory.vettedBadge")}</> : null}
          {f.location ? <> · {f.location}</> : null}
        </p>
        <p className="freelancer-meta">
          {f.reviewsCount > 0 ? (
            <>
              <Stars rating={f.rating} /> {t("catalog.shared.ratingReviews", { rating: number(f.rating, ONE_DECIMAL), count: f.reviewsCount })}
            </>
          ) : (
            t("catalog.shared.noReviews")
          )}
        </p>
        {f.skills?.length ? <p className="freelancer-skills">{f.skills.slice(0, 5).join(", ")}</p> : null}
      </div>
      {saved === undefined ? null : <SaveButton kind="seller" id={f.id} name={f.name} saved={saved} compact />}
    </article>
  );
}
