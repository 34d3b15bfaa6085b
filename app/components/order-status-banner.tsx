/**
 * The banner at the top of an order's page: where the order stands for the member reading it, in words, the
 * one thing they should do next as its main button, and the dates that matter, in their time zone. Every
 * date comes from what the order stores (its due date, its delivery plus the auto-complete delay, its creation
 * plus the unpaid expiry, its completion plus the clearance delay); every button is a step the page already
 * has (a link to its form, or to the payment page), offered only when the state machine allows it.
 */
import { useRouteLoaderData } from "@remix-run/react";
import type { ReactNode } from "react";
import { Link } from "~/components/link";
import { OrderPost } from "~/components/order-card";
import { AUTO_COMPLETE_MS, CLEARANCE_MS, UNPAID_EXPIRY_MS, type OrderAction } from "~/domain/order-rules";
import type { loader as rootLoader } from "~/root";
import { formatDay, formatTime, type TimeZoneChoice } from "~/utils/dates";

type When = Date | string;

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

/** A button of the banner: a link (the pay page, a form further down the page) or the page's own POST. */
export type BannerButton = { to: string; label: string } | { post: "abandon"; label: string };

export type Banner = {
  /** The look: "act" when it waits on this member, "wait" on somebody else, "done", "stopped", "dispute". */
  tone: "act" | "wait" | "done" | "stopped" | "dispute" | "late";
  title: string;
  lines: string[];
  main: BannerButton | null;
  more: BannerButton | null;
};

const at = (when: When, ms: number) => new Date(new Date(when).getTime() + ms);

/** Date formatting in one time zone: "Fri 12 Dec", and "Fri 12 Dec at 14:05 EAT". */
export function datesIn(zone: TimeZoneChoice) {
  return {
    day: (when: When) => formatDay(when, zone),
    dayTime: (when: When) => `${formatDay(when, zone)} at ${formatTime(when, zone)} ${zone}`,
    time: (when: When) => `${formatTime(when, zone)} ${zone}`,
  };
}

