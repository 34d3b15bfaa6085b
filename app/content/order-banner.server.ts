/**
 * The words of the banner at the top of an order's page (app/components/order-status-banner.tsx), said on the
 * server: where the order stands for the member reading it, the one thing they should do next as its main
 * button, and the dates that matter, in their time zone and language. Every date comes from what the order
 * stores (its due date, its delivery plus the auto-complete delay, its creation plus the unpaid expiry, its
 * completion plus the clearance delay); every button is a step the page already has (a link to its form, or
 * to the payment page), offered only when the state machine allows it.
 *
 * The page's loader words it (the banner is a pure function of the loader's facts, and the page asks for
 * them again as it polls), so the browser never loads the banner's sentences (`orders.banner`), only the
 * finished ones.
 */
import type { I18n } from "@lingui/core";
import { serverI18n } from "~/i18n/catalog.server";
import { AUTO_COMPLETE_MS, CLEARANCE_MS, UNPAID_EXPIRY_MS, type OrderAction } from "~/domain/order-rules";
import { DEFAULT_LOCALE, type Locale } from "~/i18n/locales";
import { sayOf } from "~/i18n/react";
import { formatDay, formatTime, type TimeZoneChoice } from "~/utils/dates";

type When = Date | string;
type Say = I18n["_"];

/** What the banner needs to know, from the page's loader (whatever depends on the clock is decided there). */
export type BannerFacts = {
  orderId: number;
  role: "buyer" | "seller";
  status: string;
  otherName: string;
  actions: OrderAction[];
  createdAt: When;
  dueAt: When | null;
  deliveredAt: When | null;
  completedAt: When | null;
  cancelledAt: When | null;
  clearedAt: When | null;
  paid: boolean;
  /** In progress past its due date (the server's clock). */
  late: boolean;
  /** The buyer's words, when the order is back in progress because they asked for changes. */
  revisionReason: string | null;
  revisionsLeft: number;
  dispute: { byMe: boolean; byRole: "buyer" | "seller"; at: When; reason: string } | null;
  cancelRequest: { byMe: boolean } | null;
  /** What the seller earns, formatted. */
  earnText: string;
};

/**
 * A button of the banner: a link (the pay page, a form further down the page) or the page's own POST, with
 * what it reads while that is sent.
 */
export type BannerButton = { to: string; label: string } | { post: "abandon"; label: string; pending: string };

export type Banner = {
  /** The look: "act" when it waits on this member, "wait" on somebody else, "done", "stopped", "dispute". */
  tone: "act" | "wait" | "done" | "stopped" | "dispute" | "late";
  title: string;
  lines: string[];
  main: BannerButton | null;
  more: BannerButton | null;
};

const at = (when: When, ms: number) => new Date(new Date(when).getTime() + ms);

/** Date formatting in one time zone and language: "Fri 12 Dec", and "Fri 12 Dec at 14:05 EAT". */
function datesIn(zone: TimeZoneChoice, t: Say, locale: Locale = DEFAULT_LOCALE) {
  const time = (when: When) => `${formatTime(when, zone, locale)} ${zone}`;
  const day = (when: When) => formatDay(when, zone, locale);
  return {
    day,
    dayTime: (when: When) => t("orders.banner.dayTime", { day: day(when), time: time(when) }),
    time,
  };
}

