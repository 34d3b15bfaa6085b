/**
 * A payment asked for again (ADR 043): "Send the prompt again" and "Use another number" are new payments of
 * the same order, through the real MoMo and Airtel adapters against the local fakes over HTTP. The earlier
 * prompt cannot be withdrawn at MTN or Airtel, so it is superseded and still followed: whichever payment is
 * taken first counts, a later one is refunded whole, and a superseded one that fails leaves the order alone.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { memberBalances } from "~/models/ledger.server";
import { cancelOrder, placeOrder } from "~/operations/orders.server";
import { payAgain } from "~/operations/payment-retries.server";
import { paymentCallback, settlePayment, type PaymentOptions } from "~/operations/payments.server";
import { createProviders, type Providers } from "~/payments/registry.server";
import { parseEnv } from "~/server/env.server";
import { messageOf } from "~/content/operation-messages";
import { createUser, type TestUser } from "../support/factories";
import { startFakeAirtel, type FakeAirtel } from "../support/fake-airtel";
import { startFakeMomo, type FakeMomo } from "../support/fake-momo";
import { at, eventKinds, expectLedgerSound, journalKeys, MINUTE_MS, orderRow } from "../support/order-checks";
import { balances, checkoutKey, memberActor, opts, orderTestContext, system } from "../support/orders";

/** The seller's gig: a Basic package at UGX 100,000 (the payer is asked for 105,000). */
const t = orderTestContext("payagain", { parties: { seller: { name: "Again Seller" } } });
let momo: FakeMomo;
let airtel: FakeAirtel;
/** MTN numbers go to the local MoMo, Airtel numbers to the local Airtel. */
let providers: Providers;

beforeAll(async () => {
  momo = await startFakeMomo();
  airtel = await startFakeAirtel();
  providers = createProviders(parseEnv({ ...process.env, ...momo.env, ...airtel.env }), { sandbox: null });
});
afterEach(() => expectLedgerSound(t.db));
afterAll(async () => {
  await momo?.close();
  await airtel?.close();
});

const o = (extra: Partial<PaymentOptions> = {}): PaymentOptions => ({ db: t.db, providers, ...extra });
let buyers = 0;
const newBuyer = () => createUser(t.db, { role: "client", name: `Again Buyer ${++buyers}` });

/** A checkout paid from an MTN number: MoMo is asked to prompt +256 772 123 456. */
async function placeMtnOrder(buyer: TestUser) {
  const placed = await placeOrder(
    memberActor(buyer),
    { gigId: t.gigId, tier: "basic", requirements: "A logo", msisdn: "+256772123456", network: "mtn", checkoutKey: checkoutKey() },
    o(),
  );
  if (!placed.ok) throw new Error(JSON.stringify(placed));
  return placed.value;
}

const payments = (orderId: number) =>
  t.db("payments").where({ order_id: orderId }).orderBy("id").select("reference", "provider", "msisdn", "status", "superseded_at", "amount_ugx");
const momoCallback = (reference: string) => ({ externalId: reference, status: "SUCCESSFUL", amount: "105000", currency: "UGX" });
const airtelCallback = (reference: string) => ({ transaction: { id: reference, status_code: "TS", message: "Paid" } });

