/**
 * Withdrawals (requestWithdrawal, settlePayout, pollPayouts) against real Postgres and Redis: the limits of
 * an amount, a double click, two withdrawals racing for one balance, a payout the sandbox pays, and payouts
 * a provider refuses, fails later or cannot say anything about (a provider of the test's own, standing in for
 * the outside service). Money is only ever where the ledger says, and after every test the book is sound.
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { memberBalances } from "~/models/ledger.server";
import type { Actor } from "~/operations/core.server";
import { runOrderTimers } from "~/operations/orders.server";
import { pollPayouts, requestWithdrawal, settlePayout } from "~/operations/payments.server";
import type { PaymentProvider, RequestOutcome, TransferRequest, TransferStatus } from "~/payments/provider.server";
import type { Providers } from "~/payments/registry.server";
import { getEnv } from "~/server/env.server";
import type { TestUser } from "../support/factories";
import { at, DAY_MS, expectLedgerSound, orderRow } from "../support/order-checks";
import { completedTestOrder, createParties, memberActor, opts, orderTestContext, PAYOUT_NUMBER, system, visitor } from "../support/orders";

const t = orderTestContext("payouts");
afterEach(() => expectLedgerSound(t.db));

let sellers = 0;

/**
 * A seller with UGX 80,000 available (one order of 100,000 completed and cleared), with PAYOUT_NUMBER (an
 * Airtel number) to be paid to unless told otherwise.
 */
async function sellerWithEarnings({ payoutNumber }: { payoutNumber?: string | null } = {}): Promise<TestUser> {
  const n = ++sellers;
  const { seller, buyer, gigId } = await createParties(t.db, { seller: { name: `Payout Seller ${n}`, payoutNumber }, buyer: { name: `Payout Buyer ${n}` } });
  const { orderId } = await completedTestOrder(t, buyer, seller, gigId);
  const completedAt = (await orderRow(t.db, orderId)).completedAt!;
  await runOrderTimers(system, { ...opts(t), now: at(completedAt.getTime() + 14 * DAY_MS) });
  expect(await memberBalances(t.db, seller.id)).toMatchObject({ pendingUgx: 0, availableUgx: 80_000 });
  return seller;
}

/**
 * A payout provider of the test's own, standing in for an outside mobile-money service: it takes
 * disbursements and answers what the test scripts ("throw" plays a provider that cannot be reached).
 */
function scriptedProvider(script: { disburse: RequestOutcome; status: TransferStatus | "throw" }) {
  const disbursed: TransferRequest[] = [];
  const provider: PaymentProvider = {
    name: "airtel",
    requestPayment: async () => ({ outcome: "rejected", reason: "Collections are not part of this test" }),
    paymentStatus: async () => ({ status: "unknown", reason: "Collections are not part of this test" }),
    disburse: async (request) => {
      disbursed.push(request);
      return script.disburse;
    },
    disbursementStatus: async () => {
      if (script.status === "throw") throw new Error("connect ECONNREFUSED");
      return script.status;
    },
    callbackReference: () => null,
  };
  const providers: Providers = {
    forNetwork: (network) => (network === "airtel" ? provider : null),
    byName: (name) => (name === "airtel" ? provider : null),
    sandbox: null,
  };
  return { providers, disbursed, script };
}

const withdraw = (actor: Actor, amountUgx: number, requestKey: string = randomUUID(), providers = t.providers) =>
  requestWithdrawal(actor, { amountUgx, requestKey }, { db: t.db, providers });
const count = async (table: string, where: Record<string, unknown> = {}) =>
  Number((await t.db(table).where(where).count<{ c: string }[]>({ c: "*" }).first())?.c);

