/**
 * The order forms' rules, shared by the server (which decides) and the browser (which only helps). Prices
 * never come from a form: checkout names a gig and a package, and the server reads their price.
 */
import { z } from "~/schemas/zod";
import { DISPUTE_REASON_REQUIRED, SPLIT_AMOUNT_REQUIRED } from "~/content/refusal-words";

export { DISPUTE_REASON_REQUIRED, SPLIT_AMOUNT_REQUIRED };
import { msisdnField } from "~/schemas/msisdn";
import { APPROVE_CONFIRMATION, DISPUTE_RESOLUTIONS } from "~/domain/order-rules";

export { APPROVE_CONFIRMATION };

const id = (message: string) => z.coerce.number({ invalid_type_error: message, required_error: message }).int(message).positive(message);
const text = (max: number, required: string | null) => {
  const base = z
    .string({ required_error: required ?? undefined })
    .trim()
    .max(max, `Keep it to at most ${max.toLocaleString("en-US")} characters`);
  return required ? base.min(1, required) : base.default("");
};

/** A random key the form carries, so the same checkout posted twice (two tabs, a double click, a refresh) places one order. */
export const requestKey = z
  .string({ required_error: "This form has expired. Please reload the page and try again." })
  .regex(/^[A-Za-z0-9_-]{16,100}$/, "This form has expired. Please reload the page and try again.");

export const CheckoutSchema = z.object({
  gigId: id("Choose a gig"),
  tier: z.enum(["basic", "standard", "premium"], { errorMap: () => ({ message: "Choose a package" }) }),
  requirements: text(5000, null),
  msisdn: msisdnField,
  network: z.enum(["mtn", "airtel"], { errorMap: () => ({ message: "Choose MTN Mobile Money or Airtel Money" }) }),
  checkoutKey: requestKey,
});
export type CheckoutInput = z.output<typeof CheckoutSchema>;

/** Another number for an order's payment (the payment page's "Use another number"). */
export const PayerSchema = CheckoutSchema.pick({ msisdn: true, network: true });

export const DeliverSchema = z.object({ orderId: id("Choose an order"), message: text(5000, "Tell the buyer what you are delivering") });
export const RevisionSchema = z.object({ orderId: id("Choose an order"), reason: text(2000, "Say what should change") });
/**
 * `expected` is the cancel the button meant (give up an unpaid order, cancel a late one, ask, agree): if the
 * order has moved on since the page was drawn, the operation refuses rather than doing another kind of cancel.
 */
export const CancelSchema = z.object({
  orderId: id("Choose an order"),
  reason: text(2000, null),
  expected: z.enum(["abandon", "cancel", "request_cancel", "agree_cancel"]).optional(),
});
export const OrderIdSchema = z.object({ orderId: id("Choose an order") });
export const ApproveSchema = z.object({
  orderId: id("Choose an order"),
  confirm: z.literal(APPROVE_CONFIRMATION, {
    errorMap: () => ({ message: "Confirm the release of the payment: approving cannot be undone." }),
  }),
});
export const DisputeSchema = z.object({ orderId: id("Choose an order"), reason: text(2000, "Tell us what went wrong") });
/**
 * An admin's decision on a dispute (ADR 044): release all to the seller, refund all to the buyer, or split the
 * price, `refundUgx` of it back to the buyer. The amount field is always on the form (it works without
 * JavaScript) and is read only for a split; whether it is below the price is the operation's check.
 */
export const ResolveDisputeSchema = z
  .object({
    orderId: id("Choose an order"),
    resolution: z.enum(DISPUTE_RESOLUTIONS, { errorMap: () => ({ message: "Choose release, refund or split" }) }),
    refundUgx: z.string().trim().optional(),
    note: text(2000, DISPUTE_REASON_REQUIRED),
  })
  .transform((v, ctx) => {
    if (v.resolution !== "split") return { orderId: v.orderId, resolution: v.resolution, note: v.note };
    const typed = (v.refundUgx ?? "").replace(/[,\s]/g, "").replace(/^UGX/i, "");
    if (!/^\d+$/.test(typed)) {
      ctx.addIssue({ code: "custom", path: ["refundUgx"], message: SPLIT_AMOUNT_REQUIRED });
      return z.NEVER;
    }
    return { orderId: v.orderId, resolution: v.resolution, note: v.note, refundUgx: Number(typed) };
  });
export type ResolveDisputeInput = z.output<typeof ResolveDisputeSchema>;

export const WithdrawSchema = z.object({
  amountUgx: z.coerce
    .number({ required_error: "Enter an amount", invalid_type_error: "Enter an amount in whole shillings" })
    .int("Enter an amount in whole shillings")
    .positive("Enter an amount in whole shillings"),
  requestKey,
});
