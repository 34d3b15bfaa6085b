/**
 * The words of the notifications about an order, in one place: each names the order by its gig's title in
 * quotation marks ("Your order “Logo in 24 hours” was delivered"), so a member with several orders knows
 * which one at a glance. notifyParty stores the text as the notification's body and mails it as the subject.
 */
import type { OrderRow } from "~/models/order.server";

type Titled = Pick<OrderRow, "gigTitle">;

/** A gig's title as the notifications quote it. */
export const quoted = (title: string) => `“${title.trim()}”`;

/** Who the other party is to the member being told: the buyer or the seller of the order. */
export type Party = "buyer" | "seller";

export const orderNotice = {
  /** To the seller, when the buyer's payment lands. */
  newOrder: (o: Titled) => `New order ${quoted(o.gigTitle)}: the buyer has paid`,
  paymentHeld: (o: Titled) => `Your payment for ${quoted(o.gigTitle)} is held in escrow`,
  paymentFailed: (o: Titled) => `Your payment for ${quoted(o.gigTitle)} did not go through`,
  latePaymentRefunded: (o: Titled) => `Your late payment for ${quoted(o.gigTitle)} is being refunded`,
  delivered: (o: Titled) => `Your order ${quoted(o.gigTitle)} was delivered`,
  revisionRequested: (o: Titled) => `The buyer asked for a revision of ${quoted(o.gigTitle)}`,
  /** To the seller, whoever completed it (the buyer, the timer or an admin). */
  completed: (o: Titled) => `Your order ${quoted(o.gigTitle)} is complete; the earnings clear in 14 days`,
  autoCompleted: (o: Titled) => `Your order ${quoted(o.gigTitle)} was completed automatically`,
  cancelled: (o: Titled) => `Order ${quoted(o.gigTitle)} was cancelled; the buyer's payment is being refunded`,
  cancelRequested: (o: Titled, by: Party) => `The ${by} asked to cancel ${quoted(o.gigTitle)}`,
  disputeOpened: (o: Titled, by: Party) => `The ${by} opened a dispute on ${quoted(o.gigTitle)}`,
  earningsCleared: (o: Titled) => `Your earnings from ${quoted(o.gigTitle)} are available to withdraw`,
};
