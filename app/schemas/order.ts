/**
 * The order forms' rules, shared by the server (which decides) and the browser (which only helps). Prices
 * never come from a form: checkout names a gig and a package, and the server reads their price.
 */
import { z } from "~/schemas/zod";
import { msg } from "~/i18n/message-key";
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
    .max(max, msg("common.form.tooLong", { max }));
  return required ? base.min(1, required) : base.default("");
};

/**
 * A random key the form carries, so the same checkout posted twice (two tabs, a double click, a refresh) places one
 * order. `expired` is the message key of the page the form is on (ADR 047).
 */
const requestKeyWith = (expired: string) => z.string({ required_error: expired }).regex(/^[A-Za-z0-9_-]{16,100}$/, expired);
export const requestKey = requestKeyWith("orders.form.expired");

export const CheckoutSchema = z.object({
  gigId: id("orders.form.chooseGig"),
  tier: z.enum(["basic", "standard", "premium"], { errorMap: () => ({ message: "orders.form.choosePackage" }) }),
  requirements: text(5000, null),
  msisdn: msisdnField,
  network: z.enum(["mtn", "airtel"], { errorMap: () => ({ message: "orders.form.chooseNetwork" }) }),
  checkoutKey: requestKey,
});
export type CheckoutInput = z.output<typeof CheckoutSchema>;

/** Another number for an order's payment (the payment page's "Use another number"). */
export const PayerSchema = CheckoutSchema.pick({ msisdn: true, network: true });

export const DeliverSchema = z.object({ orderId: id("orders.form.chooseOrder"), message: text(5000, "orders.form.deliverMessage") });
export const RevisionSchema = z.object({ orderId: id("orders.form.chooseOrder"), reason: text(2000, "orders.form.revisionReason") });
/**
 * `expected` is the cancel the button meant (give up an unpaid order, cancel a late one, ask, agree): if the
 * order has moved on since the page was drawn, the operation refuses rather than doing another kind of cancel.
 */
export const CancelSchema = z.object({
  orderId: id("orders.form.chooseOrder"),
  reason: text(2000, null),
  expected: z.enum(["abandon", "cancel", "request_cancel", "agree_cancel"]).optional(),
});
export const OrderIdSchema = z.object({ orderId: id("orders.form.chooseOrder") });
export const ApproveSchema = z.object({
  orderId: id("orders.form.chooseOrder"),
  confirm: z.literal(APPROVE_CONFIRMATION, {
    errorMap: () => ({ message: "orders.form.confirmRelease" }),
  }),
});
export const DisputeSchema = z.object({ orderId: id("orders.form.chooseOrder"), reason: text(2000, "orders.form.disputeReason") });
/**
 * An admin's decision on a dispute (ADR 044): release all to the seller, refund all to the buyer, or split the
 * price, `refundUgx` of it back to the buyer. The amount field is always on the form (it works without
 * JavaScript) and is read only for a split; whether it is below the price is the operation's check.
 */
export const ResolveDisputeSchema = z
  .object({
    // The admin's disputes screen: its messages are the admin namespace's (app/locales/<language>/admin.json).
    orderId: id("admin.disputes.chooseOrder"),
    resolution: z.enum(DISPUTE_RESOLUTIONS, { errorMap: () => ({ message: "admin.disputes.chooseResolution" }) }),
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

/** The seller dashboard's withdrawal form: its messages are the dashboard namespace's (app/locales/<language>/dashboard.json). */
export const WithdrawSchema = z.object({
  amountUgx: z.coerce
    .number({ required_error: "dashboard.withdraw.amountRequired", invalid_type_error: "dashboard.withdraw.amountWhole" })
    .int("dashboard.withdraw.amountWhole")
    .positive("dashboard.withdraw.amountWhole"),
  requestKey: requestKeyWith("dashboard.withdraw.expired"),
});
