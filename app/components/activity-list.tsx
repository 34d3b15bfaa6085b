/**
 * The dashboard's recent activity: one line each, except sign-ins in a row, which are one line ("Signed in 5
 * times, last on Fri 12 Dec 14:05") so that a member who signs in daily still sees what else happened.
 */
import { usePreferences } from "~/hooks/use-preferences";
import { MEMBER_ACTIVITY_KEY, sayActivity } from "~/domain/activity";
import { T, useT } from "~/i18n/react";

export type ActivityLine = { id: number; kind: string; at: Date | string; count: number };

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
              <span>{sayActivity(t, MEMBER_ACTIVITY_KEY, a.kind, "dashboard.activity.unknown")}</span>
              <time dateTime={new Date(a.at).toISOString()}>{dateTime(a.at)}</time>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}
