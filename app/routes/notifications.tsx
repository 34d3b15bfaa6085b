import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData, useRevalidator } from "@remix-run/react";
import { Link } from "~/components/link";
import { useCallback } from "react";
import { z } from "zod";
import { GeneralErrorBoundary } from "~/components/general-error-boundary";
import { NotificationItem, MarkAllReadForm } from "~/components/notification-list";
import { notificationsPage, unreadNotificationCount } from "~/models/notification.server";
import { markNotificationRead, markNotificationsRead, type NotificationPush } from "~/operations/notifications.server";
import { requireMemberActor, requireUser } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { readFormData } from "~/server/form-data.server";
import { failureStatus } from "~/server/operation-results.server";
import { useLiveEvent } from "~/hooks/live-client";
import { messageOf } from "~/content/operation-messages";
import { requestLocale } from "~/i18n/locale.server";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { metaI18n, useT } from "~/i18n/react";

export { actionHeaders as headers } from "~/utils/headers";

/** The page's two forms, told apart by `intent`: one notification read, or all of them. */
const NotificationIntentSchema = z.discriminatedUnion("intent", [
  z.object({
    intent: z.literal("read"),
    id: z.coerce
      .number()
      .int()
      .positive()
      .max(2 ** 53),
  }),
  z.object({ intent: z.literal("read-all") }),
]);

const BeforeSchema = z.coerce
  .number()
  .int()
  .positive()
  .max(2 ** 53)
  .optional();

/** The member's notifications, newest first, a page at a time (`?before=<id>` for older ones). */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const raw = new URL(request.url).searchParams.get("before");
  const before = BeforeSchema.safeParse(raw || undefined);
  if (!before.success) {
    const t = await requestT(request);
    throw new Response(t("dashboard.notifications.noSuchPage"), { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  const db = getDb();
  // The notifications' words in the page's language (stored notices are said when read).
  const locale = await requestLocale(request);
  const [page, unread] = await Promise.all([notificationsPage(db, user.id, { before: before.data, locale }), unreadNotificationCount(db, user.id)]);
  return { ...page, unread, paged: before.data !== undefined, ...(await pageMessages(request, ["dashboard"])) };
}

/**
 * Mark read (one, by id) and mark all read, through the notification operations: only the member's own;
 * another member's id is not found and changes nothing. Without JavaScript the answer is a redirect back to
 * the page the form was on; a page with JavaScript (`inPlace`) stays where it is and its loaders reload.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireMemberActor(request, context.clientIp);
  const form = await readFormData(request);
  const parsed = NotificationIntentSchema.safeParse(Object.fromEntries(form));
  if (!parsed.success) {
    const t = await requestT(request);
    throw new Response(t("dashboard.notifications.chooseOne"), { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  const result = parsed.data.intent === "read" ? await markNotificationRead(actor, { id: parsed.data.id }) : await markNotificationsRead(actor);
  if (!result.ok)
    throw new Response(
      result.error === "invalid" ? (await requestT(request))("dashboard.notifications.couldNotDo") : messageOf(result, await requestLocale(request)),
      {
        status: failureStatus(result),
        headers: { "Content-Type": "text/plain; charset=utf-8" },
      },
    );
  if (form.get("inPlace") === "1") return data({ ok: true });
  const back = new URL(request.url).searchParams.get("before");
  return redirect(back && /^\d+$/.test(back) ? `/notifications?before=${back}` : "/notifications", 303);
}

export default function Notifications() {
  const { t } = useT();
  const d = useLoaderData<typeof loader>();
  // A new notification while the page is open: the list reloads to show it (the header's bell moves by itself).
  const { revalidate } = useRevalidator();
  useLiveEvent<NotificationPush>(
    true,
    "notification",
    useCallback((push) => void (push.item && revalidate()), [revalidate]),
  );
  const last = d.notifications.at(-1);
  return (
    <section className="container notifications-page" aria-labelledby="notifications-title">
      <div className="notifications-head">
        <h1 id="notifications-title">{t("dashboard.notifications.title")}</h1>
        <p className="notifications-unread">{d.unread ? t("dashboard.notifications.unread", { count: d.unread }) : t("dashboard.notifications.allRead")}</p>
        {d.unread ? <MarkAllReadForm /> : null}
      </div>
      {d.notifications.length === 0 ? (
        <p className="empty-state">{d.paged ? t("dashboard.notifications.noOlder") : t("dashboard.notifications.empty")}</p>
      ) : (
        <ul className="notification-feed" aria-label={t("dashboard.notifications.label")}>
          {d.notifications.map((n) => (
            <NotificationItem key={n.id} notification={n} />
          ))}
        </ul>
      )}
      {d.paged || d.more ? (
        <nav className="pager" aria-label={t("dashboard.notifications.more")}>
          {d.paged ? <Link to="/notifications">{t("dashboard.notifications.newest")}</Link> : null}
          {d.more && last ? <Link to={`/notifications?before=${last.id}`}>{t("dashboard.notifications.older")}</Link> : null}
        </nav>
      ) : null}
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => {
  // Without data (this route's error page) only the root's `common` words are here: the title stays as it was.
  if (!data) return [{ title: "Notifications | Soko" }];
  const { _ } = metaI18n(matches);
  return [{ title: _("dashboard.notifications.metaTitle") }];
};

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
