/**
 * Orders in the JSON API (ADR 041), what changes them: checkout, the state machine's steps (deliver, ask for a
 * revision, approve) as PATCH /orders/{id}/status, cancelling, declining a cancel request and disputes. Each
 * is the order operation the order's pages call; a step the order's state does not allow now is 409 with the
 * operation's code, another member's order 404. Files are the keys of the member's uploads, taken by the
 * operation in its transaction.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Request } from "express";
import { z } from "zod";
import { approveOrder, cancelOrder, declineCancel, deliverOrder, openDispute, placeOrder, requestRevision } from "~/operations/orders.server";
import { payAgain } from "~/operations/payment-retries.server";
import { invalid, type Actor, type Result } from "~/operations/core.server";
import { MAX_ORDER_FILES } from "~/server/files/order-files.server";
import { guessNetwork } from "~/domain/mobile-money";
import type { Locale } from "~/i18n/locales";
import { msisdnField } from "~/schemas/msisdn";
import { CancelSchema, CheckoutSchema, DeliverSchema, DisputeSchema, RevisionSchema } from "~/schemas/order";
import { call } from "../route.server";
import { IdParams } from "../shapes";
import { OrderDetail, readOrder } from "./orders-read.server";
import { msg } from "~/i18n/message-key";

/** Upload keys of the member's own unused uploads. */
const UploadKeys = z
  .array(
    z
      .string()
      .min(1, "api.field.uploadKeyEmpty")
      .max(200, msg("api.field.uploadKeyTooLong", { max: 200 })),
  )
  .max(MAX_ORDER_FILES, msg("api.field.tooManyFiles", { max: MAX_ORDER_FILES }))
  .default([])
  .describe("Keys of the member's uploads (from the document upload call) of the last 20 hours, each used once.");

const PlaceBody = z
  .object({
    gigId: CheckoutSchema.shape.gigId,
    tier: CheckoutSchema.shape.tier,
    requirements: CheckoutSchema.shape.requirements.describe("What the seller needs to know; at most 5,000 characters."),
    files: UploadKeys,
    phone: msisdnField.describe("The payer's mobile-money number: +2567XXXXXXXX (07XXXXXXXX is read as such)."),
    network: CheckoutSchema.shape.network,
  })
  .strict();

const PayAgainBody = z
  .object({
    phone: msisdnField.optional().describe("Another mobile-money number to ask: +2567XXXXXXXX. Omitted: the latest payment's number is asked again."),
    network: CheckoutSchema.shape.network.optional().describe("The network of `phone`; omitted, the number's prefix says it."),
  })
  .strict();

const StatusBody = z.discriminatedUnion("status", [
  z
    .object({
      status: z.literal("delivered").describe("The seller delivers (in_progress → delivered)."),
      message: DeliverSchema.shape.message,
      files: UploadKeys,
    })
    .strict(),
  z
    .object({
      status: z.literal("revision_requested").describe("The buyer asks for changes while revisions remain (delivered → in_progress)."),
      reason: RevisionSchema.shape.reason,
    })
    .strict(),
  z.object({ status: z.literal("completed").describe("The buyer approves the delivery: the payment is released to the seller.") }).strict(),
]);

const CancelBody = z
  .object({
    reason: CancelSchema.shape.reason,
    expected: CancelSchema.shape.expected.describe(
      "The kind of cancel meant (the order's `actions`): if the order has moved on since, the call refuses (409) rather than doing another kind.",
    ),
  })
  .strict();

/**
 * A key of the member's request that is the same for the same Idempotency-Key (so even after the router's
 * memory of the key is gone, a repeat finds the first order or payout), or a fresh one without it.
 */
export function requestKeyOf(req: Request) {
  const key = req.headers["idempotency-key"];
  return typeof key === "string" ? `api_${createHash("sha256").update(key).digest("base64url")}` : randomBytes(16).toString("base64url");
}

/** After a step that succeeded, the order as it is now. */
async function thenOrder<T>(actor: Actor, orderId: number, locale: Locale, result: Result<T>, status?: 201) {
  if (!result.ok) return result;
  const order = await readOrder(actor, orderId, locale, { poll: false });
  return order.ok ? { ok: true as const, value: order.value, ...(status ? { status } : {}) } : order;
}

