/**
 * The notifications about an order, in one place: each names the order by its gig's title in quotation marks
 * ("Your order “Logo in 24 hours” was delivered"), so a member with several orders knows which one at a glance.
 * Each is a Notice (a key of the `notify` catalogue and its values, app/models/notification.server.ts): stored
 * as the notification and said in the reader's language when read; notifyParty mails it, in the recipient's
 * language, as the subject.
 */
import type { Notice } from "~/models/notification.server";
import type { OrderRow } from "~/models/order.server";

type Titled = Pick<OrderRow, "gigTitle">;

/** A gig's title as the notifications quote it (the catalogue's messages put it in quotation marks). */
const title = (o: Titled) => ({ title: o.gigTitle.trim() });

/** Who the other party is to the member being told: the buyer or the seller of the order. */
export type Party = "buyer" | "seller";

export const orderNotice = {
  /** To the seller, when the buyer's payment lands. */
  newOrder: (o: Titled): Notice => ({ key: "notify.order.newOrder", values: title(o) }),
  paymentHeld: (o: Titled): Notice => ({ key: "notify.order.paymentHeld", values: title(o) }),
  paymentFailed: (o: Titled): Notice => ({ key: "notify.order.paymentFailed", values: title(o) }),
  latePaymentRefunded: (o: Titled): Notice => ({ key: "notify.order.latePaymentRefunded", values: title(o) }),
  /** To the buyer, when a second payment of an order already paid is returned. */
  secondPaymentRefunded: (o: Titled): Notice => ({ key: "notify.order.secondPaymentRefunded", values: title(o) }),
  delivered: (o: Titled): Notice => ({ key: "notify.order.delivered", values: title(o) }),
  revisionRequested: (o: Titled): Notice => ({ key: "notify.order.revisionRequested", values: title(o) }),
  /** To the seller, whoever completed it (the buyer, the timer or an admin). */
  completed: (o: Titled): Notice => ({ key: "notify.order.completed", values: title(o) }),
  autoCompleted: (o: Titled): Notice => ({ key: "notify.order.autoCompleted", values: title(o) }),
  cancelled: (o: Titled): Notice => ({ key: "notify.order.cancelled", values: title(o) }),
  cancelRequested: (o: Titled, by: Party): Notice => ({ key: "notify.order.cancelRequested", values: { ...title(o), by } }),
  disputeOpened: (o: Titled, by: Party): Notice => ({ key: "notify.order.disputeOpened", values: { ...title(o), by } }),
  earningsCleared: (o: Titled): Notice => ({ key: "notify.order.earningsCleared", values: title(o) }),
};