describe("sending the prompt again", () => {
  it("is a new payment to the same number; the first, superseded, is still followed, and its late success is refunded whole, never counted", async () => {
    const buyer = await newBuyer();
    const { orderId, reference: first } = await placeMtnOrder(buyer);
    const again = await payAgain(memberActor(buyer), { orderId }, o());
    expect(again).toMatchObject({ ok: true, value: { superseded: [first] } });
    if (!again.ok) return;
    const second = again.value.reference;

    const rows = await payments(orderId);
    expect(rows.map((p) => [p.reference, p.provider, p.msisdn, p.status, p.superseded_at !== null, Number(p.amount_ugx)])).toEqual([
      [first, "mtn", "+256772123456", "pending", true, 105_000],
      [second, "mtn", "+256772123456", "pending", false, 105_000],
    ]);
    // MoMo was asked twice, under two references: two prompts on the phone.
    expect(momo.transfer("collection", second)).toMatchObject({ amount: "105000", externalId: second, status: "PENDING" });
    expect(await eventKinds(t.db, orderId)).toEqual(["placed", "payment_requested"]);
    expect(await t.db("order_events").where({ order_id: orderId, kind: "payment_requested" }).first("reason", "actor_role")).toEqual({
      reason: "Sent again to ****3456 (MTN Mobile Money)",
      actor_role: "buyer",
    });
    expect(await t.db("activity").where({ user_id: buyer.id, kind: "payment_requested" }).count({ n: "*" }).first()).toEqual({ n: 1 });

    // The payer approves the new prompt: it counts.
    momo.setOutcome(second, "SUCCESSFUL");
    expect(await paymentCallback(system, { provider: "mtn", body: momoCallback(second) }, o())).toEqual({ ok: true, value: { settlement: "paid" } });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "in_progress" });

    // Then the old prompt too (it was still on the phone): taken, so recorded and refunded at once.
    momo.setOutcome(first, "SUCCESSFUL");
    expect(await paymentCallback(system, { provider: "mtn", body: momoCallback(first) }, o())).toEqual({ ok: true, value: { settlement: "failed" } });
    expect(await paymentCallback(system, { provider: "mtn", body: momoCallback(first) }, o())).toEqual({ ok: true, value: { settlement: "unchanged" } });
    expect((await payments(orderId)).map((p) => p.status)).toEqual(["refunded", "successful"]);
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "in_progress" });
    const firstId = (await t.db("payments").where({ reference: first }).first("id")).id;
    expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`, `payment:${firstId}:returned`]);
    expect(await balances(t.db)).toMatchObject({ [`escrow:order:${orderId}`]: 100_000, [`buyer_fee_held:order:${orderId}`]: 5_000 });
    // The refund went out through MoMo's disbursement to the number that paid it.
    const refund = await t.db("payouts").where({ order_id: orderId }).first("kind", "msisdn", "amount_ugx", "status", "request_key");
    expect(refund).toEqual({ kind: "refund", msisdn: "+256772123456", amount_ugx: 105000, status: "in_transit", request_key: `refund:payment:${firstId}` });
    expect(momo.count("/disbursement/v1_0/transfer")).toBeGreaterThan(0);
    expect(await memberBalances(t.db, buyer.id)).toMatchObject({ refundDueUgx: 0, inTransitUgx: 105_000 });
    expect(await eventKinds(t.db, orderId)).toEqual(["placed", "payment_requested", "paid", "extra_payment_refunded"]);
  });

  it("the superseded prompt approved first counts; the newer one approved after is the one refunded", async () => {
    const buyer = await newBuyer();
    const { orderId, reference: first } = await placeMtnOrder(buyer);
    const again = await payAgain(memberActor(buyer), { orderId }, o());
    if (!again.ok) throw new Error(JSON.stringify(again));
    momo.setOutcome(first, "SUCCESSFUL");
    expect(await settlePayment(system, { reference: first }, o())).toMatchObject({ ok: true, value: { settlement: "paid" } });
    momo.setOutcome(again.value.reference, "SUCCESSFUL");
    expect(await settlePayment(system, { reference: again.value.reference }, o())).toMatchObject({ ok: true, value: { settlement: "failed" } });
    expect((await payments(orderId)).map((p) => p.status)).toEqual(["successful", "refunded"]);
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "in_progress" });
  });
});

describe("using another number", () => {
  it("asks Airtel for an Airtel number; the superseded MTN prompt declined later leaves the order waiting, and Airtel's approval pays it", async () => {
    const buyer = await newBuyer();
    const { orderId, reference: first } = await placeMtnOrder(buyer);
    const before = airtel.count("/merchant/v2/payments/");
    const other = await payAgain(memberActor(buyer), { orderId, payer: { msisdn: "+256701234567", network: "airtel" } }, o());
    if (!other.ok) throw new Error(JSON.stringify(other));
    expect(airtel.count("/merchant/v2/payments/")).toBe(before + 1);
    expect((await payments(orderId)).map((p) => [p.provider, p.msisdn, p.status])).toEqual([
      ["mtn", "+256772123456", "pending"],
      ["airtel", "+256701234567", "pending"],
    ]);
    expect(await t.db("order_events").where({ order_id: orderId, kind: "payment_requested" }).first("reason")).toEqual({
      reason: "Another number: ****4567 (Airtel Money)",
    });

    momo.setOutcome(first, "FAILED", "APPROVAL_REJECTED");
    expect(await settlePayment(system, { reference: first }, o())).toMatchObject({ ok: true, value: { settlement: "failed" } });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "pending_payment" });
    expect(await eventKinds(t.db, orderId)).toEqual(["placed", "payment_requested"]);

    airtel.setOutcome(other.value.reference, "TS");
    expect(await paymentCallback(system, { provider: "airtel", body: airtelCallback(other.value.reference) }, o())).toEqual({
      ok: true,
      value: { settlement: "paid" },
    });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "in_progress" });
    expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`]);
  });

  it("an order the buyer gave up: the superseded payment taken late is refunded as before, and the newer one taken too is refunded on its own", async () => {
    const buyer = await newBuyer();
    const { orderId, reference: first } = await placeMtnOrder(buyer);
    const other = await payAgain(memberActor(buyer), { orderId, payer: { msisdn: "+256751234567", network: "airtel" } }, o());
    if (!other.ok) throw new Error(JSON.stringify(other));
    expect(await cancelOrder(memberActor(buyer), { orderId, reason: "", expected: "abandon" }, o())).toMatchObject({ ok: true });
    momo.setOutcome(first, "SUCCESSFUL");
    await settlePayment(system, { reference: first }, o());
    airtel.setOutcome(other.value.reference, "TS");
    await settlePayment(system, { reference: other.value.reference }, o());
    expect((await payments(orderId)).map((p) => p.status)).toEqual(["successful", "refunded"]);
    expect(await t.db("payouts").where({ order_id: orderId }).orderBy("id").select("msisdn", "amount_ugx")).toEqual([
      { msisdn: "+256772123456", amount_ugx: 105000 },
      { msisdn: "+256751234567", amount_ugx: 105000 },
    ]);
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "cancelled" });
  });
});

