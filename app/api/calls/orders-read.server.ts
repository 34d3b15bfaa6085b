/**
 * Orders in the JSON API (ADR 041), what reads them: the shapes of an order (in a list, and whole with its
 * timeline, as its page shows it), the reader both the read and the write calls answer with, and the lists.
 * An order is seen only by its parties, the seller only once it is paid (partyRole): anyone else gets 404.
 */
import { z } from "zod";
import { openDisputeOf } from "~/models/dispute.server";
import {
  findPartyOrder,
  listDeliveries,
  listOrderEvents,
  listOrderFiles,
  listOrdersPage,
  orderFacts,
  orderParties,
  type OrderFile,
} from "~/models/order.server";
import { latestPayment, type PaymentRow } from "~/models/payment.server";
import { eventsIn } from "~/content/operation-messages";
import type { Locale } from "~/i18n/locales";
import { failureIn } from "~/payments/failure-words.server";
import { notFound, ok, systemActor, type Actor, type Result } from "~/operations/core.server";
import { currentUsdRate } from "~/operations/exchange-rates.server";
import { settlePayment } from "~/operations/payments.server";
import { getDb } from "~/server/db.server";
import { ORDER_STATUSES, orderActions, orderNumber, type OrderAction, type OrderStatus } from "~/domain/order-rules";
import { call } from "../route.server";
import { IdParams, Iso, iso, Money, moneyOf, PageQuery, pageOf } from "../shapes";

const ACTIONS = [
  "pay",
  "abandon",
  "deliver",
  "request_revision",
  "approve",
  "cancel",
  "request_cancel",
  "agree_cancel",
  "withdraw_cancel",
  "decline_cancel",
  "dispute",
  "review",
] as const satisfies readonly OrderAction[];

const Tier = z.enum(["basic", "standard", "premium"]);

export const OrderSummary = z.object({
  id: z.number().int(),
  number: z.string().describe("The order's number as people say it: ORD-000123."),
  role: z.enum(["buyer", "seller"]).describe("The member's part in the order."),
  gig: z.object({ id: z.number().int().nullable().describe("Null once the gig is deleted."), title: z.string() }),
  package: z.object({
    tier: Tier,
    name: z
      .string()
      .describe(
        "The package's name when the order was placed: the seller's words, or its tier's default name (Basic, Standard, Premium), to show as the tier.",
      ),
  }),
  otherParty: z.object({ id: z.number().int(), name: z.string(), username: z.string() }),
  price: Money.describe("The package's price, as it was when the order was placed."),
  status: z.enum(ORDER_STATUSES),
  disputeOpen: z.boolean().describe("An admin decides the order while a dispute is open."),
  dueAt: Iso.nullable().describe("When the delivery is due; null until the order is paid."),
  createdAt: Iso,
  actions: z.array(z.enum(ACTIONS)).describe("What the member may do to the order now, as the order's page offers it."),
});

const FileShape = z.object({ id: z.number().int(), fileName: z.string(), contentType: z.string(), sizeBytes: z.number().int() });

export const OrderDetail = OrderSummary.extend({
  requirements: z.string(),
  deliveryDays: z.number().int(),
  revisions: z.object({ allowed: z.number().int(), used: z.number().int() }),
  money: z
    .object({
      price: Money,
      fee: Money.describe("The buyer's fee to the buyer, the seller's fee to the seller."),
      net: Money.describe("What the buyer pays in all, or what the seller earns."),
    })
    .describe("The member's own side of the money."),
  paidAt: Iso.nullable(),
  deliveredAt: Iso.nullable(),
  completedAt: Iso.nullable(),
  cancelledAt: Iso.nullable(),
  cancelRequest: z.object({ byMe: z.boolean(), reason: z.string() }).nullable(),
  dispute: z.object({ byMe: z.boolean(), openedBy: z.enum(["buyer", "seller"]), reason: z.string(), openedAt: Iso }).nullable(),
  requirementFiles: z.array(FileShape),
  deliveries: z.array(z.object({ id: z.number().int(), message: z.string(), at: Iso, files: z.array(FileShape) })),
  timeline: z.array(
    z.object({
      id: z.number().int(),
      kind: z.string().describe("What happened: placed, paid, delivered, revision_requested, approved, cancel_requested, …"),
      actorRole: z.enum(["buyer", "seller", "admin", "system"]),
      actorName: z.string().nullable(),
      from: z.string().nullable(),
      to: z.string(),
      reason: z
        .string()
        .describe("Soko's own reasons in the reader's language (the token's member's, else Accept-Language's); a member's words as they wrote them."),
      at: Iso,
    }),
  ),
  payment: z
    .object({
      status: z.enum(["pending", "successful", "failed", "refunded"]).describe("refunded: taken after another payment of the order was, so given back."),
      network: z.enum(["mtn", "airtel"]),
      amount: Money,
      reference: z.string().describe("Our reference of the payment, which the provider knows it by."),
      failureReason: z
        .string()
        .nullable()
        .describe("Why it failed, in the reader's language (the token's member's, else Accept-Language's); null unless failed."),
    })
    .nullable()
    .describe("The buyer's latest payment of the order; null for the seller."),
});
export type OrderDetailValue = z.input<typeof OrderDetail>;

