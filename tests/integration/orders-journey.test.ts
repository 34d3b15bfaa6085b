/**
 * One order's whole life through the operations, against real Postgres and Redis with the sandbox provider:
 * checkout, payment into escrow, delivery, a revision, approval, clearance 14 days on, withdrawal; and
 * the ledger at each step (escrow holds the price, the fee is held, the seller's balances move).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memberBalances } from "~/models/ledger.server";
import { approveOrder, cancelOrder, deliverOrder, requestRevision, runOrderTimers } from "~/operations/orders.server";
import { requestWithdrawal, settlePayout } from "~/operations/payments.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createGig, createUser, type TestUser } from "../support/factories";
import { balances, memberActor, opts, placeTestOrder, system, testProviders, type OrderTestContext } from "../support/orders";
import { settlePayment } from "~/operations/payments.server";
import { deleteGig } from "~/operations/gigs.server";

let t: TestDatabase;
let c: OrderTestContext;
let closeProviders: () => Promise<unknown>;
let seller: TestUser;
let buyer: TestUser;
let gigId: number;

beforeAll(async () => {
  t = await createTestDatabase();
  const p = testProviders();
  closeProviders = p.close;
  c = { db: t.db, providers: p.providers, sandbox: p.sandbox };
  seller = await createUser(t.db, { role: "freelancer" });
  buyer = await createUser(t.db, { role: "client" });
  await t.db("users").where({ id: seller.id }).update({ mobile_money_number: "+256701234567" });
  gigId = (await createGig(t.db, { sellerId: seller.id, packages: { basic: { priceUgx: 100_000, deliveryDays: 3, revisions: 1 } } })).id;
});
afterAll(async () => {
  await closeProviders?.();
  await t?.drop();
});

describe("an order from checkout to withdrawal", () => {
  it("moves the money as the ledger says, step by step", async () => {
    const { orderId, reference } = await placeTestOrder(c, buyer, gigId);
    const order = await t.db("orders").where({ id: orderId }).first();
    expect(order).toMatchObject({ status: "pending_payment", price_ugx: 100_000, buyer_fee_ugx: 5_000, seller_fee_ugx: 20_000 });
    expect(await t.db("payments").where({ order_id: orderId }).first()).toMatchObject({ status: "pending", amount_ugx: 105_000, provider: "sandbox" });
    // Nothing taken yet: the payment is still waiting on the phone.
    expect(await settlePayment(system, { reference }, opts(c))).toMatchObject({ ok: true, value: { settlement: "pending" } });
    expect(await c.sandbox.decide(reference, "approve")).toBe(true);
    expect(await settlePayment(system, { reference }, opts(c))).toMatchObject({ ok: true, value: { settlement: "paid" } });
    expect(await balances(t.db)).toMatchObject({ [`escrow:order:${orderId}`]: 100_000, [`buyer_fee_held:order:${orderId}`]: 5_000, provider_clearing: -105_000 });

    const sellerActor = memberActor(seller);
    const buyerActor = memberActor(buyer);
    expect((await deliverOrder(sellerActor, { orderId, message: "First draft" }, opts(c))).ok).toBe(true);
    expect(await requestRevision(buyerActor, { orderId, reason: "Bigger letters" }, opts(c))).toMatchObject({ ok: true, value: { revisionsLeft: 0 } });
    expect((await deliverOrder(sellerActor, { orderId, message: "Second draft" }, opts(c))).ok).toBe(true);
    expect(await requestRevision(buyerActor, { orderId, reason: "Again" }, opts(c))).toMatchObject({ ok: false, error: "conflict", reason: "no_revisions_left" });
    expect(await approveOrder(buyerActor, { orderId }, opts(c))).toMatchObject({ ok: true, value: { status: "completed" } });
    expect(await approveOrder(buyerActor, { orderId }, opts(c))).toMatchObject({ ok: false, error: "conflict" });
    const released = await balances(t.db);
    expect(released).toMatchObject({
      [`escrow:order:${orderId}`]: 0,
      [`buyer_fee_held:order:${orderId}`]: 0,
      [`seller_pending:user:${seller.id}`]: 80_000,
      platform_seller_fees: 20_000,
      platform_buyer_fees: 5_000,
    });

    // 13 days on, nothing clears; 15 days on, the earnings are available.
    const day = 24 * 60 * 60 * 1000;
    expect(await runOrderTimers(system, { ...opts(c), now: () => new Date(Date.now() + 13 * day) })).toMatchObject({ ok: true, value: { cleared: 0 } });
    expect(await runOrderTimers(system, { ...opts(c), now: () => new Date(Date.now() + 15 * day) })).toMatchObject({ ok: true, value: { cleared: 1 } });
    expect(await runOrderTimers(system, { ...opts(c), now: () => new Date(Date.now() + 16 * day) })).toMatchObject({ ok: true, value: { cleared: 0 } });
    expect(await memberBalances(t.db, seller.id)).toMatchObject({ pendingUgx: 0, availableUgx: 80_000 });

    const tooMuch = await requestWithdrawal(sellerActor, { amountUgx: 80_001, requestKey: "k".repeat(20) }, opts(c));
    expect(tooMuch).toMatchObject({ ok: false, error: "invalid" });
    const withdrawn = await requestWithdrawal(sellerActor, { amountUgx: 50_000, requestKey: "w".repeat(20) }, opts(c));
    expect(withdrawn).toMatchObject({ ok: true, value: { amountUgx: 50_000 } });
    if (!withdrawn.ok) return;
    expect(await settlePayout(system, { reference: withdrawn.value.reference }, opts(c))).toMatchObject({ ok: true, value: { settlement: "paid" } });
    expect(await memberBalances(t.db, seller.id)).toMatchObject({ availableUgx: 30_000, inTransitUgx: 0 });
    const events = await t.db("order_events").where({ order_id: orderId }).orderBy("id").pluck("kind");
    expect(events).toEqual(["placed", "paid", "delivered", "revision_requested", "delivered", "approved", "cleared"]);
  });

  it("keeps a gig with an order in progress from being deleted; the order keeps what was bought once it is gone", async () => {
    const gig = await createGig(t.db, { sellerId: seller.id, title: "Gig with an open order" });
    const { orderId, reference } = await placeTestOrder(c, buyer, gig.id);
    await c.sandbox.decide(reference, "approve");
    await settlePayment(system, { reference }, opts(c));
    expect(await deleteGig(memberActor(seller), { gigId: gig.id }, { db: t.db })).toMatchObject({ ok: false, error: "conflict", reason: "open_orders" });
    expect(await t.db("gigs").where({ id: gig.id }).first("id")).toBeDefined();
    await deliverOrder(memberActor(seller), { orderId, message: "Done" }, opts(c));
    await approveOrder(memberActor(buyer), { orderId }, opts(c));
    expect(await deleteGig(memberActor(seller), { gigId: gig.id }, { db: t.db })).toMatchObject({ ok: true });
    expect(await t.db("orders").where({ id: orderId }).first("gig_id", "gig_title", "status")).toEqual({ gig_id: null, gig_title: "Gig with an open order", status: "completed" });
  });

  it("a cancel meant for an unpaid order is refused once the payment has landed, rather than becoming a cancel request", async () => {
    const { orderId, reference } = await placeTestOrder(c, buyer, gigId);
    await c.sandbox.decide(reference, "approve");
    await settlePayment(system, { reference }, opts(c));
    const refused = await cancelOrder(memberActor(buyer), { orderId, reason: "", expected: "abandon" }, opts(c));
    expect(refused).toMatchObject({ ok: false, error: "conflict", reason: "not_allowed_now" });
    expect(await t.db("orders").where({ id: orderId }).first("status", "cancel_requested_by")).toEqual({ status: "in_progress", cancel_requested_by: null });
    // Without `expected`, the same press is a request to the seller.
    expect(await cancelOrder(memberActor(buyer), { orderId, reason: "" }, opts(c))).toMatchObject({ ok: true, value: { outcome: "requested" } });
  });
});