describe("requestWithdrawal", () => {
  it("refuses less than the minimum, more than the balance, a seller with no payout number, a visitor and the platform, and writes nothing", async () => {
    const seller = await sellerWithEarnings();
    const min = getEnv().PAYOUT_MIN_UGX;
    const before = { payouts: await count("payouts"), journals: await count("ledger_journals") };
    expect(await withdraw(memberActor(seller), min - 1)).toEqual({
      ok: false,
      error: "invalid",
      issues: { amountUgx: [{ code: "payout.below_minimum", params: { minUgx: min } }] },
    });
    expect(await withdraw(memberActor(seller), 80_001)).toEqual({
      ok: false,
      error: "invalid",
      issues: { amountUgx: [{ code: "payout.above_available", params: { maxUgx: 80_000 } }] },
    });
    expect(await withdraw(visitor, 10_000)).toMatchObject({ ok: false, error: "forbidden" });
    expect(await withdraw(system, 10_000)).toMatchObject({ ok: false, error: "forbidden" });

    const noNumber = await sellerWithEarnings({ payoutNumber: null });
    const beforeNoNumber = { payouts: await count("payouts"), journals: await count("ledger_journals") };
    expect(await withdraw(memberActor(noNumber), 10_000)).toEqual({ ok: false, error: "conflict", code: "payout.no_number", params: {} });
    expect({ payouts: await count("payouts"), journals: await count("ledger_journals") }).toEqual(beforeNoNumber);
    expect(beforeNoNumber.payouts).toBe(before.payouts);
    expect(await memberBalances(t.db, seller.id)).toMatchObject({ availableUgx: 80_000, inTransitUgx: 0 });
    expect(await memberBalances(t.db, noNumber.id)).toMatchObject({ availableUgx: 80_000, inTransitUgx: 0 });

    // The minimum itself is allowed.
    expect(await withdraw(memberActor(seller), min)).toMatchObject({ ok: true, value: { amountUgx: min } });
    expect(await memberBalances(t.db, seller.id)).toMatchObject({ availableUgx: 80_000 - min, inTransitUgx: min });
  });

  it("the same request key twice, one after the other or at once, is one payout", async () => {
    const seller = await sellerWithEarnings();
    const key = randomUUID();
    const first = await withdraw(memberActor(seller), 30_000, key);
    expect(first).toMatchObject({ ok: true, value: { amountUgx: 30_000 } });
    expect(await withdraw(memberActor(seller), 30_000, key)).toEqual(first);
    const other = randomUUID();
    const both = await Promise.all([withdraw(memberActor(seller), 20_000, other), withdraw(memberActor(seller), 20_000, other)]);
    expect(both[0]).toMatchObject({ ok: true, value: { amountUgx: 20_000 } });
    expect(both[1]).toEqual(both[0]);
    expect(await t.db("payouts").where({ user_id: seller.id }).orderBy("id").select("amount_ugx", "kind", "msisdn")).toEqual([
      { amount_ugx: 30_000, kind: "withdrawal", msisdn: PAYOUT_NUMBER },
      { amount_ugx: 20_000, kind: "withdrawal", msisdn: PAYOUT_NUMBER },
    ]);
    expect(await count("ledger_journals", { kind: "payout_sent" })).toBe(await count("payouts"));
    expect(await memberBalances(t.db, seller.id)).toMatchObject({ availableUgx: 30_000, inTransitUgx: 50_000 });
    // The sandbox was asked once per payout, not once per click.
    for (const reference of await t.db("payouts").where({ user_id: seller.id }).pluck("reference")) {
      expect(await t.sandbox.get(reference)).toMatchObject({ kind: "disbursement", msisdn: PAYOUT_NUMBER });
    }
  });

  it("two withdrawals of the whole balance at once: exactly one goes through, and the balance ends at zero, not below", async () => {
    const seller = await sellerWithEarnings();
    const results = await Promise.all([withdraw(memberActor(seller), 80_000), withdraw(memberActor(seller), 80_000), withdraw(memberActor(seller), 80_000)]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    for (const refused of results.filter((r) => !r.ok)) {
      expect(refused).toEqual({ ok: false, error: "invalid", issues: { amountUgx: [{ code: "payout.above_available", params: { maxUgx: 0 } }] } });
    }
    expect(await count("payouts", { user_id: seller.id })).toBe(1);
    expect(await memberBalances(t.db, seller.id)).toMatchObject({ availableUgx: 0, inTransitUgx: 80_000 });
  });
});

describe("settling payouts", () => {
  it("the sandbox pays at once: the poll marks the payout paid and the money leaves the platform, once", async () => {
    const seller = await sellerWithEarnings();
    const result = await withdraw(memberActor(seller), 50_000);
    if (!result.ok) throw new Error(JSON.stringify(result));
    const { reference } = result.value;
    expect(await t.db("payouts").where({ reference }).first("status")).toEqual({ status: "in_transit" });

    expect(await pollPayouts(system, opts(t))).toMatchObject({ ok: true });
    const payout = await t.db("payouts").where({ reference }).first("status", "provider_transaction_id", "settled_at");
    expect(payout).toMatchObject({ status: "paid", provider_transaction_id: `SBX-${reference.slice(0, 8)}`, settled_at: expect.any(Date) });
    expect(await settlePayout(system, { reference }, opts(t))).toEqual({ ok: true, value: { settlement: "unchanged" } });
    expect(await memberBalances(t.db, seller.id)).toEqual({ pendingUgx: 0, availableUgx: 30_000, inTransitUgx: 0, refundDueUgx: 0 });
    expect(
      await t
        .db("ledger_journals")
        .where({ payout_id: t.db("payouts").where({ reference }).select("id") })
        .orderBy("id")
        .pluck("kind"),
    ).toEqual(["payout_sent", "payout_paid"]);
  });

  it("refused outright by the provider: the payout fails at once, the money is back in the available balance, and the seller is told", async () => {
    const seller = await sellerWithEarnings();
    const { providers, disbursed } = scriptedProvider({ disburse: { outcome: "rejected", reason: "The wallet is barred" }, status: { status: "pending" } });
    const result = await withdraw(memberActor(seller), 80_000, randomUUID(), providers);
    expect(result).toMatchObject({ ok: true, value: { amountUgx: 80_000 } });
    if (!result.ok) return;
    expect(disbursed).toEqual([{ reference: result.value.reference, amountUgx: 80_000, msisdn: PAYOUT_NUMBER, description: "Soko earnings" }]);
    expect(await t.db("payouts").where({ reference: result.value.reference }).first("status", "failure_reason", "provider")).toEqual({
      status: "failed",
      failure_reason: "The wallet is barred",
      provider: "airtel",
    });
    expect(await memberBalances(t.db, seller.id)).toEqual({ pendingUgx: 0, availableUgx: 80_000, inTransitUgx: 0, refundDueUgx: 0 });
    expect(await t.db("notifications").where({ user_id: seller.id, kind: "payout_failed" }).pluck("body")).toEqual([
      "Your withdrawal of UGX 80,000 did not go through; the money is back in your available balance",
    ]);
    // Settled again, nothing comes back twice.
    expect(await settlePayout(system, { reference: result.value.reference }, { db: t.db, providers })).toEqual({
      ok: true,
      value: { settlement: "unchanged" },
    });
    expect(await memberBalances(t.db, seller.id)).toMatchObject({ availableUgx: 80_000 });
  });

  it("taken by the provider, then reported failed: the money comes back once, and can be withdrawn again", async () => {
    const seller = await sellerWithEarnings();
    const scripted = scriptedProvider({ disburse: { outcome: "accepted" }, status: { status: "pending" } });
    const result = await withdraw(memberActor(seller), 60_000, randomUUID(), scripted.providers);
    if (!result.ok) throw new Error(JSON.stringify(result));
    const { reference } = result.value;
    const settle = () => settlePayout(system, { reference }, { db: t.db, providers: scripted.providers });

    expect(await settle()).toEqual({ ok: true, value: { settlement: "pending" } });
    expect(await memberBalances(t.db, seller.id)).toMatchObject({ availableUgx: 20_000, inTransitUgx: 60_000 });

    scripted.script.status = { status: "failed", reason: "Not enough float" };
    const both = await Promise.all([settle(), settle()]);
    expect(both.map((r) => (r.ok ? r.value.settlement : r.error)).sort()).toEqual(["failed", "unchanged"]);
    expect(await memberBalances(t.db, seller.id)).toEqual({ pendingUgx: 0, availableUgx: 80_000, inTransitUgx: 0, refundDueUgx: 0 });
    expect(await count("notifications", { user_id: seller.id, kind: "payout_failed" })).toBe(1);
    expect(await withdraw(memberActor(seller), 80_000)).toMatchObject({ ok: true, value: { amountUgx: 80_000 } });
  });

  it("a provider that does not know the payout yet (Airtel, in its first minute) leaves it in transit: the money is not handed back to be paid twice", async () => {
    const seller = await sellerWithEarnings();
    // Airtel asks for a minute before the first status enquiry: until then a payout it has taken reads "not found".
    const scripted = scriptedProvider({
      disburse: { outcome: "accepted" },
      status: { status: "failed", reason: "Not found at Airtel Money: the request never arrived" },
    });
    const result = await withdraw(memberActor(seller), 80_000, randomUUID(), scripted.providers);
    if (!result.ok) throw new Error(JSON.stringify(result));
    const { reference } = result.value;
    const settle = () => settlePayout(system, { reference }, { db: t.db, providers: scripted.providers });

    // The next poll comes within ORDER_TIMERS_EVERY_MS (15 s) of the request.
    expect(await settle()).toMatchObject({ ok: true, value: { settlement: "pending" } });
    expect(await t.db("payouts").where({ reference }).first("status")).toEqual({ status: "in_transit" });
    expect(await memberBalances(t.db, seller.id)).toMatchObject({ availableUgx: 0, inTransitUgx: 80_000 });
    // Asking again under the same reference is harmless; it was never a second payout.
    expect(new Set(scripted.disbursed.map((d) => d.reference))).toEqual(new Set([reference]));

    // A minute on, Airtel reports it paid: it was paid once, and the balance shows it.
    scripted.script.status = { status: "successful", providerTransactionId: "AM-1" };
    expect(await settle()).toEqual({ ok: true, value: { settlement: "paid" } });
    expect(await memberBalances(t.db, seller.id)).toEqual({ pendingUgx: 0, availableUgx: 0, inTransitUgx: 0, refundDueUgx: 0 });
    expect(await count("notifications", { user_id: seller.id, kind: "payout_failed" })).toBe(0);
  });

  it("a provider that cannot be asked leaves the payout in transit: not knowing is never a failure", async () => {
    const seller = await sellerWithEarnings();
    const scripted = scriptedProvider({ disburse: { outcome: "unknown", reason: "Timed out" }, status: "throw" });
    const result = await withdraw(memberActor(seller), 40_000, randomUUID(), scripted.providers);
    if (!result.ok) throw new Error(JSON.stringify(result));
    expect(await settlePayout(system, { reference: result.value.reference }, { db: t.db, providers: scripted.providers })).toEqual({
      ok: true,
      value: { settlement: "pending" },
    });
    expect(await t.db("payouts").where({ reference: result.value.reference }).first("status", "polls")).toEqual({ status: "in_transit", polls: 1 });
    expect(await memberBalances(t.db, seller.id)).toMatchObject({ availableUgx: 40_000, inTransitUgx: 40_000 });
    expect(await count("notifications", { user_id: seller.id, kind: "payout_failed" })).toBe(0);
  });
});