export const orderWriteCalls = [
  call({
    method: "post",
    path: "/orders",
    operationId: "placeOrder",
    summary: "Place an order: the payer's phone is asked to pay",
    description:
      "The price and fees are the package's own, never the request's. The order waits for payment (`pending_payment`) while the payer approves the prompt on their phone; " +
      "read the order (GET /orders/{id}) to follow it. With an Idempotency-Key, a repeat places no second order.",
    tag: "Orders",
    access: "member",
    body: PlaceBody,
    response: OrderDetail,
    status: 201,
    idempotent: true,
    failures: [404, 409],
    async handle({ actor, body, req, locale }) {
      const { phone, files, ...input } = body;
      const placed = await placeOrder(actor, { ...input, msisdn: phone, checkoutKey: requestKeyOf(req), uploadKeys: files });
      return placed.ok ? thenOrder(actor, placed.value.orderId, locale, placed, 201) : placed;
    },
  }),
  call({
    method: "post",
    path: "/orders/{id}/payments",
    operationId: "payAgain",
    summary: "Ask for an unpaid order's payment again, to the same number or another",
    description:
      "A new payment of the order: the payer's phone is prompted again. Earlier prompts still waiting are superseded but still followed; whichever is " +
      "approved first counts and any later one is refunded whole. Only the buyer, only while the order is `pending_payment` and within its 30 minutes " +
      "(409 otherwise); at most 5 in 10 minutes per order (429).",
    tag: "Orders",
    access: "member",
    params: IdParams,
    body: PayAgainBody,
    response: OrderDetail,
    status: 201,
    failures: [404, 409],
    async handle({ actor, params, body, locale }) {
      let payer: { msisdn: string; network: "mtn" | "airtel" } | undefined;
      if (body.phone) {
        const network = body.network ?? guessNetwork(body.phone);
        if (!network) return invalid({ network: [{ code: "schema", message: "api.orders.network" }] });
        payer = { msisdn: body.phone, network };
      }
      return thenOrder(actor, params.id, locale, await payAgain(actor, { orderId: params.id, payer }), 201);
    },
  }),
  call({
    method: "patch",
    path: "/orders/{id}/status",
    operationId: "changeOrderStatus",
    summary: "Move an order on: deliver, ask for a revision, or approve",
    description:
      "`delivered` (the seller, with a message and files), `revision_requested` (the buyer, with what should change), `completed` (the buyer approves: " +
      "the payment is released and this cannot be undone). A step the order does not allow now is 409 with the reason's code.",
    tag: "Orders",
    access: "member",
    params: IdParams,
    body: StatusBody,
    response: OrderDetail,
    failures: [404, 409],
    async handle({ actor, params, body, locale }) {
      const orderId = params.id;
      if (body.status === "delivered")
        return thenOrder(actor, orderId, locale, await deliverOrder(actor, { orderId, message: body.message, uploadKeys: body.files }));
      if (body.status === "revision_requested") return thenOrder(actor, orderId, locale, await requestRevision(actor, { orderId, reason: body.reason }));
      return thenOrder(actor, orderId, locale, await approveOrder(actor, { orderId }));
    },
  }),
  call({
    method: "post",
    path: "/orders/{id}/cancel",
    operationId: "cancelOrder",
    summary: "Cancel an order, or ask the other party to",
    description:
      "The buyer gives up an unpaid order, or cancels alone an order more than a day late; otherwise this asks the other party, and the order is cancelled " +
      "when they cancel too. Money paid goes back to the buyer. `outcome` says which happened.",
    tag: "Orders",
    access: "member",
    params: IdParams,
    body: CancelBody,
    response: z.object({ outcome: z.enum(["cancelled", "requested"]), order: OrderDetail }),
    failures: [404, 409],
    async handle({ actor, params, body, locale }) {
      const result = await cancelOrder(actor, { orderId: params.id, reason: body.reason, expected: body.expected });
      if (!result.ok) return result;
      const order = await readOrder(actor, params.id, locale);
      return order.ok ? { ok: true, value: { outcome: result.value.outcome, order: order.value } } : order;
    },
  }),
  call({
    method: "post",
    path: "/orders/{id}/cancel/decline",
    operationId: "declineCancel",
    summary: "Take a cancel request off the table: decline the other party's, or withdraw your own",
    tag: "Orders",
    access: "member",
    params: IdParams,
    response: OrderDetail,
    failures: [404, 409],
    async handle({ actor, params, locale }) {
      return thenOrder(actor, params.id, locale, await declineCancel(actor, { orderId: params.id }));
    },
  }),
  call({
    method: "post",
    path: "/orders/{id}/dispute",
    operationId: "openDispute",
    summary: "Open a dispute: an admin decides the order",
    description: "The automatic completion stops; an admin releases the payment to the seller or refunds the buyer, and both are told.",
    tag: "Orders",
    access: "member",
    params: IdParams,
    body: z.object({ reason: DisputeSchema.shape.reason }).strict(),
    response: z.object({ disputeId: z.number().int(), order: OrderDetail }),
    status: 201,
    failures: [404, 409],
    async handle({ actor, params, body, locale }) {
      const result = await openDispute(actor, { orderId: params.id, reason: body.reason });
      if (!result.ok) return result;
      const order = await readOrder(actor, params.id, locale);
      return order.ok ? { ok: true, status: 201, value: { disputeId: result.value.disputeId, order: order.value } } : order;
    },
  }),
];