describe("who and when", () => {
  it("another member's order is not found, and nothing is written or asked", async () => {
    const buyer = await newBuyer();
    const stranger = await newBuyer();
    const { orderId } = await placeMtnOrder(buyer);
    const asked = momo.count("/collection/v1_0/requesttopay");
    expect(await payAgain(memberActor(stranger), { orderId }, o())).toMatchObject({ ok: false, error: "not_found", code: "order.not_found" });
    expect(await payAgain(memberActor(t.seller), { orderId, payer: { msisdn: "+256701234567", network: "airtel" } }, o())).toMatchObject({
      ok: false,
      code: "order.not_found",
    });
    expect(await payments(orderId)).toHaveLength(1);
    expect(await eventKinds(t.db, orderId)).toEqual(["placed"]);
    expect(momo.count("/collection/v1_0/requesttopay")).toBe(asked);
  });

  it("a paid order, or one past its 30 minutes, gets no new prompt", async () => {
    const buyer = await newBuyer();
    const { orderId, reference } = await placeMtnOrder(buyer);
    const late = await payAgain(memberActor(buyer), { orderId }, o({ now: at(Date.now() + 31 * MINUTE_MS) }));
    expect(late).toMatchObject({ ok: false, error: "conflict", code: "payment.window_closed", params: { minutes: 30 } });
    if (!late.ok && late.error !== "invalid") expect(messageOf(late)).toMatch(/waited 30 minutes/);
    momo.setOutcome(reference, "SUCCESSFUL");
    await settlePayment(system, { reference }, o());
    expect(await payAgain(memberActor(buyer), { orderId }, o())).toMatchObject({ ok: false, code: "order.not_allowed_now", params: { status: "in_progress" } });
    expect(await payments(orderId)).toHaveLength(1);
  });

  it("is limited to 5 in 10 minutes per order and member; another order of the member is counted apart", async () => {
    const buyer = await newBuyer();
    const { orderId } = await placeMtnOrder(buyer);
    for (let i = 0; i < 5; i++) expect(await payAgain(memberActor(buyer), { orderId }, o())).toMatchObject({ ok: true });
    const refused = await payAgain(memberActor(buyer), { orderId }, o());
    expect(refused).toMatchObject({ ok: false, error: "limited", status: 429, code: "limit.exceeded", params: { limit: "payAgain" } });
    if (!refused.ok && refused.error !== "invalid")
      expect(messageOf(refused)).toBe("You have asked for this payment many times. Please wait a few minutes and try again.");
    expect(await payments(orderId)).toHaveLength(6);
    const { orderId: next } = await placeMtnOrder(buyer);
    expect(await payAgain(memberActor(buyer), { orderId: next }, o())).toMatchObject({ ok: true });
  });
});

describe("a provider that can withdraw a prompt (the sandbox)", () => {
  it("withdraws the superseded prompt, which settles failed at once while the order waits for the new one", async () => {
    const buyer = await newBuyer();
    const placed = await placeOrder(
      memberActor(buyer),
      { gigId: t.gigId, tier: "basic", requirements: "", msisdn: "+256772123456", network: "mtn", checkoutKey: checkoutKey() },
      opts(t),
    );
    if (!placed.ok) throw new Error(JSON.stringify(placed));
    const again = await payAgain(memberActor(buyer), { orderId: placed.value.orderId }, opts(t));
    if (!again.ok) throw new Error(JSON.stringify(again));
    expect(await t.sandbox.get(placed.value.reference)).toMatchObject({ status: "WITHDRAWN" });
    expect(await t.sandbox.decide(placed.value.reference, "approve")).toBe(false);
    expect((await payments(placed.value.orderId)).map((p) => [p.status, p.superseded_at !== null])).toEqual([
      ["failed", true],
      ["pending", false],
    ]);
    expect(await orderRow(t.db, placed.value.orderId)).toMatchObject({ status: "pending_payment" });
  });
});
