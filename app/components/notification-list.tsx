/**
 * One notification of /notifications and the page's "Mark all read". Both are small POST forms, so they work
 * without JavaScript (the action redirects back); with JavaScript they go through a fetcher: the page stays
 * where it is, the button says it is busy, the item shows read at once, and the loaders (the header's counts
 * with them) reload when the action is done.
 */
import { useFetcher, useFetchers } from "@remix-run/react";
import { Link } from "~/components/link";
import { useEffect, useState } from "react";
import type { Notification } from "~/models/notification.server";
import { PAYOUT_NUMBER_NOTIFICATION } from "~/domain/mobile-money";
import { LEVEL_NOTIFICATION } from "~/domain/seller-levels";
import { usePreferences } from "~/hooks/use-preferences";
import { useT } from "~/i18n/react";

type Item = Omit<Notification, "at"> & { at: Date | string };

/** Where a notification leads: its order, its conversation, its gig (a saved seller's new one), or (a payout number changed) Settings → Billing. */
export function notificationHref(n: Pick<Notification, "kind" | "orderId" | "conversationId"> & { gigId?: number | null }): string | null {
  if (n.conversationId) return `/messages/${n.conversationId}`;
  if (n.gigId) return `/gig/${n.gigId}`;
  if (n.orderId) return `/orders/${n.orderId}`;
  if (n.kind === PAYOUT_NUMBER_NOTIFICATION) return "/settings?tab=billing";
  if (n.kind === LEVEL_NOTIFICATION) return "/dashboard#level-title";
  return null;
}

/** Marks a form sent by a page with JavaScript, which wants an answer in place rather than a redirect. */
function InPlace() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated ? <input type="hidden" name="inPlace" value="1" /> : null;
}

/** Whether a "Mark all read" of this page is on its way. */
function useMarkingAll() {
  return useFetchers().some((f) => f.state !== "idle" && f.formData?.get("intent") === "read-all");
}

/** A notification's body is stored words (app/operations/notifications.server.ts): shown as it is; the list's own words are `dashboard`'s. */
export function NotificationItem({ notification: n }: { notification: Item }) {
  const { t } = useT();
  const { dateTime } = usePreferences();
  const fetcher = useFetcher();
  const markingAll = useMarkingAll();
  const marking = fetcher.state !== "idle";
  const read = n.read || markingAll || (marking && fetcher.formData?.get("intent") === "read");
  const href = notificationHref(n);
  return (
    <li className={read ? "notification" : "notification unread"}>
      <div className="notification-text">
        {read ? null : <span className="status-badge notification-new">{t("dashboard.notifications.unreadBadge")}</span>}{" "}
        {href ? <Link to={href}>{n.body}</Link> : <span>{n.body}</span>}
        <time dateTime={new Date(n.at).toISOString()}>{dateTime(n.at)}</time>
      </div>
      {n.read ? null : (
        <fetcher.Form method="post" className="inline-form">
          <InPlace />
          <input type="hidden" name="id" value={n.id} />
          <button
            type="submit"
            name="intent"
            value="read"
            className="link-button"
            disabled={marking || markingAll}
            aria-label={t("dashboard.notifications.markReadLabel", { body: n.body })}
          >
            {marking ? t("dashboard.notifications.marking") : t("dashboard.notifications.markRead")}
          </button>
        </fetcher.Form>
      )}
    </li>
  );
}

export function MarkAllReadForm() {
  const { t } = useT();
  const fetcher = useFetcher();
  const busy = fetcher.state !== "idle";
  return (
    <fetcher.Form method="post" className="inline-form">
      <InPlace />
      <button type="submit" name="intent" value="read-all" className="button button-secondary button-small" disabled={busy}>
        {busy ? t("dashboard.notifications.markingAll") : t("dashboard.notifications.markAll")}
      </button>
    </fetcher.Form>
  );
}