/** The banner for one party of an order in its current state, in the reader's time zone and language. */
export function orderBanner(f: BannerFacts, { zone, locale = DEFAULT_LOCALE }: { zone: TimeZoneChoice; locale?: Locale }): Banner {
  // The short way with plain messages the page's render took (ADR 048), not Lingui's formatters on every call.
  const t = sayOf(serverI18n(locale));
  const { day, dayTime, time } = datesIn(zone, t, locale);
  const can = new Set(f.actions);
  const buyer = f.role === "buyer";
  const id = f.orderId;
  const deliver: BannerButton | null = can.has("deliver")
    ? { to: "#deliver", label: f.revisionReason ? t("orders.banner.deliverChanges") : t("orders.banner.deliverWork") }
    : null;

  if (f.dispute) {
    const opened = { day: day(f.dispute.at), reason: f.dispute.reason };
    return {
      tone: "dispute",
      title: t("orders.banner.disputeTitle"),
      lines: [
        f.dispute.byMe ? t("orders.banner.disputeOpenedByMe", opened) : t("orders.banner.disputeOpenedBy", { ...opened, role: f.dispute.byRole }),
        t("orders.banner.disputeWait"),
        ...(deliver ? [t("orders.banner.disputeMayDeliver")] : []),
      ],
      main: deliver,
      more: null,
    };
  }

  switch (f.status) {
    case "pending_payment": {
      const expires = at(f.createdAt, UNPAID_EXPIRY_MS);
      return {
        tone: "act",
        title: t("orders.banner.payTitle"),
        lines: [t("orders.banner.payBy", { time: time(expires), day: day(expires) })],
        main: can.has("pay") ? { to: `/orders/${id}/pay`, label: t("orders.banner.completePayment") } : null,
        more: can.has("abandon") ? { post: "abandon", label: t("orders.banner.cancelOrder"), pending: t("orders.banner.cancelling") } : null,
      };
    }
    case "in_progress": {
      const due = f.dueAt;
      const title = due ? (f.late ? t("orders.banner.lateTitle", { day: day(due) }) : t("orders.banner.dueTitle", { day: day(due) })) : null;
      if (!buyer) {
        const lines = [
          ...(f.revisionReason ? [t("orders.banner.changesAsked", { reason: f.revisionReason })] : []),
          due
            ? f.late
              ? t("orders.banner.lateDeliver", { when: dayTime(due) })
              : t("orders.banner.deliverBy", { when: dayTime(due) })
            : t("orders.banner.deliverYourWork"),
        ];
        return {
          tone: f.late ? "late" : "act",
          title: title ?? t("orders.banner.yourTurn"),
          lines,
          main: deliver,
          more: null,
        };
      }
      const lines = [
        f.revisionReason ? t("orders.banner.workingOnChanges", { name: f.otherName }) : t("orders.banner.workingOnOrder", { name: f.otherName }),
        ...(due ? [f.late ? t("orders.banner.wasDue", { when: dayTime(due) }) : t("orders.banner.dueLine", { when: dayTime(due) })] : []),
        ...(can.has("cancel") ? [t("orders.banner.mayCancel")] : []),
      ];
      return {
        tone: f.late ? "late" : "wait",
        title: title ?? t("orders.banner.workStarted"),
        lines,
        main: can.has("cancel") ? { to: `/orders/${id}?confirm=cancel#cancel`, label: t("orders.banner.cancelForRefund") } : null,
        more: null,
      };
    }
    case "delivered": {
      const auto = f.deliveredAt ? at(f.deliveredAt, AUTO_COMPLETE_MS) : null;
      if (buyer) {
        const changes = can.has("request_revision") ? "yes" : "no";
        return {
          tone: "act",
          title: t("orders.banner.checkWork"),
          lines: [
            f.deliveredAt
              ? t("orders.banner.deliveredOn", { name: f.otherName, day: day(f.deliveredAt), changes })
              : t("orders.banner.delivered", { name: f.otherName, changes }),
            ...(auto ? [t("orders.banner.autoComplete", { when: dayTime(auto), changes })] : []),
          ],
          main: can.has("approve") ? { to: `/orders/${id}?confirm=approve#approve`, label: t("orders.banner.approveDelivery") } : null,
          more: changes === "yes" ? { to: "#revision", label: t("orders.banner.askForChanges") } : null,
        };
      }
      return {
        tone: "wait",
        title: t("orders.banner.waitingForBuyer"),
        lines: [t("orders.banner.buyerAnswers"), ...(auto ? [t("orders.banner.sellerAutoComplete", { when: dayTime(auto) })] : [])],
        main: null,
        more: null,
      };
    }
    case "completed": {
      const done = f.completedAt ? day(f.completedAt) : null;
      if (buyer) {
        return {
          tone: "done",
          title: t("orders.banner.completed"),
          lines: [
            done ? t("orders.banner.completedBuyerOn", { day: done, name: f.otherName }) : t("orders.banner.completedBuyer", { name: f.otherName }),
            ...(can.has("review") ? [t("orders.banner.askReview")] : []),
          ],
          main: can.has("review") ? { to: "#review", label: t("orders.banner.leaveReview") } : null,
          more: null,
        };
      }
      const clears = f.completedAt && !f.clearedAt ? at(f.completedAt, CLEARANCE_MS) : null;
      return {
        tone: "done",
        title: t("orders.banner.completed"),
        lines: [
          done ? t("orders.banner.completedSellerOn", { day: done, amount: f.earnText }) : t("orders.banner.completedSeller", { amount: f.earnText }),
          clears ? t("orders.banner.earningsClear", { day: day(clears) }) : t("orders.banner.earningsCleared"),
        ],
        main: null,
        more: null,
      };
    }
    case "cancelled": {
      return {
        tone: "stopped",
        title: t("orders.banner.cancelled"),
        lines: [
          f.cancelledAt ? t("orders.banner.cancelledOn", { day: day(f.cancelledAt) }) : t("orders.banner.cancelledNoDay"),
          f.paid ? (buyer ? t("orders.banner.refundedToYou") : t("orders.banner.refundedToBuyer")) : t("orders.banner.nothingPaid"),
        ],
        main: null,
        more: null,
      };
    }
    default:
      return { tone: "wait", title: t("orders.banner.unknownTitle"), lines: [t("orders.banner.unknown")], main: null, more: null };
  }
}
