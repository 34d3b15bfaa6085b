/**
 * One order in the /orders list, and the actions an order offers there: exactly the actions the state machine
 * (app/domain/order-rules.ts) gives this member now, computed by the loader. A button that changes the order
 * is a small POST form to the order's page (it works without JavaScript); anything that asks for words (a
 * delivery, a revision, a reason) is a link to the order page's form, and so is approving a delivery: the
 * buyer sees the delivery and confirms the release of the payment there, never from the list.
 */
import { Link } from "~/components/link";
import { StoredImage } from "~/components/data-saver";
import { ContactButton, daysText, OrderBadge, OrderPost } from "~/components/order-buttons";
import type { OrderListItem } from "~/models/order.server";
import { orderNumber, type OrderAction } from "~/domain/order-rules";
import { usePreferences } from "~/hooks/use-preferences";
import { useT } from "~/i18n/react";

/** An order as the list shows it: the model's item, as JSON carries it, with the actions its viewer may take. */
export type OrderCardData = Omit<OrderListItem, "facts" | "dueAt" | "createdAt"> & {
  dueAt: Date | string | null;
  createdAt: Date | string;
  disputeOpen: boolean;
  actions: OrderAction[];
};

/** The order's actions as links and buttons, in the order a member looks for them. */
export function OrderActions({ order, back }: { order: Pick<OrderCardData, "id" | "gigId" | "otherUsername" | "actions">; back: string }) {
  const { t } = useT();
  const can = new Set(order.actions);
  const page = `/orders/${order.id}`;
  return (
    <div className="order-actions">
      {can.has("pay") ? (
        <Link to={`${page}/pay`} className="button button-small">
          {t("orders.card.completePayment")}
        </Link>
      ) : null}
      {can.has("deliver") ? (
        <Link to={`${page}#deliver`} className="button button-small">
          {t("orders.card.deliver")}
        </Link>
      ) : null}
      {can.has("approve") ? (
        <Link to={`${page}#respond`} className="button button-small">
          {t("orders.card.reviewDelivery")}
        </Link>
      ) : null}
      {can.has("request_revision") ? <Link to={`${page}#revision`}>{t("orders.card.requestRevision")}</Link> : null}
      {can.has("review") ? (
        <Link to={`${page}#review`} className="button button-small">
          {t("orders.card.leaveReview")}
        </Link>
      ) : null}
      {can.has("agree_cancel") ? (
        <OrderPost
          orderId={order.id}
          intent="cancel"
          expected="agree_cancel"
          label={t("orders.card.agreeCancel")}
          pendingLabel={t("orders.card.cancelling")}
          back={back}
          secondary
        />
      ) : null}
      {can.has("decline_cancel") ? (
        <OrderPost
          orderId={order.id}
          intent="decline_cancel"
          label={t("orders.card.declineCancel")}
          pendingLabel={t("orders.card.declining")}
          back={back}
          secondary
        />
      ) : null}
      {can.has("withdraw_cancel") ? (
        <OrderPost
          orderId={order.id}
          intent="decline_cancel"
          label={t("orders.card.withdrawCancel")}
          pendingLabel={t("orders.card.withdrawing")}
          back={back}
          secondary
        />
      ) : null}
      <ContactButton orderId={order.id} />
      {order.gigId !== null ? <Link to={`/gig/${order.gigId}`}>{t("orders.card.viewGig")}</Link> : null}
      {can.has("abandon") ? (
        <OrderPost
          orderId={order.id}
          intent="cancel"
          expected="abandon"
          label={t("orders.card.cancelOrder")}
          pendingLabel={t("orders.card.cancelling")}
          back={back}
          secondary
        />
      ) : null}
      {can.has("cancel") ? <Link to={`${page}?confirm=cancel#cancel`}>{t("orders.card.cancel")}</Link> : null}
      {can.has("request_cancel") ? <Link to={`${page}?confirm=cancel#cancel`}>{t("orders.card.requestCancel")}</Link> : null}
      {can.has("dispute") ? <Link to={`${page}?confirm=dispute#dispute`}>{t("orders.card.openDispute")}</Link> : null}
    </div>
  );
}

/** One order in the list: what was ordered, from or for whom, where it stands, what it cost, what can be done. */
export function OrderCard({ order, back }: { order: OrderCardData; back: string }) {
  const { price, date } = usePreferences();
  const { t } = useT();
  const buyer = order.role === "buyer";
  return (
    <article className="order-card" aria-labelledby={`order-${order.id}-title`}>
      {order.imageKey ? (
        <StoredImage className="order-thumb" imageKey={order.imageKey} alt="" sizes="160px" width={160} height={90} />
      ) : (
        <div className="order-thumb order-thumb-empty" aria-hidden="true">
          {order.gigTitle.trim().charAt(0).toUpperCase() || "S"}
        </div>
      )}
      <div className="order-card-body">
        <p className="order-number">
          {orderNumber(order.id)} <OrderBadge status={order.status} disputeOpen={order.disputeOpen} />
        </p>
        <h3 id={`order-${order.id}-title`} className="order-title">
          <Link to={`/orders/${order.id}`}>{order.gigTitle}</Link>
        </h3>
        <div className="order-party">
          {buyer ? t("orders.party.seller") : t("orders.party.buyer")}: <Link to={`/user/${encodeURIComponent(order.otherUsername)}`}>{order.otherName}</Link>
        </div>
        <dl className="order-facts">
          <div>
            <dt>{buyer ? t("orders.card.total") : t("orders.card.price")}</dt>
            <dd>{price(buyer ? order.totalUgx : order.priceUgx)}</dd>
          </div>
          <div>
            <dt>{t("orders.card.due")}</dt>
            <dd>{order.dueAt ? date(order.dueAt) : t("orders.card.oncePaid")}</dd>
          </div>
          <div>
            <dt>{t("orders.card.ordered")}</dt>
            <dd>{date(order.createdAt)}</dd>
          </div>
          <div>
            <dt>{t("orders.card.deliveryTime")}</dt>
            <dd>{daysText(t, order.deliveryDays)}</dd>
          </div>
        </dl>
        <OrderActions order={order} back={back} />
      </div>
    </article>
  );
}