/** The banner for one party of an order in its current state. */
export function orderBanner(f: BannerFacts, zone: TimeZoneChoice): Banner {
  const { day, dayTime, time } = datesIn(zone);
  const can = new Set(f.actions);
  const buyer = f.role === "buyer";
  const id = f.orderId;
  const deliver: BannerButton | null = can.has("deliver") ? { to: "#deliver", label: f.revisionReason ? "Deliver the changes" : "Deliver your work" } : null;

  if (f.dispute) {
    const who = f.dispute.byMe ? "You" : `The ${f.dispute.byRole}`;
    return {
      tone: "dispute",
      title: "This order is in dispute.",
      lines: [
        `${who} opened it on ${day(f.dispute.at)}: ${f.dispute.reason}`,
        "An admin reads both sides and decides what happens to the payment; until then the order waits, and both of you will be told.",
        ...(deliver ? ["You may still deliver your work."] : []),
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
        title: "Waiting for your payment",
        lines: [`Pay by ${time(expires)} (${day(expires)}), or the order is cancelled by itself. The seller starts work once it is paid.`],
        main: can.has("pay") ? { to: `/orders/${id}/pay`, label: "Complete payment" } : null,
        more: can.has("abandon") ? { post: "abandon", label: "Cancel order" } : null,
      };
    }
    case "in_progress": {
      const due = f.dueAt;
      if (!buyer) {
        const lines = [
          ...(f.revisionReason ? [`The buyer asked for changes: ${f.revisionReason}`] : []),
          due ? (f.late ? `It was due ${dayTime(due)}: deliver as soon as you can.` : `Deliver by ${dayTime(due)}.`) : "Deliver your work.",
        ];
        return {
          tone: f.late ? "late" : "act",
          title: due ? (f.late ? `Late: was due ${day(due)}` : `Due ${day(due)}`) : "Your turn",
          lines,
          main: deliver,
          more: null,
        };
      }
      const lines = [
        f.revisionReason
          ? `You asked for changes. ${f.otherName} is working on them.`
          : `${f.otherName} is working on your order. You will be told when it is delivered.`,
        ...(due ? [f.late ? `It was due ${dayTime(due)}.` : `Due ${dayTime(due)}.`] : []),
        ...(can.has("cancel") ? ["It is more than a day late: you may cancel it and get your payment back."] : []),
      ];
      return {
        tone: f.late ? "late" : "wait",
        title: due ? (f.late ? `Late: was due ${day(due)}` : `Due ${day(due)}`) : "Work has started",
        lines,
        main: can.has("cancel") ? { to: `/orders/${id}?confirm=cancel#cancel`, label: "Cancel for a refund…" } : null,
        more: null,
      };
    }
    case "delivered": {
      const auto = f.deliveredAt ? at(f.deliveredAt, AUTO_COMPLETE_MS) : null;
      if (buyer) {
        const changes = can.has("request_revision");
        return {
          tone: "act",
          title: "Delivered: check the work",
          lines: [
            `${f.otherName} delivered${f.deliveredAt ? ` on ${day(f.deliveredAt)}` : ""}. Approve it to release the payment${changes ? ", or ask for changes" : ""}.`,
            ...(auto ? [`Completes by itself on ${dayTime(auto)}${changes ? " unless you ask for changes" : " unless you answer"}.`] : []),
          ],
          main: can.has("approve") ? { to: `/orders/${id}?confirm=approve#approve`, label: "Approve delivery…" } : null,
          more: changes ? { to: "#revision", label: "Ask for changes" } : null,
        };
      }
      return {
        tone: "wait",
        title: "Delivered: waiting for the buyer",
        lines: [
          "The buyer approves the work or asks for changes.",
          ...(auto ? [`With no answer it completes by itself on ${dayTime(auto)}, and you are paid.`] : []),
        ],
        main: null,
        more: null,
      };
    }
    case "completed": {
      const done = f.completedAt ? ` on ${day(f.completedAt)}` : "";
      if (buyer) {
        return {
          tone: "done",
          title: "Completed",
          lines: [
            `The order was completed${done} and the payment released to ${f.otherName}.`,
            ...(can.has("review") ? ["How did it go? Your review helps other buyers."] : []),
          ],
          main: can.has("review") ? { to: "#review", label: "Leave a review" } : null,
          more: null,
        };
      }
      const clears = f.completedAt && !f.clearedAt ? at(f.completedAt, CLEARANCE_MS) : null;
      return {
        tone: "done",
        title: "Completed",
        lines: [
          `The order was completed${done}: you earn ${f.earnText}.`,
          clears ? `Your earnings clear on ${day(clears)}; then you can withdraw them.` : "Your earnings have cleared: you can withdraw them.",
        ],
        main: null,
        more: null,
      };
    }
    case "cancelled": {
      const when = f.cancelledAt ? ` on ${day(f.cancelledAt)}` : "";
      return {
        tone: "stopped",
        title: "Cancelled",
        lines: [
          `The order was cancelled${when}.`,
          f.paid ? (buyer ? "Your payment is refunded to the number that paid." : "The buyer's payment is refunded to them.") : "Nothing was paid.",
        ],
        main: null,
        more: null,
      };
    }
    default:
      return { tone: "wait", title: "Status unknown", lines: ["This order is in a state this page does not know yet."], main: null, more: null };
  }
}

function BannerAction({ orderId, button, main }: { orderId: number; button: BannerButton; main: boolean }) {
  if ("post" in button) return <OrderPost orderId={orderId} intent="cancel" label={button.label} pendingLabel="Cancelling…" secondary={!main} />;
  const className = main ? "button" : "button button-secondary";
  // A form further down this page is a plain anchor (no navigation); anything else goes through the router.
  if (button.to.startsWith("#"))
    return (
      <a href={button.to} className={className}>
        {button.label}
      </a>
    );
  return (
    <Link to={button.to} className={className} preventScrollReset={button.to.includes("#")}>
      {button.label}
    </Link>
  );
}

/** The banner itself: its title, its lines, its buttons; `children` (a cancel request's answer) go below. */
export function OrderStatusBanner({ facts, children }: { facts: BannerFacts; children?: ReactNode }) {
  const zone = useRouteLoaderData<typeof rootLoader>("root")?.timeZone ?? "EAT";
  const b = orderBanner(facts, zone);
  return (
    <section className={`order-banner order-banner-${b.tone}`} aria-labelledby="order-banner-title">
      <h2 id="order-banner-title">{b.title}</h2>
      {b.lines.map((line) => (
        <p key={line}>{line}</p>
      ))}
      {b.main || b.more ? (
        <div className="order-banner-actions">
          {b.main ? <BannerAction orderId={facts.orderId} button={b.main} main /> : null}
          {b.more ? <BannerAction orderId={facts.orderId} button={b.more} main={false} /> : null}
        </div>
      ) : null}
      {children}
    </section>
  );
}
