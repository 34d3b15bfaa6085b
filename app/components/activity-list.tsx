/**
 * The dashboard's recent activity: one line each, except sign-ins in a row, which are one line ("Signed in 5
 * times, last on Fri 12 Dec 14:05") so that a member who signs in daily still sees what else happened.
 */
import { usePreferences } from "~/hooks/use-preferences";

export type ActivityLine = { id: number; kind: string; label: string; at: Date | string; count: number };

export function ActivityList({ items }: { items: ActivityLine[] }) {
  const { dateTime, dayTime } = usePreferences();
  if (items.length === 0) return <p>Nothing yet.</p>;
  return (
    <ul className="plain-list activity-list" aria-label="Recent activity">
      {items.map((a) => (
        <li key={a.id}>
          {a.count > 1 ? (
            <span>
              Signed in {a.count} times, last on <time dateTime={new Date(a.at).toISOString()}>{dayTime(a.at)}</time>
            </span>
          ) : (
            <>
              <span>{a.label}</span>
              <time dateTime={new Date(a.at).toISOString()}>{dateTime(a.at)}</time>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}
