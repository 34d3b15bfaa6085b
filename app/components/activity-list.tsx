/**
 * The dashboard's recent activity: one line each, except sign-ins in a row, which are one line ("Signed in 5
 * times, last on Fri 12 Dec 14:05") so that a member who signs in daily still sees what else happened.
 */
import { usePreferences } from "~/hooks/use-preferences";
import { T, useT } from "~/i18n/react";

export type ActivityLine = { id: number; kind: string; label: string; at: Date | string; count: number };

/** What each kind of activity says (app/models/activity.server.ts's kinds); an unknown kind keeps the model's label. */
const ACTIVITY: Record<string, string> = {
  joined: "dashboard.activity.joined",
  signed_in: "dashboard.activity.signedIn",
  profile_updated: "dashboard.activity.profileUpdated",
  notifications_updated: "dashboard.activity.notificationsUpdated",
  billing_updated: "dashboard.activity.billingUpdated",
  preferences_updated: "dashboard.activity.preferencesUpdated",
  password_changed: "dashboard.activity.passwordChanged",
  password_reset: "dashboard.activity.passwordReset",
  signed_out_elsewhere: "dashboard.activity.signedOutElsewhere",
  status_active: "dashboard.activity.statusActive",
  status_suspended: "dashboard.activity.statusSuspended",
  status_banned: "dashboard.activity.statusBanned",
  gig_published: "dashboard.activity.gigPublished",
  gig_saved: "dashboard.activity.gigSaved",
  gig_paused: "dashboard.activity.gigPaused",
  gig_resumed: "dashboard.activity.gigResumed",
  gig_deleted: "dashboard.activity.gigDeleted",
  became_seller: "dashboard.activity.becameSeller",
  review_left: "dashboard.activity.reviewLeft",
  review_edited: "dashboard.activity.reviewEdited",
  review_deleted: "dashboard.activity.reviewDeleted",
  order_placed: "dashboard.activity.orderPlaced",
  payment_requested: "dashboard.activity.paymentRequested",
};

export function ActivityList({ items }: { items: ActivityLine[] }) {
  const { t } = useT();
  const { dateTime, dayTime } = usePreferences();
  if (items.length === 0) return <p>{t("dashboard.activity.empty")}</p>;
  return (
    <ul className="plain-list activity-list" aria-label={t("dashboard.activity.title")}>
      {items.map((a) => (
        <li key={a.id}>
          {a.count > 1 ? (
            <span>
              <T
                id="dashboard.activity.signedInTimes"
                values={{ count: a.count, when: dayTime(a.at) }}
                components={{ 0: <time dateTime={new Date(a.at).toISOString()} /> }}
              />
            </span>
          ) : (
            <>
              <span>{Object.hasOwn(ACTIVITY, a.kind) ? t(ACTIVITY[a.kind]!) : a.label}</span>
              <time dateTime={new Date(a.at).toISOString()}>{dateTime(a.at)}</time>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}
