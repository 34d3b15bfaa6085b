/**
 * The header's unread counts: the bell (unread notifications, a link to /notifications) and the Messages
 * link's count. The root loader gives both, so without JavaScript they are plain links with the counts of
 * the moment the page was made. With JavaScript the page's one live connection (app/hooks/live-client.ts)
 * keeps them current: the "notification" event says the new notification total itself; a message from the
 * other member adds one to Messages; a conversation read somewhere (its event carries that conversation's
 * count, not the total) and each connection (events came without the page before it) ask
 * /notifications/counts again.
 */
import { Icon } from "~/components/icon";
import { NavLink } from "~/components/link";
import { useCallback, useEffect, useRef, useState } from "react";
import { useT } from "~/i18n/react";
import type { ConversationSummary } from "~/models/conversation.server";
import type { Message } from "~/models/message.server";
import type { NotificationPush } from "~/operations/notifications.server";

import type { HeaderCounts } from "~/models/notification.server";

export type { HeaderCounts };

/**
 * "Notifications, 3 unread": what a screen reader says for a link with a count, and what tests look for.
 * `label` is the link's word, `counted` the message with the count ({label} and {count}).
 */
export const countLabel = (label: string, counted: (count: number) => string, unread: number) => (unread > 0 ? counted(unread) : label);

/** The counts from the root loader, moved by live events once the page has JavaScript; null for visitors. */
export function useHeaderCounts(initial: HeaderCounts | null) {
  const enabled = initial !== null;
  const [counts, setCounts] = useState(initial);
  // What a screen reader announces politely: the newest notification's text (a counter makes the same text
  // twice a change the reader notices).
  const [news, setNews] = useState({ text: "", n: 0 });
  // Whether live events reach the page now (the bell says so in an attribute end-to-end specs wait for).
  const [live, setLive] = useState(false);
  // Fresh loader data (a navigation or a form that revalidated the root) is the truth again.
  useEffect(() => setCounts(initial), [initial]);

  // Live events counted, so counts asked for before one of them came are not applied after it.
  const events = useRef(0);
  const refresh = useCallback(async () => {
    const asked = events.current;
    try {
      const res = await fetch("/notifications/counts", { headers: { Accept: "application/json" } });
      const fresh = res.ok ? ((await res.json()) as HeaderCounts) : null;
      if (fresh && events.current === asked) setCounts(fresh);
    } catch {
      // Offline again: the next connection asks once more.
    }
  }, []);

  // The live connection's code (socket.io's client) is fetched only for a member, once the page has
  // JavaScript: a visitor's page never loads it.
  useEffect(() => {
    if (!enabled) return;
    let stop: (() => void) | undefined;
    let gone = false;
    void import("~/hooks/live-client").then(({ getLiveSocket }) => {
      if (gone) return;
      const socket = getLiveSocket();
      const onNotification = (push: NotificationPush) => {
        events.current++;
        setCounts((c) => c && { ...c, notifications: push.unread });
        if (push.item) setNews((old) => ({ text: push.item!.body, n: old.n + 1 }));
      };
      const onMessage = ({ message, conversation }: { message: Message; conversation: ConversationSummary | null }) => {
        // The member's own messages (sent from this page or another) come back too; only the other's count.
        events.current++;
        if (conversation && message.senderId === conversation.other.id) setCounts((c) => c && { ...c, messages: c.messages + 1 });
      };
      const onRefresh = () => void refresh();
      // Connected (the first time, or again): what happened since the page was made, or while the
      // connection was down, came without this page, so the counts are asked for once.
      const onConnect = () => {
        setLive(true);
        void refresh();
      };
      const onDisconnect = () => setLive(false);
      if (socket.connected) onConnect();
      socket.on("connect", onConnect);
      socket.on("disconnect", onDisconnect);
      socket.on("notification", onNotification);
      socket.on("new_message", onMessage);
      socket.on("conversation_updated", onRefresh);
      stop = () => {
        socket.off("connect", onConnect);
        socket.off("disconnect", onDisconnect);
        socket.off("notification", onNotification);
        socket.off("new_message", onMessage);
        socket.off("conversation_updated", onRefresh);
      };
    });
    return () => {
      gone = true;
      stop?.();
    };
  }, [enabled, refresh]);

  return { counts, live, news: news.text ? `${news.text}${news.n % 2 ? "" : "\u00a0"}` : "" };
}

/** A count over an icon or a word; the link's own label says it in words. */
export function CountBadge({ count }: { count: number }) {
  if (count <= 0) return null;
  return (
    <span className="count-badge" aria-hidden="true" data-count={count}>
      {count > 99 ? "99+" : count}
    </span>
  );
}

/** The bell: a link to /notifications with the unread count (a badge, and in its accessible name). */
export function NotificationBell({ unread, live = false }: { unread: number; live?: boolean }) {
  const { t } = useT();
  return (
    <NavLink
      to="/notifications"
      className="header-icon header-bell"
      aria-label={countLabel(t("common.header.notifications"), (count) => t("common.header.notificationsUnread", { count }), unread)}
      data-live={live ? "connected" : undefined}
    >
      <Icon paths={["M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9", "M10.3 21a1.94 1.94 0 0 0 3.4 0"]} />
      <CountBadge count={unread} />
    </NavLink>
  );
}
