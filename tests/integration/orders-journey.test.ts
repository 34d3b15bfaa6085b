/**
 * One order's whole life through the operations, against real Postgres and Redis with the sandbox provider:
 * checkout, payment into escrow, delivery, a revision, approval, clearance 14 days on, withdrawal; and
 * the ledger at each step (escrow holds the price, the fee is held, the seller's balances move).
 */
import { describe, expect, it } from "vitest";
import { memberBalances } from "~/models/ledger.server";
import { approveOrder, cancelOrder, deliverOrder, requestRevision, runOrderTimers } from "~/operations/orders.server";
import { requestWithdrawal, settlePayout } from "~/operations/payments.server";
import { createGig } from "../support/factories";
import { balances, memberActor, opts, orderTestContext, placeTestOrder, system } from "../support/orders";
import { settlePayment } from "~/operations/payments.server";
import { deleteGig } from "~/operations/gigs.server";

/** The seller has a payout number; the gig's Basic package is UGX 100,000 in 3 days with 1 revision. */
const t = orderTestContext("journey", { parties: true });

describe("an order from checkout to withdrawal", () => {
  it("moves the money as the ledger says, step by step", async () => {
    const { orderId, reference } = await placeTestOrder(t, t.buyer, t.gigId);
    const order = await t.db("orders").where({ id: orderId }).first();
    expect(order).toMatchObject({ status: "pending_payment", price_ugx: 100_000, buyer_fee_ugx: 5_000, seller_fee_ugx: 20_000 });
    expect(await t.db("payments").where({ order_id: orderId }).first()).toMatchObject({ status: "pending", amount_ugx: 105_000, provider: "sandbox" });
    // Nothing taken yet: the payment is still waiting on the phone.
    expect(await settlePayment(system, { reference }, opts(t))).toMatchObject({ ok: true, value: { settlement: "pending" } });
    expect(await t.sandbox.decide(reference, "approve")).toBe(true);
    expect(await settlePayment(system, { reference }, opts(t))).toMatchObject({ ok: true, value: { settlement: "paid" } });
    expect(await balances(t.db)).toMatchObject({
      [`escrow:order:${orderId}`]: 100_000,
      [`buyer_fee_held:order:${orderId}`]: 5_000,
      provider_clearing: -105_000,
    });

    const sellerActor = memberActor(t.seller);
    const buyerActor = memberActor(t.buyer);
    expect((await deliverOrder(sellerActor, { orderId, message: "First draft" }, opts(t))).ok).toBe(true);
    expect(await requestRevision(buyerActor, { orderId, reason: "Bigger letters" }, opts(t))).toMatchObject({ ok: true, value: { revisionsLeft: 0 } });
    expect((await deliverOrder(sellerActor, { orderId, message: "Second draft" }, opts(t))).ok).toBe(true);
    expect(await requestRevision(buyerActor, { orderId, reason: "Again" }, opts(t))).toMatchObject({
      ok: false,
      error: "conflict",
      code: "order.no_revisions_left",
    });
    expect(await approveOrder(buyerActor, { orderId }, opts(t))).toMatchObject({ ok: true, value: { status: "completed" } });
    expect(await approveOrder(buyerActor, { orderId }, opts(t))).toMatchObject({ ok: false, error: "conflict" });
    const released = await balances(t.db);
    expect(released).toMatchObject({
      [`escrow:order:${orderId}`]: 0,
      [`buyer_fee_held:order:${orderId}`]: 0,
      [`seller_pending:user:${t.seller.id}`]: 80_000,
      platform_seller_fees: 20_000,
      platform_buyer_fees: 5_000,
    });

    // 13 days on, nothing clears; 15 days on, the earnings are available.
    const day = 24 * 60 * 60 * 1000;
    expect(await runOrderTimers(system, { ...opts(t), now: () => new Date(Date.now() + 13 * day) })).toMatchObject({ ok: true, value: { cleared: 0 } });
    expect(await runOrderTimers(system, { ...opts(t), now: () => new Date(Date.now() + 15 * day) })).toMatchObject({ ok: true, value: { cleared: 1 } });
    expect(await runOrderTimers(system, { ...opts(t), now: () => new Date(Date.now() + 16 * day) })).toMatchObject({ ok: true, value: { cleared: 0 } });
    expect(await memberBalances(t.db, t.seller.id)).toMatchObject({ pendingUgx: 0, availableUgx: 80_000 });

    const tooMuch = await requestWithdrawal(sellerActor, { amountUgx: 80_001, requestKey: "k".repeat(20) }, opts(t));
    expect(tooMuch).toMatchObject({ ok: false, error: "invalid" });
    const withdrawn = await requestWithdrawal(sellerActor, { amountUgx: 50_000, requestKey: "w".repeat(20) }, opts(t));
    expect(withdrawn).toMatchObject({ ok: true, value: { amountUgx: 50_000 } });
    if (!withdrawn.ok) return;
    expect(await settlePayout(system, { reference: withdrawn.value.reference }, opts(t))).toMatchObject({ ok: true, value: { settlement: "paid" } });
    expect(await memberBalances(t.db, t.seller.id)).toMatchObject({ availableUgx: 30_000, inTransitUgx: 0 });
    const events = await t.db("order_events").where({ order_id: orderId }).orderBy("id").pluck("kind");
    expect(events).toEqual(["placed", "paid", "delivered", "revision_requested", "delivered", "approved", "cleared"]);
  });

  it("keeps a gig with an order in progress from being deleted; the order keeps what was bought once it is gone", async () => {
    const gig = await createGig(t.db, { sellerId: t.seller.id, title: "Gig with an open order" });
    const { orderId, reference } = await placeTestOrder(t, t.buyer, gig.id);
    await t.sandbox.decide(reference, "approve");
    await settlePayment(system, { reference }, opts(t));
    expect(await deleteGig(memberActor(t.seller), { gigId: gig.id }, { db: t.db })).toMatchObject({ ok: false, error: "conflict", code: "gig.open_orders" });
    expect(await t.db("gigs").where({ id: gig.id }).first("id")).toBeDefined();
    await deliverOrder(memberActor(t.seller), { orderId, message: "Done" }, opts(t));
    await approveOrder(memberActor(t.buyer), { orderId }, opts(t));
    expect(await deleteGig(memberActor(t.seller), { gigId: gig.id }, { db: t.db })).toMatchObject({ ok: true });
    expect(await t.db("orders").where({ id: orderId }).first("gig_id", "gig_title", "status")).toEqual({
      gig_id: null,
      gig_title: "Gig with an open order",
      status: "completed",
    });
  });

  it("a cancel meant for an unpaid order is refused once the payment has landed, rather than becoming a cancel request", async () => {
    const { orderId, reference } = await placeTestOrder(t, t.buyer, t.gigId);
    await t.sandbox.decide(reference, "approve");
    await settlePayment(system, { reference }, opts(t));
    const refused = await cancelOrder(memberActor(t.buyer), { orderId, reason: "", expected: "abandon" }, opts(t));
    expect(refused).toMatchObject({ ok: false, error: "conflict", code: "order.not_allowed_now" });
    expect(await t.db("orders").where({ id: orderId }).first("status", "cancel_requested_by")).toEqual({ status: "in_progress", cancel_requested_by: null });
    // Without `expected`, the same press is a request to the seller.
    expect(await cancelOrder(memberActor(t.buyer), { orderId, reason: "" }, opts(t))).toMatchObject({ ok: true, value: { outcome: "requested" } });
  });
});
