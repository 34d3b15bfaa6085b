/**
 * A member's money in the JSON API (ADR 041): the balance as the dashboard shows it (from the ledger, never a
 * stored total), withdrawals as the dashboard's form makes them (requestWithdrawal), and the member's payouts.
 */
import { z } from "zod";
import { memberBalances, sellerEscrow } from "~/models/ledger.server";
import { getPayoutByReference, listPayoutsPage, type PayoutRow } from "~/models/payment.server";
import { getSettings } from "~/models/user.server";
import { forbidden, invalid, notFound, ok } from "~/operations/core.server";
import { requestWithdrawal } from "~/operations/payments.server";
import { confirmPayoutNumber, updateBilling } from "~/operations/account-settings.server";
import { CODE_REFUSALS } from "~/operations/phone-verification.server";
import { BillingSchema } from "~/schemas/account";
import { getDb } from "~/server/db.server";
import { getEnv } from "~/server/env.server";
import { maskMsisdn, payoutHoldUntil } from "~/domain/mobile-money";
import type { Locale } from "~/i18n/locales";
import { failureIn } from "~/payments/failure-words.server";
import { WithdrawSchema } from "~/schemas/order";
import { call } from "../route.server";
import { Iso, iso, Money, moneyOf, pageOf } from "../shapes";
import { IdCursorQuery, pageFrom, usdRate } from "./orders-read.server";
import { requestKeyOf } from "./orders-write.server";

const Balance = z.object({
  available: Money.describe("Cleared earnings the member can withdraw now."),
  pendingClearance: Money.describe("Earnings of completed orders, available 14 days after completion."),
  inEscrow: Money.describe("The prices of the member's paid orders still in progress (before the seller fee), released on completion."),
  inTransit: Money.describe("Payouts on their way to the member's phone."),
  refundDue: Money.describe("Refunds owed to the member as a buyer, being sent."),
  withdrawal: z.object({
    number: z.string().nullable().describe("The payout number, masked (****3456); null until one is set in Settings → Billing."),
    heldUntil: Iso.nullable().describe("A newly set payout number waits 24 hours before withdrawals to it: until when, or null."),
    minimum: Money,
  }),
});

const Payout = z.object({
  id: z.number().int(),
  kind: z.enum(["withdrawal", "refund"]).describe("A seller's withdrawal, or a buyer's refund of a cancelled order."),
  orderId: z.number().int().nullable().describe("The refunded order; null for a withdrawal."),
  amount: Money,
  status: z.enum(["in_transit", "paid", "failed"]),
  failureReason: z.string().nullable().describe("Why it failed, in the reader's language (the token's member's, else Accept-Language's); null unless failed."),
  network: z.enum(["mtn", "airtel"]),
  to: z.string().describe("The number paid, masked (****3456)."),
  reference: z.string().describe("Our reference of the payout, which the provider knows it by."),
  createdAt: Iso,
  settledAt: Iso.nullable(),
});

const payoutView = (p: PayoutRow, rate: number | null, locale: Locale) => ({
  id: p.id,
  kind: p.kind,
  orderId: p.orderId,
  amount: moneyOf(p.amountUgx, rate),
  status: p.status,
  failureReason: failureIn(p.failureReason, p.failureSaid, locale),
  network: p.network,
  to: maskMsisdn(p.msisdn),
  reference: p.reference,
  createdAt: iso(p.createdAt),
  settledAt: p.settledAt ? iso(p.settledAt) : null,
});