/** The USD rate the answers' Money is given at (the current one; null when none is set). */
export const usdRate = async () => (await currentUsdRate(getDb()))?.ugxPerUsd ?? null;

const fileView = (f: OrderFile) => ({ id: f.id, fileName: f.fileName, contentType: f.contentType, sizeBytes: f.sizeBytes });
const isoOrNull = (d: Date | null) => (d ? iso(d) : null);

const paymentView = (p: PaymentRow, rate: number | null, locale: Locale) => ({
  status: p.status,
  network: p.network,
  amount: moneyOf(p.amountUgx, rate),
  reference: p.reference,
  failureReason: failureIn(p.failureReason, p.failureSaid, locale),
});

/**
 * The whole order for one of its parties, as its page reads it, or null (no such order, or not theirs to see),
 * with Soko's words (the timeline's reasons, a failed payment's) in the reader's language.
 * While the buyer waits for the payment, a read asks the provider when it is due, as the waiting page does
 * (unless `poll` is false: right after checkout, the payer has not been asked yet).
 */
export async function readOrder(actor: Actor, orderId: number, locale: Locale, { poll = true } = {}): Promise<Result<OrderDetailValue>> {
  if (actor.kind !== "member") return notFound("order.not_found");
  const db = getDb();
  const userId = actor.user.id;
  let own = await findPartyOrder(db, orderId, userId);
  if (!own) return notFound("order.not_found");
  if (poll && own.role === "buyer" && own.order.status === "pending_payment") {
    const payment = await latestPayment(db, own.order.id);
    if (payment?.status === "pending" && payment.nextPollAt <= new Date()) {
      await settlePayment(systemActor("api-order"), { reference: payment.reference });
      own = (await findPartyOrder(db, orderId, userId)) ?? own;
    }
  }
  const { order, role } = own;
  const [facts, events, deliveries, files, dispute, parties, payment, rate] = await Promise.all([
    orderFacts(db, order),
    listOrderEvents(db, order.id).then((list) => eventsIn(list, locale)),
    listDeliveries(db, order.id),
    listOrderFiles(db, order.id),
    openDisputeOf(db, order.id),
    orderParties(db, order),
    role === "buyer" ? latestPayment(db, order.id) : Promise.resolve(null),
    usdRate(),
  ]);
  const buyer = role === "buyer";
  const other = buyer ? parties.seller : parties.buyer;
  const cancelRequest = [...events].reverse().find((e) => e.kind === "cancel_requested");
  const value: OrderDetailValue = {
    id: order.id,
    number: orderNumber(order.id),
    role,
    gig: { id: order.gigId, title: order.gigTitle },
    package: { tier: order.tier, name: order.packageName },
    otherParty: other,
    price: moneyOf(order.priceUgx, rate),
    status: order.status,
    disputeOpen: facts.disputeOpen,
    dueAt: isoOrNull(order.dueAt),
    createdAt: iso(order.createdAt),
    actions: [...orderActions(facts, userId, new Date())],
    requirements: order.requirements,
    deliveryDays: order.deliveryDays,
    revisions: { allowed: order.revisionsAllowed, used: order.revisionsUsed },
    money: {
      price: moneyOf(order.priceUgx, rate),
      fee: moneyOf(buyer ? order.buyerFeeUgx : order.sellerFeeUgx, rate),
      net: moneyOf(buyer ? order.totalUgx : order.priceUgx - order.sellerFeeUgx, rate),
    },
    paidAt: isoOrNull(order.paidAt),
    deliveredAt: isoOrNull(order.deliveredAt),
    completedAt: isoOrNull(order.completedAt),
    cancelledAt: isoOrNull(order.cancelledAt),
    cancelRequest: order.cancelRequestedBy === null ? null : { byMe: order.cancelRequestedBy === userId, reason: cancelRequest?.reason ?? "" },
    dispute: dispute
      ? {
          byMe: dispute.openedBy === userId,
          openedBy: dispute.openedBy === order.buyerId ? "buyer" : "seller",
          reason: dispute.reason,
          openedAt: iso(dispute.createdAt),
        }
      : null,
    requirementFiles: files.filter((f) => f.deliveryId === null).map(fileView),
    deliveries: deliveries.map((d) => ({ id: d.id, message: d.message, at: iso(d.at), files: files.filter((f) => f.deliveryId === d.id).map(fileView) })),
    timeline: events.map((e) => ({
      id: e.id,
      kind: e.kind,
      actorRole: e.actorRole,
      actorName: e.actorName,
      from: e.from,
      to: e.to,
      reason: e.reason,
      at: iso(e.at),
    })),
    payment: payment ? paymentView(payment, rate, locale) : null,
  };
  return ok(value);
}

