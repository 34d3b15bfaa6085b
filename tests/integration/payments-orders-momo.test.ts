/**
 * Orders paid by MTN MoMo: the order and payment operations with the real MoMo adapter (as the registry
 * builds it from MTN_MOMO_* variables) against the local MoMo of tests/support/fake-momo.ts, over HTTP.
 * What MoMo reports is what happens: successful is captured once however often it is read, failed cancels
 * the order, a callback is only a hint (the status is read back, so a callback claiming success for a
 * payment still pending moves nothing), and a MoMo that answers 500 leaves the payment pending, never failed.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { memberBalances } from "~/models/ledger.server";
import { cancelOrder, placeOrder } from "~/operations/orders.server";
import { paymentCallback, pollPayments, settlePayment, settlePayout, type PaymentOptions } from "~/operations/payments.server";
import { createProviders, type Providers } from "~/payments/registry.server";
import { parseEnv } from "~/server/env.server";
import { createUser, type TestUser } from "../support/factories";
import { startFakeMomo, type FakeMomo } from "../support/fake-momo";
import { at, DAY_MS, eventKinds, expectLedgerSound, journalKeys, MINUTE_MS, orderRow } from "../support/order-checks";
import { balances, checkoutKey, memberActor, opts, orderTestContext, placeTestOrder, system } from "../support/orders";

/** Where MoMo's callbacks arrive: our public URL's /payments/callback/mtn, played by a listener of the test's. */
type CallbackCatcher = { url: string; bodies: Record<string, unknown>[]; close: () => Promise<void> };
async function startCallbackCatcher(): Promise<CallbackCatcher> {
  const bodies: Record<string, unknown>[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method === "PUT" && req.url === "/payments/callback/mtn") bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The seller's gig: a Basic package at UGX 100,000 (the payer is asked for 105,000). */
const t = orderTestContext("momoorders", { parties: { seller: { name: "MoMo Seller" } } });
let fake: FakeMomo;
let catcher: CallbackCatcher;
/** MoMo's adapter on the local MoMo; `t.providers` are the sandbox's. */
let providers: Providers;

beforeAll(async () => {
  fake = await startFakeMomo();
  catcher = await startCallbackCatcher();
  providers = createProviders(parseEnv({ ...process.env, ...fake.env, PUBLIC_URL: catcher.url }), { sandbox: null });
});
afterEach(() => expectLedgerSound(t.db));
afterAll(async () => {
  await catcher?.close();
  await fake?.close();
});

const o = (extra: Partial<PaymentOptions> = {}): PaymentOptions => ({ db: t.db, providers, ...extra });
let buyers = 0;
const newBuyer = () => createUser(t.db, { role: "client", name: `MoMo Buyer ${++buyers}` });

/** A checkout paid from an MTN number: MoMo is asked to prompt the payer for the price and the buyer's fee. */
const placeMomoOrder = (buyer: TestUser) => placeTestOrder({ ...t, providers }, buyer, t.gigId);

/** The callback MoMo sent about this reference, once it has arrived. */
async function callbackFor(reference: string) {
  for (let i = 0; i < 100; i++) {
    const body = catcher.bodies.find((b) => b.externalId === reference);
    if (body) return body;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no MoMo callback for ${reference}`);
}

const statusReads = (reference: string) => fake.count(`/collection/v1_0/requesttopay/${reference}`);

describe("an order paid by MTN MoMo", () => {
  it("is requested from MoMo, stays pending while MoMo says so, and is captured once when MoMo says SUCCESSFUL", async () => {
    const buyer = await newBuyer();
    const { orderId, reference } = await placeMomoOrder(buyer);
    expect(await t.db("payments").where({ reference }).first("provider", "network", "amount_ugx", "status")).toEqual({
      provider: "mtn",
      network: "mtn",
      amount_ugx: 105_000,
      status: "pending",
    });
    expect(fake.transfer("collection", reference)).toMatchObject({ amount: "105000", currency: "UGX", externalId: reference, status: "PENDING" });

    expect(await settlePayment(system, { reference }, o())).toEqual({ ok: true, value: { orderId, settlement: "pending" } });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "pending_payment" });

    fake.setOutcome(reference, "SUCCESSFUL");
    expect(await settlePayment(system, { reference }, o())).toEqual({ ok: true, value: { orderId, settlement: "paid" } });
    expect(await settlePayment(system, { reference }, o())).toEqual({ ok: true, value: { orderId, settlement: "unchanged" } });
    expect(await pollPayments(system, o())).toMatchObject({ ok: true });
    const { financialTransactionId } = fake.transfer("collection", reference)!;
    expect(await t.db("payments").where({ reference }).first("status", "provider_transaction_id")).toEqual({
      status: "successful",
      provider_transaction_id: financialTransactionId,
    });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "in_progress" });
    expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`]);
    expect(await balances(t.db)).toMatchObject({ [`escrow:order:${orderId}`]: 100_000, [`buyer_fee_held:order:${orderId}`]: 5_000 });
  });

  it("MoMo's own callback on approval settles it; the same callback again changes nothing", async () => {
    const buyer = await newBuyer();
    const { orderId, reference } = await placeMomoOrder(buyer);
    fake.setOutcome(reference, "SUCCESSFUL");
    const body = await callbackFor(reference);
    expect(body).toMatchObject({ externalId: reference, status: "SUCCESSFUL" });

    expect(await paymentCallback(system, { provider: "mtn", body }, o())).toEqual({ ok: true, value: { settlement: "paid" } });
    for (let i = 0; i < 3; i++) {
      expect(await paymentCallback(system, { provider: "mtn", body }, o())).toEqual({ ok: true, value: { settlement: "unchanged" } });
    }
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "in_progress" });
    expect(await eventKinds(t.db, orderId)).toEqual(["placed", "paid"]);
    expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`]);
  });

  it("MoMo says FAILED: the order is cancelled with MoMo's reason, and nothing is taken", async () => {
    const buyer = await newBuyer();
    const { orderId, reference } = await placeMomoOrder(buyer);
    fake.setOutcome(reference, "FAILED", "APPROVAL_REJECTED");
    expect(await settlePayment(system, { reference }, o())).toEqual({ ok: true, value: { orderId, settlement: "failed" } });
    expect(await t.db("payments").where({ reference }).first("status", "failure_reason")).toEqual({
      status: "failed",
      failure_reason: "The payer declined (APPROVAL_REJECTED)",
    });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "cancelled" });
    expect(await eventKinds(t.db, orderId)).toEqual(["placed", "payment_failed"]);
    expect(await journalKeys(t.db, orderId)).toEqual([]);
  });

  it("a callback claiming success for a payment MoMo still reports PENDING changes nothing: the status is read back", async () => {
    const buyer = await newBuyer();
    const { orderId, reference } = await placeMomoOrder(buyer);
    const forged = {
      financialTransactionId: "1234567890",
      externalId: reference,
      amount: "105000",
      currency: "UGX",
      payer: { partyIdType: "MSISDN", partyId: "256772123456" },
      payerMessage: "Soko order",
      payeeNote: "Soko order",
      status: "SUCCESSFUL",
    };
    const reads = statusReads(reference);
    expect(await paymentCallback(system, { provider: "mtn", body: forged }, o())).toEqual({ ok: true, value: { settlement: "pending" } });
    expect(statusReads(reference)).toBe(reads + 1);
    expect(await t.db("payments").where({ reference }).first("status", "provider_transaction_id")).toEqual({
      status: "pending",
      provider_transaction_id: null,
    });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "pending_payment" });
    expect(await journalKeys(t.db, orderId)).toEqual([]);
  });

  it("MoMo answering 500 on the status leaves the payment pending, even past the 30 minutes; its next pending answer cancels the order, and a day of pending fails the payment", async () => {
    const buyer = await newBuyer();
    const { orderId, reference } = await placeMomoOrder(buyer);
    fake.respondNext(500, { code: "INTERNAL_PROCESSING_ERROR", message: "An internal error occurred" }, `/requesttopay/${reference}`);
    expect(await settlePayment(system, { reference }, o())).toEqual({ ok: true, value: { orderId, settlement: "pending" } });
    expect(await t.db("payments").where({ reference }).first("status", "failure_reason")).toEqual({ status: "pending", failure_reason: null });

    const expired = at(Date.now() + 31 * MINUTE_MS);
    fake.respondNext(500, { code: "INTERNAL_PROCESSING_ERROR", message: "An internal error occurred" }, `/requesttopay/${reference}`);
    expect(await pollPayments(system, o({ now: expired }))).toMatchObject({ ok: true });
    expect(await t.db("payments").where({ reference }).first("status")).toEqual({ status: "pending" });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "pending_payment" });

    // MoMo answers again, still pending: now the 30 minutes apply to the order; the payment is still followed.
    expect(await pollPayments(system, o({ now: expired }))).toMatchObject({ ok: true });
    expect(await t.db("payments").where({ reference }).first("status", "failure_reason")).toEqual({ status: "pending", failure_reason: null });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "cancelled" });

    // A day on with MoMo still saying pending, the payment counts as failed.
    expect(await pollPayments(system, o({ now: at(Date.now() + 25 * 60 * MINUTE_MS) }))).toMatchObject({ ok: true });
    expect(await t.db("payments").where({ reference }).first("status", "failure_reason")).toEqual({
      status: "failed",
      failure_reason: "No answer from the provider for a day",
    });
  });

  it("a refund goes back through MoMo's disbursement, and is paid when MoMo calls back about it, once", async () => {
    const buyer = await newBuyer();
    const { orderId, reference } = await placeMomoOrder(buyer);
    fake.setOutcome(reference, "SUCCESSFUL");
    expect(await settlePayment(system, { reference }, o())).toMatchObject({ ok: true, value: { settlement: "paid" } });
    const late = (await orderRow(t.db, orderId)).dueAt!.getTime() + DAY_MS + 1;
    expect(await cancelOrder(memberActor(buyer), { orderId, reason: "Too late" }, o({ now: at(late) }))).toMatchObject({
      ok: true,
      value: { outcome: "cancelled" },
    });

    const payout = await t.db("payouts").where({ order_id: orderId }).first("reference", "provider", "amount_ugx", "status");
    expect(payout).toMatchObject({ provider: "mtn", amount_ugx: 105_000, status: "in_transit" });
    expect(fake.transfer("disbursement", payout.reference)).toMatchObject({
      amount: "105000",
      payee: { partyIdType: "MSISDN", partyId: "256772123456" },
      status: "PENDING",
    });
    expect(await settlePayout(system, { reference: payout.reference }, o())).toEqual({ ok: true, value: { settlement: "pending" } });
    // MoMo calls back about the transfer too; the callback settles the payout, and its replay nothing.
    fake.setOutcome(payout.reference, "SUCCESSFUL");
    const body = await callbackFor(payout.reference);
    expect(await paymentCallback(system, { provider: "mtn", body }, o())).toEqual({ ok: true, value: { settlement: "paid" } });
    expect(await paymentCallback(system, { provider: "mtn", body }, o())).toEqual({ ok: true, value: { settlement: "unchanged" } });
    expect(await settlePayout(system, { reference: payout.reference }, o())).toEqual({ ok: true, value: { settlement: "unchanged" } });
    expect(await t.db("payouts").where({ reference: payout.reference }).first("status", "provider_transaction_id")).toEqual({
      status: "paid",
      provider_transaction_id: fake.transfer("disbursement", payout.reference)!.financialTransactionId,
    });
    expect(await memberBalances(t.db, buyer.id)).toEqual({ pendingUgx: 0, availableUgx: 0, inTransitUgx: 0, refundDueUgx: 0 });
  });
});

describe("callbacks that are not about a MoMo payment of ours", () => {
  it("a callback naming a payment of another provider is not found, either way round, and settles nothing", async () => {
    const buyer = await newBuyer();
    const momo = await placeMomoOrder(buyer);
    const sandbox = await placeTestOrder(t, buyer, t.gigId);
    expect(await t.db("payments").where({ reference: sandbox.reference }).first("provider")).toEqual({ provider: "sandbox" });
    fake.setOutcome(momo.reference, "SUCCESSFUL");
    expect(await t.sandbox.decide(sandbox.reference, "approve")).toBe(true);

    expect(await paymentCallback(system, { provider: "mtn", body: { externalId: sandbox.reference, status: "SUCCESSFUL" } }, o())).toMatchObject({
      ok: false,
      error: "not_found",
    });
    expect(await paymentCallback(system, { provider: "sandbox", body: { reference: momo.reference } }, opts(t))).toMatchObject({
      ok: false,
      error: "not_found",
    });
    expect(await t.db("payments").whereIn("reference", [momo.reference, sandbox.reference]).pluck("status")).toEqual(["pending", "pending"]);
    expect(await journalKeys(t.db, momo.orderId)).toEqual([]);
    expect(await journalKeys(t.db, sandbox.orderId)).toEqual([]);
  });

  it("a body MoMo would never send names nothing (invalid); an Airtel checkout with only MoMo configured is refused", async () => {
    for (const body of ["junk", null, [], {}, { externalId: 42 }, { externalId: "not-a-uuid" }, { referenceId: randomUUID() }]) {
      expect(await paymentCallback(system, { provider: "mtn", body }, o()), JSON.stringify(body)).toMatchObject({ ok: false, error: "invalid" });
    }
    expect(await paymentCallback(system, { provider: "mtn", body: { externalId: randomUUID(), status: "SUCCESSFUL" } }, o())).toMatchObject({
      ok: false,
      error: "not_found",
    });
    const buyer = await newBuyer();
    const orders = await t.db("orders").count<{ c: string }[]>({ c: "*" });
    const placed = await placeOrder(
      memberActor(buyer),
      { gigId: t.gigId, tier: "basic", requirements: "", msisdn: "+256701234567", network: "airtel", checkoutKey: checkoutKey() },
      o(),
    );
    expect(placed).toEqual({ ok: false, error: "conflict", code: "payment.unavailable", params: {} });
    expect(await t.db("orders").count<{ c: string }[]>({ c: "*" })).toEqual(orders);
  });
});