export const earningsCalls = [
  call({
    method: "get",
    path: "/balance",
    operationId: "getBalance",
    summary: "The member's money: available, pending clearance, in escrow, on its way",
    tag: "Earnings",
    access: "member",
    response: Balance,
    async handle({ actor }) {
      if (actor.kind !== "member") return forbidden("payout.sign_in_required");
      const db = getDb();
      const [balances, escrow, settings, rate] = await Promise.all([
        memberBalances(db, actor.user.id),
        sellerEscrow(db, actor.user.id),
        getSettings(db, actor.user.id),
        usdRate(),
      ]);
      const number = settings?.mobileMoneyNumber ?? null;
      const heldUntil = payoutHoldUntil(settings?.payoutNumberSetAt ?? null);
      return ok({
        available: moneyOf(balances.availableUgx, rate),
        pendingClearance: moneyOf(balances.pendingUgx, rate),
        inEscrow: moneyOf(escrow, rate),
        inTransit: moneyOf(balances.inTransitUgx, rate),
        refundDue: moneyOf(balances.refundDueUgx, rate),
        withdrawal: {
          number: number ? maskMsisdn(number) : null,
          heldUntil: heldUntil ? iso(heldUntil) : null,
          minimum: moneyOf(getEnv().PAYOUT_MIN_UGX, rate),
        },
      });
    },
  }),
  call({
    method: "post",
    path: "/payouts",
    operationId: "requestPayout",
    summary: "Withdraw available earnings to the member's payout number",
    description:
      "At most the available balance, at least the minimum (GET /balance). The money goes to the payout number of Settings → Billing, once a code " +
      "texted to it has proven it (409 `payout.number_unverified` before); for 24 hours after that number was set, withdrawals wait " +
      "(409 `payout.number_held`). With an Idempotency-Key, a repeat makes no second payout.",
    tag: "Earnings",
    access: "member",
    body: z.object({ amountUgx: WithdrawSchema.shape.amountUgx.describe("Whole Uganda shillings.") }).strict(),
    response: Payout,
    status: 201,
    idempotent: true,
    failures: [409],
    async handle({ actor, body, req, locale }) {
      const result = await requestWithdrawal(actor, { amountUgx: body.amountUgx, requestKey: requestKeyOf(req) });
      if (!result.ok) return result;
      const [payout, rate] = await Promise.all([getPayoutByReference(getDb(), result.value.reference), usdRate()]);
      if (!payout) return notFound("payout.not_found");
      return { ok: true, status: 201, value: payoutView(payout, rate, locale) };
    },
  }),
  call({
    method: "get",
    path: "/payouts",
    operationId: "listPayouts",
    summary: "The member's payouts: withdrawals, and refunds of cancelled orders",
    description: "Newest first. Pass the answer's `nextCursor` back as `cursor` for the next page.",
    tag: "Earnings",
    access: "member",
    query: IdCursorQuery.extend({ kind: z.enum(["withdrawal", "refund"], { message: "api.earnings.kind" }).optional() }),
    response: pageOf(Payout),
    async handle({ actor, query, locale }) {
      if (actor.kind !== "member") return forbidden("payout.sign_in_required");
      const [rows, rate] = await Promise.all([
        listPayoutsPage(getDb(), actor.user.id, { limit: query.limit + 1, beforeId: query.cursor ? Number(query.cursor) : undefined, kind: query.kind }),
        usdRate(),
      ]);
      const { items, nextCursor } = pageFrom(rows, query.limit);
      return ok({ items: items.map((p) => payoutView(p, rate, locale)), nextCursor });
    },
  }),
  call({
    method: "put",
    path: "/payouts/number",
    operationId: "setPayoutNumber",
    summary: "Set the mobile-money number earnings are paid to",
    description:
      "As Settings › Billing: it takes the current password. The member's verified phone is set at once; any other number gets a six-digit code " +
      "by text (`codeSentTo`), and is set when POST /payouts/number/confirm brings the code back. The member is told by notification and mail, " +
      "and withdrawals to a new number wait 24 hours.",
    tag: "Earnings",
    access: "member",
    body: BillingSchema.strict(),
    response: z.object({
      changed: z.boolean(),
      number: z.string().describe("The number, masked (****3456)."),
      heldUntil: Iso.nullable(),
      codeSentTo: z.string().nullable().describe("The number a code was texted to (masked), to confirm; null when none was needed."),
    }),
    async handle({ actor, body }) {
      const result = await updateBilling(actor, body);
      if (!result.ok) return result;
      const { changed, holdUntil, codeSentTo } = result.value;
      return ok({
        changed,
        number: maskMsisdn(body.mobileMoneyNumber),
        heldUntil: holdUntil ? iso(holdUntil) : null,
        codeSentTo: codeSentTo ? maskMsisdn(codeSentTo) : null,
      });
    },
  }),
  call({
    method: "post",
    path: "/payouts/number/confirm",
    operationId: "confirmPayoutNumber",
    summary: "Bring back the code texted to a new payout number, which sets it",
    description: "A wrong code counts against its 5 tries (400, beside `code`); a right one sets the number, held 24 hours, as PUT /payouts/number.",
    tag: "Earnings",
    access: "member",
    body: z.object({ code: z.string().max(20).describe("The six digits texted to the number.") }).strict(),
    response: z.object({ number: z.string().describe("The number now set, masked (****3456)."), heldUntil: Iso.nullable() }),
    async handle({ actor, body }) {
      const result = await confirmPayoutNumber(actor, body);
      if (!result.ok) return result;
      const outcome = result.value;
      if (!outcome.verified) return invalid({ code: [{ code: "schema", message: CODE_REFUSALS[outcome.refusal] }] });
      return ok({ number: maskMsisdn(outcome.phone), heldUntil: outcome.holdUntil ? iso(outcome.holdUntil) : null });
    },
  }),
];