/** A list's query: PageQuery with the cursor as this list makes it (the last id of the page before). */
export const IdCursorQuery = PageQuery.extend({
  cursor: z
    .string()
    .regex(/^[1-9]\d{0,14}$/, "api.page.cursor")
    .optional(),
});

/** The page's items and the cursor of the next, from `limit + 1` rows read. */
export function pageFrom<T extends { id: number }>(rows: T[], limit: number) {
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? String(items[items.length - 1]!.id) : null };
}

function listCall(path: string, operationId: string, side: "both" | "buyer" | "seller", summary: string) {
  return call({
    method: "get",
    path,
    operationId,
    summary,
    description: "Newest first. Pass the answer's `nextCursor` back as `cursor` for the next page.",
    tag: "Orders",
    access: "member",
    query: IdCursorQuery,
    response: pageOf(OrderSummary),
    async handle({ actor, query }) {
      if (actor.kind !== "member") return notFound("order.not_found");
      const userId = actor.user.id;
      const [rows, rate] = await Promise.all([
        listOrdersPage(getDb(), userId, { side, limit: query.limit + 1, beforeId: query.cursor ? Number(query.cursor) : undefined }),
        usdRate(),
      ]);
      const now = new Date();
      const { items, nextCursor } = pageFrom(rows, query.limit);
      return ok({
        items: items.map((o) => ({
          id: o.id,
          number: orderNumber(o.id),
          role: o.role,
          gig: { id: o.gigId, title: o.gigTitle },
          package: { tier: o.tier, name: o.packageName },
          otherParty: { id: o.role === "buyer" ? o.sellerId : o.buyerId, name: o.otherName, username: o.otherUsername },
          price: moneyOf(o.priceUgx, rate),
          status: o.status as OrderStatus,
          disputeOpen: o.facts.disputeOpen,
          dueAt: isoOrNull(o.dueAt),
          createdAt: iso(o.createdAt),
          actions: [...orderActions(o.facts, userId, now)],
        })),
        nextCursor,
      });
    },
  });
}

export const orderReadCalls = [
  listCall("/orders", "listOrders", "both", "The member's orders, as buyer and as seller"),
  listCall("/orders/buyer", "listBuyerOrders", "buyer", "The orders the member placed"),
  listCall("/orders/seller", "listSellerOrders", "seller", "The orders of the member's gigs (once paid)"),
  call({
    method: "get",
    path: "/orders/{id}",
    operationId: "getOrder",
    summary: "One of the member's orders, with its timeline, deliveries and files",
    description:
      "Another member's order is 404, as is an unpaid order to its seller. While the buyer's payment is pending, reading the order also asks the provider (when due), so an app can poll this call.",
    tag: "Orders",
    access: "member",
    params: IdParams,
    response: OrderDetail,
    failures: [404],
    handle: ({ actor, params, locale }) => readOrder(actor, params.id, locale),
  }),
];
