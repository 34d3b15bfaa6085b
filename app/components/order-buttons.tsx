/**
 * The buttons an order offers, on the /orders list and the order's page alike (apart from the list's card, so
 * the order's page loads them without it): its badge, the way to its conversation, and its small POST forms.
 */
import { Form, useNavigation } from "@remix-run/react";
import type { ReactNode } from "react";
import type { I18n } from "@lingui/core";
import { orderBadge } from "~/domain/order-rules";
import { useT } from "~/i18n/react";

/** The order's badge: its status, or "In dispute" (order-rules.ts, orderBadge), the same on the list and the order's page. */
export function OrderBadge({ status, disputeOpen }: { status: string; disputeOpen: boolean }) {
  const { t } = useT();
  const badge = orderBadge(status, disputeOpen);
  return <span className={`status-badge ${badge.className}`}>{t(badge.key)}</span>;
}

/** "1 day", "3 days", in the reader's language. */
export const daysText = (t: I18n["_"], days: number) => t("orders.days", { count: days });

/**
 * Contact: starts (or finds) the conversation with the order's other party, about this order, and goes to
 * it (a POST to /messages: opening a conversation is a change, so it is not a link).
 */
export function ContactButton({ orderId }: { orderId: number }) {
  const { t } = useT();
  return (
    <Form method="post" action="/messages" className="inline-form">
      <input type="hidden" name="intent" value="start" />
      <input type="hidden" name="orderId" value={orderId} />
      <button type="submit" className="link-button">
        {t("orders.card.contact")}
      </button>
    </Form>
  );
}

/**
 * A submit button of one of an order's forms. While its own submission is in flight (this order, this
 * intent) it is disabled and reads `pendingLabel`; the other orders' buttons stay as they are.
 */
export function OrderButton({
  orderId,
  intent,
  pendingLabel,
  children,
  secondary = false,
}: {
  orderId: number;
  intent: string;
  pendingLabel: string;
  children: ReactNode;
  secondary?: boolean;
}) {
  const navigation = useNavigation();
  const pending =
    navigation.state === "submitting" && navigation.formAction?.split("?")[0] === `/orders/${orderId}` && navigation.formData?.get("intent") === intent;
  return (
    <button
      type="submit"
      name="intent"
      value={intent}
      className={`button button-small${secondary ? " button-secondary" : ""}`}
      disabled={pending}
      aria-disabled={pending}
    >
      {pending ? pendingLabel : children}
    </button>
  );
}

/** A one-button POST to the order's page; `back` is where a success returns to (this list, say). */
export function OrderPost({
  orderId,
  intent,
  label,
  pendingLabel,
  back,
  secondary,
  expected,
}: {
  orderId: number;
  intent: string;
  label: string;
  pendingLabel: string;
  back?: string;
  secondary?: boolean;
  /** For a cancel: which kind the button means (app/schemas/order.ts, CancelSchema). */
  expected?: string;
}) {
  return (
    <Form method="post" action={`/orders/${orderId}`} className="inline-form">
      <input type="hidden" name="orderId" value={orderId} />
      {expected ? <input type="hidden" name="expected" value={expected} /> : null}
      {back ? <input type="hidden" name="redirectTo" value={back} /> : null}
      <OrderButton orderId={orderId} intent={intent} pendingLabel={pendingLabel} secondary={secondary}>
        {label}
      </OrderButton>
    </Form>
  );
}
