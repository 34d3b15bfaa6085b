/**
 * The order operations' rules, each against real Postgres and Redis with the sandbox provider: who may take
 * a step (another member's order is not found, a visitor and the platform are refused), which step each
 * status allows (the rest are a conflict that writes nothing), cancelling in each of its forms, payments
 * that fail, expire or arrive twice, disputes, and the auto-complete and clearance timers to the
 * millisecond. After every test the ledger keeps its rules (every journal balances, no account holding
 * somebody's money is below zero, each order's money agrees with its status: tests/support/order-checks.ts).
 */
import { randomUUID } from "node:crypto";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "~/operations/core.server";
import { approveOrder, cancelOrder, declineCancel, deliverOrder, openDispute, placeOrder, requestRevision, runOrderTimers } from "~/operations/orders.server";
import { resolveDispute } from "~/operations/disputes.server";
import { paymentCallback, pollPayments, pollPayouts, settlePayment, settlePayout } from "~/operations/payments.server";
import type { PaymentProvider } from "~/payments/provider.server";
import type { Providers } from "~/payments/registry.server";
import { createSandboxProvider } from "~/payments/sandbox.server";
import { createGig, createUser, type TestUser } from "../support/factories";
import { at, DAY_MS, eventKinds, expectLedgerSound, HOUR_MS, journalKeys, MINUTE_MS, orderRow, trail } from "../support/order-checks";
import {
  balances,
  checkoutKey,
  completedTestOrder,
  memberActor,
  opts,
  orderTestContext,
  paidTestOrder,
  placeTestOrder,
  system,
  visitor,
} from "../support/orders";

/** The gig's Basic package: UGX 100,000, 3 days, 1 revision (the buyer pays 105,000; the seller nets 80,000). */
const t = orderTestContext("orderops", { parties: { seller: { name: "Ops Seller" } }, admin: { name: "Ops Admin" } });
let stranger: TestUser;

beforeAll(async () => {
  stranger = await createUser(t.db, { role: "client", name: "Ops Stranger" });
});
afterEach(() => expectLedgerSound(t.db));

let buyers = 0;
/** A buyer of their own for each test, so no test's orders or checkout limit touch another's. */
const newBuyer = () => createUser(t.db, { role: "client", name: `Ops Buyer ${++buyers}` });
const o = () => opts(t);

async function deliveredOrder(buyer: TestUser, gig = t.gigId) {
  const paid = await paidTestOrder(t, buyer, gig);
  expect(await deliverOrder(memberActor(t.seller), { orderId: paid.orderId, message: "First draft" }, o())).toMatchObject({ ok: true });
  return paid;
}

const notFound = { ok: false, error: "not_found", code: "order.not_found", params: {} };
const notAllowed = (status: string) => ({ ok: false, error: "conflict", code: "order.not_allowed_now", params: { status } });
const disputeOpen = { ok: false, error: "conflict", code: "order.dispute_open", params: {} };

/** Every party step, by one actor, on one order. */
function partySteps(actor: Actor, orderId: number) {
  return {
    deliver: () => deliverOrder(actor, { orderId, message: "Here it is" }, o()),
    revision: () => requestRevision(actor, { orderId, reason: "Change the colours" }, o()),
    approve: () => approveOrder(actor, { orderId }, o()),
    cancel: () => cancelOrder(actor, { orderId, reason: "Changed my mind" }, o()),
    decline: () => declineCancel(actor, { orderId }, o()),
    dispute: () => openDispute(actor, { orderId, reason: "Not what we agreed" }, o()),
  };
}

describe("checkout", () => {
  const checkout = (actor: Actor, input: Partial<Parameters<typeof placeOrder>[1]> = {}, options = o()) =>
    placeOrder(
      actor,
      { gigId: t.gigId, tier: "basic", requirements: "A logo", msisdn: "+256772123456", network: "mtn", checkoutKey: checkoutKey(), ...input },
      options,
    );
  const orderCount = async () => Number((await t.db("orders").count<{ c: string }[]>({ c: "*" }).first())?.c);

  it("the same checkout key twice, one after the other or at once, is one order with one payment", async () => {
    const buyer = await newBuyer();
    const key = checkoutKey();
    const first = await checkout(memberActor(buyer), { checkoutKey: key });
    expect(first).toMatchObject({ ok: true, value: { created: true } });
    if (!first.ok) return;
    expect(await checkout(memberActor(buyer), { checkoutKey: key })).toEqual({ ok: true, value: { ...first.value, created: false } });

    const other = checkoutKey();
    const both = await Promise.all([checkout(memberActor(buyer), { checkoutKey: other }), checkout(memberActor(buyer), { checkoutKey: other })]);
    expect(both.map((r) => r.ok && r.value.created).sort()).toEqual([false, true]);
    expect(new Set(both.map((r) => r.ok && r.value.orderId)).size).toBe(1);
    expect(new Set(both.map((r) => r.ok && r.value.reference)).size).toBe(1);

    const orders = await t.db("orders").where({ buyer_id: buyer.id }).pluck("id");
    expect(orders).toHaveLength(2);
    expect(await t.db("payments").whereIn("order_id", orders).count<{ c: string }[]>({ c: "*" })).toEqual([{ c: 2 }]);
    expect(await t.db("order_events").whereIn("order_id", orders).pluck("kind")).toEqual(["placed", "placed"]);
    // The payer's phone was asked for the price and the buyer's fee.
    expect(await t.sandbox.get(first.value.reference)).toMatchObject({ kind: "collection", amountUgx: 105_000, msisdn: "+256772123456", status: "PENDING" });
  });

  it("refuses a visitor, the platform, an admin, the gig's own seller, an unknown package, and a gig not on offer, with no order", async () => {
    const before = await orderCount();
    expect(await checkout(visitor)).toMatchObject({ ok: false, error: "forbidden" });
    expect(await checkout(system)).toMatchObject({ ok: false, error: "forbidden" });
    expect(await checkout(memberActor(t.admin))).toMatchObject({ ok: false, error: "forbidden" });
    expect(await checkout(memberActor(t.seller))).toMatchObject({ ok: false, error: "forbidden" });
    const buyer = await newBuyer();
    expect(await checkout(memberActor(buyer), { tier: "premium" })).toMatchObject({ ok: false, error: "not_found" });
    expect(await checkout(memberActor(buyer), { gigId: 987_654 })).toMatchObject({ ok: false, error: "not_found" });
    for (const status of ["draft", "paused"] as const) {
      const gig = await createGig(t.db, { sellerId: t.seller.id, status });
      expect(await checkout(memberActor(buyer), { gigId: gig.id }), status).toMatchObject({ ok: false, error: "not_found" });
    }
    const suspended = await createUser(t.db, { role: "client", name: "Suspended Ops Buyer", status: "suspended" });
    expect(await checkout(memberActor(suspended))).toMatchObject({ ok: false, error: "forbidden" });
    expect(await orderCount()).toBe(before);
  });

  it("a payment request the provider refuses outright cancels the order at once, with nothing taken", async () => {
    const buyer = await newBuyer();
    const sandbox = createSandboxProvider(t.sandbox);
    const refusing: PaymentProvider = { ...sandbox, requestPayment: async () => ({ outcome: "rejected", reason: "This number has no wallet" }) };
    const providers: Providers = { forNetwork: () => refusing, byName: () => refusing, sandbox: t.sandbox };
    const placed = await checkout(memberActor(buyer), {}, { db: t.db, providers });
    expect(placed).toMatchObject({ ok: true, value: { created: true } });
    if (!placed.ok) return;
    expect(await t.db("payments").where({ reference: placed.value.reference }).first("status", "failure_reason")).toEqual({
      status: "failed",
      failure_reason: "This number has no wallet",
    });
    expect(await orderRow(t.db, placed.value.orderId)).toMatchObject({ status: "cancelled" });
    expect(await eventKinds(t.db, placed.value.orderId)).toEqual(["placed", "payment_failed"]);
    expect(await journalKeys(t.db, placed.value.orderId)).toEqual([]);
  });
});

describe("who may act on an order", () => {
  it("another member's order, or one that does not exist, is not found for every party step, and nothing is written", async () => {
    const buyer = await newBuyer();
    const inProgress = await paidTestOrder(t, buyer, t.gigId);
    const delivered = await deliveredOrder(buyer);
    const before = await trail(t.db, [inProgress.orderId, delivered.orderId]);
    for (const orderId of [inProgress.orderId, delivered.orderId, 987_654]) {
      for (const [name, step] of Object.entries(partySteps(memberActor(stranger), orderId))) {
        expect(await step(), `${name} on order ${orderId}`).toEqual(notFound);
      }
    }
    // The order's own buyer and seller, asking about an order id that is not theirs either.
    expect(await partySteps(memberActor(t.seller), 987_654).deliver()).toEqual(notFound);
    expect(await trail(t.db, [inProgress.orderId, delivered.orderId])).toEqual(before);
  });

  it("refuses a visitor and the platform every party step, and writes nothing", async () => {
    const buyer = await newBuyer();
    const { orderId } = await deliveredOrder(buyer);
    const before = await trail(t.db, [orderId]);
    for (const actor of [visitor, system]) {
      for (const [name, step] of Object.entries(partySteps(actor, orderId))) {
        expect(await step(), `${actor.kind}: ${name}`).toMatchObject({ ok: false, error: "forbidden" });
      }
    }
    expect(await trail(t.db, [orderId])).toEqual(before);
  });

  it("a seller cannot approve or ask for a revision, and a buyer cannot deliver: each is a conflict that writes nothing", async () => {
    const buyer = await newBuyer();
    const delivered = await deliveredOrder(buyer);
    const inProgress = await paidTestOrder(t, buyer, t.gigId);
    const before = await trail(t.db, [delivered.orderId, inProgress.orderId]);
    expect(await approveOrder(memberActor(t.seller), { orderId: delivered.orderId }, o())).toEqual(notAllowed("delivered"));
    expect(await requestRevision(memberActor(t.seller), { orderId: delivered.orderId, reason: "Mine" }, o())).toEqual(notAllowed("delivered"));
    expect(await deliverOrder(memberActor(buyer), { orderId: inProgress.orderId, message: "Mine" }, o())).toEqual(notAllowed("in_progress"));
    expect(await trail(t.db, [delivered.orderId, inProgress.orderId])).toEqual(before);
  });

  it("only an admin resolves a dispute, and only the platform settles, polls and runs the timers", async () => {
    const buyer = await newBuyer();
    const { orderId, reference } = await placeTestOrder(t, buyer, t.gigId);
    expect(await t.sandbox.decide(reference, "approve")).toBe(true);
    const disputed = await deliveredOrder(buyer);
    expect(await openDispute(memberActor(buyer), { orderId: disputed.orderId, reason: "Wrong logo" }, o())).toMatchObject({ ok: true });
    const before = await trail(t.db, [orderId, disputed.orderId]);
    for (const actor of [memberActor(buyer), memberActor(t.seller), memberActor(stranger), visitor, system]) {
      for (const resolution of ["release", "refund"] as const) {
        expect(await resolveDispute(actor, { orderId: disputed.orderId, resolution, note: "Decided" }, o()), `${actor.kind} ${resolution}`).toMatchObject({
          ok: false,
          error: "forbidden",
        });
      }
    }
    for (const actor of [memberActor(buyer), memberActor(t.admin), visitor]) {
      expect(await settlePayment(actor, { reference }, o())).toMatchObject({ ok: false, error: "forbidden" });
      expect(await paymentCallback(actor, { provider: "sandbox", body: { reference } }, o())).toMatchObject({ ok: false, error: "forbidden" });
      expect(await pollPayments(actor, o())).toMatchObject({ ok: false, error: "forbidden" });
      expect(await runOrderTimers(actor, { ...o(), now: at(Date.now() + 30 * DAY_MS) })).toMatchObject({ ok: false, error: "forbidden" });
      expect(await settlePayout(actor, { reference: randomUUID() }, o())).toMatchObject({ ok: false, error: "forbidden" });
      expect(await pollPayouts(actor, o())).toMatchObject({ ok: false, error: "forbidden" });
    }
    // The sandbox says paid, but no member could make us take it: the payment is still pending.
    expect(await trail(t.db, [orderId, disputed.orderId])).toEqual(before);
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "pending_payment" });
  });
});

describe("steps the order's status does not allow", () => {
  it("each step from each status it cannot leave from is a conflict, not_allowed_now, and writes nothing", async () => {
    const buyer = await newBuyer();
    const pending = await placeTestOrder(t, buyer, t.gigId);
    const inProgress = await paidTestOrder(t, buyer, t.gigId);
    const delivered = await deliveredOrder(buyer);
    const completed = await completedTestOrder(t, buyer, t.seller, t.gigId);
    const declined = await placeTestOrder(t, buyer, t.gigId);
    expect(await t.sandbox.decide(declined.reference, "decline")).toBe(true);
    expect(await settlePayment(system, { reference: declined.reference }, o())).toMatchObject({ ok: true, value: { settlement: "failed" } });
    const refunded = await paidTestOrder(t, buyer, t.gigId);
    const late = new Date((await orderRow(t.db, refunded.orderId)).dueAt!.getTime() + DAY_MS + 1);
    expect(await cancelOrder(memberActor(buyer), { orderId: refunded.orderId, reason: "Too late" }, { ...o(), now: at(late) })).toMatchObject({
      ok: true,
      value: { outcome: "cancelled" },
    });

    const cases: [string, { orderId: number }, string[]][] = [
      ["pending_payment", pending, ["seller.deliver", "buyer.revision", "buyer.approve", "seller.cancel", "buyer.dispute", "seller.dispute"]],
      ["in_progress", inProgress, ["buyer.revision", "buyer.approve"]],
      ["delivered", delivered, ["seller.deliver"]],
      ["completed", completed, ["seller.deliver", "buyer.revision", "buyer.approve", "buyer.cancel", "seller.cancel", "buyer.dispute", "seller.dispute"]],
      ["cancelled", declined, ["seller.deliver", "buyer.revision", "buyer.approve", "buyer.cancel", "seller.cancel", "buyer.dispute", "seller.dispute"]],
      ["cancelled", refunded, ["seller.deliver", "buyer.revision", "buyer.approve", "buyer.cancel", "seller.cancel", "buyer.dispute", "seller.dispute"]],
    ];
    const ids = cases.map(([, order]) => order.orderId);
    const before = await trail(t.db, ids);
    expect(before.orders.map((r) => r.status)).toEqual(cases.map(([status]) => status));
    // An order never paid is not the seller's to see (partyRole): their every step on it finds no order.
    const unpaid = new Set([pending.orderId, declined.orderId]);
    for (const [status, { orderId }, refused] of cases) {
      const steps = { buyer: partySteps(memberActor(buyer), orderId), seller: partySteps(memberActor(t.seller), orderId) };
      for (const name of refused) {
        const [who, step] = name.split(".") as ["buyer" | "seller", keyof ReturnType<typeof partySteps>];
        const expected = who === "seller" && unpaid.has(orderId) ? notFound : notAllowed(status);
        expect(await steps[who][step](), `${name} on a ${status} order`).toEqual(expected);
      }
      // With no cancel request on the table, there is none to decline or withdraw, whatever the status.
      for (const who of ["buyer", "seller"] as const) {
        const expected = who === "seller" && unpaid.has(orderId) ? notFound : { ok: false, error: "conflict", code: "order.no_cancel_request" };
        expect(await steps[who].decline(), `${who} declines on a ${status} order`).toMatchObject(expected);
      }
    }
    expect(await trail(t.db, ids)).toEqual(before);
  });

  it("approving twice, one after the other or both at once, completes the order and releases its escrow once", async () => {
    const buyer = await newBuyer();
    const first = await deliveredOrder(buyer);
    expect(await approveOrder(memberActor(buyer), first, o())).toEqual({ ok: true, value: { status: "completed" } });
    expect(await approveOrder(memberActor(buyer), first, o())).toEqual(notAllowed("completed"));

    const second = await deliveredOrder(buyer);
    const both = await Promise.all([approveOrder(memberActor(buyer), second, o()), approveOrder(memberActor(buyer), second, o())]);
    expect(both.filter((r) => r.ok)).toHaveLength(1);
    expect(both.find((r) => !r.ok)).toEqual(notAllowed("completed"));

    for (const { orderId } of [first, second]) {
      expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`, `order:${orderId}:released`]);
      expect((await eventKinds(t.db, orderId)).filter((k) => k === "approved")).toHaveLength(1);
      expect(await balances(t.db)).toMatchObject({ [`escrow:order:${orderId}`]: 0, [`buyer_fee_held:order:${orderId}`]: 0 });
    }
  });

  it("counts revisions: the package's allowance, then no_revisions_left with nothing written", async () => {
    const buyer = await newBuyer();
    const { orderId } = await deliveredOrder(buyer);
    expect(await requestRevision(memberActor(buyer), { orderId, reason: "Bigger letters" }, o())).toEqual({ ok: true, value: { revisionsLeft: 0 } });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "in_progress", revisionsUsed: 1 });
    expect(await deliverOrder(memberActor(t.seller), { orderId, message: "Second draft" }, o())).toMatchObject({ ok: true });
    const before = await trail(t.db, [orderId]);
    expect(await requestRevision(memberActor(buyer), { orderId, reason: "Again" }, o())).toMatchObject({
      ok: false,
      error: "conflict",
      code: "order.no_revisions_left",
    });
    expect(await trail(t.db, [orderId])).toEqual(before);

    // A package with no revisions at all refuses the first.
    const none = await createGig(t.db, { sellerId: t.seller.id, packages: { basic: { priceUgx: 50_000, deliveryDays: 3, revisions: 0 } } });
    const strict = await deliveredOrder(buyer, none.id);
    expect(await requestRevision(memberActor(buyer), { orderId: strict.orderId, reason: "Please" }, o())).toMatchObject({
      ok: false,
      error: "conflict",
      code: "order.no_revisions_left",
    });
    expect(await orderRow(t.db, strict.orderId)).toMatchObject({ status: "delivered", revisionsUsed: 0 });
  });

  it("a revision leaves the seller at least two days: a sooner due date moves to two days from the request, a later one stays", async () => {
    const buyer = await newBuyer();
    const quick = await createGig(t.db, { sellerId: t.seller.id, packages: { basic: { priceUgx: 40_000, deliveryDays: 1, revisions: 3 } } });
    const slow = await createGig(t.db, { sellerId: t.seller.id, packages: { basic: { priceUgx: 40_000, deliveryDays: 7, revisions: 3 } } });

    const soon = await deliveredOrder(buyer, quick.id);
    const { paidAt, dueAt } = await orderRow(t.db, soon.orderId);
    expect(dueAt!.getTime() - paidAt!.getTime()).toBe(DAY_MS);
    const asked = new Date(Date.now() + HOUR_MS);
    expect(await requestRevision(memberActor(buyer), { orderId: soon.orderId, reason: "Again" }, { ...o(), now: at(asked) })).toMatchObject({ ok: true });
    expect((await orderRow(t.db, soon.orderId)).dueAt!.getTime()).toBe(asked.getTime() + 2 * DAY_MS);

    const later = await deliveredOrder(buyer, slow.id);
    const due = (await orderRow(t.db, later.orderId)).dueAt!;
    expect(await requestRevision(memberActor(buyer), { orderId: later.orderId, reason: "Again" }, { ...o(), now: at(asked) })).toMatchObject({ ok: true });
    expect((await orderRow(t.db, later.orderId)).dueAt).toEqual(due);

    // Asked for long after the due date: two days from the request again.
    expect(await deliverOrder(memberActor(t.seller), { orderId: later.orderId, message: "Again" }, o())).toMatchObject({ ok: true });
    const overdue = new Date(due.getTime() + 10 * DAY_MS);
    expect(await requestRevision(memberActor(buyer), { orderId: later.orderId, reason: "Once more" }, { ...o(), now: at(overdue) })).toMatchObject({
      ok: true,
    });
    expect((await orderRow(t.db, later.orderId)).dueAt!.getTime()).toBe(overdue.getTime() + 2 * DAY_MS);
  });
});

describe("cancelling", () => {
  it("a buyer gives up an unpaid order: cancelled, the payment left pending; paid after all, it is taken and refunded in full", async () => {
    const buyer = await newBuyer();
    const { orderId, reference } = await placeTestOrder(t, buyer, t.gigId);
    expect(await cancelOrder(memberActor(buyer), { orderId, reason: "Wrong package" }, o())).toEqual({ ok: true, value: { outcome: "cancelled" } });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "cancelled", cancelledAt: expect.any(Date) });
    expect(await t.db("payments").where({ reference }).first("status")).toEqual({ status: "pending" });
    expect(await journalKeys(t.db, orderId)).toEqual([]);

    // The buyer approves on the phone anyway.
    expect(await t.sandbox.decide(reference, "approve")).toBe(true);
    expect(await settlePayment(system, { reference }, o())).toEqual({ ok: true, value: { orderId, settlement: "failed" } });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "cancelled" });
    expect(await t.db("payments").where({ reference }).first("status")).toEqual({ status: "successful" });
    expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`, `order:${orderId}:refunded`]);
    expect(await eventKinds(t.db, orderId)).toEqual(["placed", "cancelled", "late_payment_refunded"]);
    const refund = await t.db("payouts").where({ order_id: orderId }).select("user_id", "kind", "amount_ugx", "msisdn", "status");
    expect(refund).toEqual([{ user_id: buyer.id, kind: "refund", amount_ugx: 105000, msisdn: "+256772123456", status: "in_transit" }]);
    expect(await balances(t.db)).toMatchObject({
      [`escrow:order:${orderId}`]: 0,
      [`buyer_fee_held:order:${orderId}`]: 0,
      [`refund_due:user:${buyer.id}`]: 0,
      [`payout_in_transit:user:${buyer.id}`]: 105_000,
    });

    // Settled again, or by the expiry poll: nothing moves twice.
    expect(await settlePayment(system, { reference }, o())).toEqual({ ok: true, value: { orderId, settlement: "unchanged" } });
    expect(await pollPayments(system, { ...o(), now: at(Date.now() + 31 * MINUTE_MS) })).toMatchObject({ ok: true });
    expect(await t.db("payouts").where({ order_id: orderId }).count<{ c: string }[]>({ c: "*" })).toEqual([{ c: 1 }]);
    // The sandbox paid the refund out at once; the payout poll learns of it.
    const [payout] = await t.db("payouts").where({ order_id: orderId }).pluck("reference");
    expect(await settlePayout(system, { reference: payout }, o())).toEqual({ ok: true, value: { settlement: "paid" } });
    expect(await balances(t.db)).toMatchObject({ [`payout_in_transit:user:${buyer.id}`]: 0 });
  });

  it("an order more than 24 hours late: the buyer cancels alone and gets everything back; until then it is only a request", async () => {
    const buyer = await newBuyer();
    const { orderId } = await paidTestOrder(t, buyer, t.gigId);
    const { dueAt } = await orderRow(t.db, orderId);
    const graceEnds = dueAt!.getTime() + DAY_MS;

    // At the end of the grace day exactly, the buyer may only ask.
    expect(await cancelOrder(memberActor(buyer), { orderId, reason: "Where is it?" }, { ...o(), now: at(graceEnds) })).toEqual({
      ok: true,
      value: { outcome: "requested" },
    });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "in_progress", cancelRequestedBy: buyer.id });
    expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`]);

    // A millisecond later they need nobody's agreement (their own request pending or not).
    expect(await cancelOrder(memberActor(buyer), { orderId, reason: "Too late" }, { ...o(), now: at(graceEnds + 1) })).toEqual({
      ok: true,
      value: { outcome: "cancelled" },
    });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "cancelled", cancelRequestedBy: null, cancelledAt: new Date(graceEnds + 1) });
    expect(await eventKinds(t.db, orderId)).toEqual(["placed", "paid", "cancel_requested", "cancelled_late"]);
    expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`, `order:${orderId}:refunded`]);
    expect(await t.db("payouts").where({ order_id: orderId }).select("user_id", "kind", "amount_ugx")).toEqual([
      { user_id: buyer.id, kind: "refund", amount_ugx: 105000 },
    ]);
    expect(await balances(t.db)).toMatchObject({ [`escrow:order:${orderId}`]: 0, [`payout_in_transit:user:${buyer.id}`]: 105_000 });
    const told = await t.db("notifications").where({ order_id: orderId, kind: "order_cancelled" }).pluck("user_id");
    expect(told.map(Number).sort((a, b) => a - b)).toEqual([t.seller.id, buyer.id].sort((a, b) => a - b));
  });

  it("the seller asks to cancel and the buyer agrees: cancelled and refunded; the asker asking again is told to wait", async () => {
    const buyer = await newBuyer();
    const { orderId } = await paidTestOrder(t, buyer, t.gigId);
    expect(await cancelOrder(memberActor(t.seller), { orderId, reason: "I am ill" }, o())).toEqual({ ok: true, value: { outcome: "requested" } });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "in_progress", cancelRequestedBy: t.seller.id });
    const before = await trail(t.db, [orderId]);
    expect(await cancelOrder(memberActor(t.seller), { orderId, reason: "Please" }, o())).toMatchObject({
      ok: false,
      error: "conflict",
      code: "order.cancel_pending",
    });
    expect(await trail(t.db, [orderId])).toEqual(before);

    expect(await cancelOrder(memberActor(buyer), { orderId, reason: "Fine" }, o())).toEqual({ ok: true, value: { outcome: "cancelled" } });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "cancelled", cancelRequestedBy: null });
    expect(await eventKinds(t.db, orderId)).toEqual(["placed", "paid", "cancel_requested", "cancel_agreed"]);
    expect(await t.db("payouts").where({ order_id: orderId }).select("kind", "amount_ugx")).toEqual([{ kind: "refund", amount_ugx: 105000 }]);
  });

  it("declining the other party's request clears it: the decliner's own cancel is then a new request, not an agreement", async () => {
    const buyer = await newBuyer();
    const { orderId } = await deliveredOrder(buyer);
    expect(await cancelOrder(memberActor(t.seller), { orderId, reason: "Cannot finish" }, o())).toMatchObject({ ok: true, value: { outcome: "requested" } });
    expect(await declineCancel(memberActor(buyer), { orderId }, o())).toEqual({ ok: true, value: { status: "delivered" } });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "delivered", cancelRequestedBy: null });
    expect(await cancelOrder(memberActor(buyer), { orderId, reason: "Let us stop" }, o())).toEqual({ ok: true, value: { outcome: "requested" } });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "delivered", cancelRequestedBy: buyer.id });
    expect(await eventKinds(t.db, orderId)).toEqual(["placed", "paid", "delivered", "cancel_requested", "cancel_declined", "cancel_requested"]);
    expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`]);
  });

  it("the asker withdraws their own request: the other party's cancel is then a request, not an agreement", async () => {
    const buyer = await newBuyer();
    const { orderId } = await paidTestOrder(t, buyer, t.gigId);
    expect(await cancelOrder(memberActor(buyer), { orderId, reason: "Not sure" }, o())).toMatchObject({ ok: true, value: { outcome: "requested" } });
    expect(await declineCancel(memberActor(buyer), { orderId }, o())).toMatchObject({ ok: true });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "in_progress", cancelRequestedBy: null });
    expect(await cancelOrder(memberActor(t.seller), { orderId, reason: "Then I ask" }, o())).toEqual({ ok: true, value: { outcome: "requested" } });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "in_progress", cancelRequestedBy: t.seller.id });
    expect(await eventKinds(t.db, orderId)).toEqual(["placed", "paid", "cancel_requested", "cancel_withdrawn", "cancel_requested"]);
    expect(await t.db("payouts").where({ order_id: orderId })).toEqual([]);
  });
});

describe("payments", () => {
  it("declined on the phone: the payment fails and the order is cancelled, with no money moved", async () => {
    const buyer = await newBuyer();
    const { orderId, reference } = await placeTestOrder(t, buyer, t.gigId);
    expect(await t.sandbox.decide(reference, "decline")).toBe(true);
    expect(await settlePayment(system, { reference }, o())).toEqual({ ok: true, value: { orderId, settlement: "failed" } });
    expect(await t.db("payments").where({ reference }).first("status", "failure_reason")).toEqual({
      status: "failed",
      failure_reason: "Declined on the phone",
    });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "cancelled", paidAt: null });
    expect(await eventKinds(t.db, orderId)).toEqual(["placed", "payment_failed"]);
    expect(await journalKeys(t.db, orderId)).toEqual([]);
    expect(await t.db("notifications").where({ order_id: orderId }).pluck("kind")).toEqual(["payment_failed"]);
  });

  it("unpaid after 30 minutes, the order is cancelled but its payment still followed: approved after all, it is taken and refunded", async () => {
    const buyer = await newBuyer();
    const { orderId, reference } = await placeTestOrder(t, buyer, t.gigId);
    const placedAt = (await t.db("orders").where({ id: orderId }).first("created_at")).created_at as Date;

    expect(await pollPayments(system, { ...o(), now: at(placedAt.getTime() + 29 * MINUTE_MS) })).toMatchObject({ ok: true });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "pending_payment" });
    expect(await t.db("payments").where({ reference }).first("status", "polls")).toEqual({ status: "pending", polls: 1 });

    expect(await pollPayments(system, { ...o(), now: at(placedAt.getTime() + 31 * MINUTE_MS) })).toMatchObject({ ok: true });
    expect(await t.db("payments").where({ reference }).first("status", "failure_reason")).toEqual({ status: "pending", failure_reason: null });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "cancelled" });
    expect(await eventKinds(t.db, orderId)).toEqual(["placed", "payment_failed"]);
    expect(await journalKeys(t.db, orderId)).toEqual([]);

    // The payer approves on the phone an hour later: the money is taken and given back in full.
    expect(await t.sandbox.decide(reference, "approve")).toBe(true);
    expect(await pollPayments(system, { ...o(), now: at(placedAt.getTime() + 24 * 60 * MINUTE_MS - MINUTE_MS) })).toMatchObject({ ok: true });
    expect(await t.db("payments").where({ reference }).first("status")).toEqual({ status: "successful" });
    expect(await eventKinds(t.db, orderId)).toEqual(["placed", "payment_failed", "late_payment_refunded"]);
    expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`, `order:${orderId}:refunded`]);
  });

  it("settled twice, one after the other and both at once, a payment is captured once", async () => {
    const buyer = await newBuyer();
    const { orderId, reference } = await placeTestOrder(t, buyer, t.gigId);
    expect(await t.sandbox.decide(reference, "approve")).toBe(true);
    const both = await Promise.all([settlePayment(system, { reference }, o()), settlePayment(system, { reference }, o())]);
    expect(both.map((r) => (r.ok ? r.value.settlement : r.error)).sort()).toEqual(["paid", "unchanged"]);
    expect(await settlePayment(system, { reference }, o())).toEqual({ ok: true, value: { orderId, settlement: "unchanged" } });
    expect(await paymentCallback(system, { provider: "sandbox", body: { reference } }, o())).toEqual({ ok: true, value: { settlement: "unchanged" } });
    expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`]);
    expect(
      await t.db("ledger_entries as e").join("ledger_journals as j", "j.id", "e.journal_id").where("j.order_id", orderId).count<{ c: string }[]>({ c: "*" }),
    ).toEqual([{ c: 3 }]);
    expect(await balances(t.db)).toMatchObject({ [`escrow:order:${orderId}`]: 100_000, [`buyer_fee_held:order:${orderId}`]: 5_000 });
    expect(await eventKinds(t.db, orderId)).toEqual(["placed", "paid"]);
  });

  it("a callback settles the payment it names; one naming none of ours is not found, and a body that names nothing is invalid", async () => {
    const buyer = await newBuyer();
    const { orderId, reference } = await placeTestOrder(t, buyer, t.gigId);
    expect(await t.sandbox.decide(reference, "approve")).toBe(true);
    expect(await paymentCallback(system, { provider: "sandbox", body: { reference } }, o())).toEqual({ ok: true, value: { settlement: "paid" } });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "in_progress" });

    const before = await trail(t.db, [orderId]);
    for (const body of ["junk", null, 42, [], {}, { reference: 42 }, { ref: reference }]) {
      expect(await paymentCallback(system, { provider: "sandbox", body }, o()), JSON.stringify(body)).toMatchObject({ ok: false, error: "invalid" });
    }
    expect(await paymentCallback(system, { provider: "sandbox", body: { reference: randomUUID() } }, o())).toMatchObject({ ok: false, error: "not_found" });
    expect(await paymentCallback(system, { provider: "sandbox", body: { reference: "not-a-uuid" } }, o())).toMatchObject({ ok: false, error: "not_found" });
    // MTN is not configured here: nobody can read its callbacks, so they name nothing.
    expect(await paymentCallback(system, { provider: "mtn", body: { externalId: reference } }, o())).toMatchObject({ ok: false, error: "invalid" });
    expect(await trail(t.db, [orderId])).toEqual(before);
  });
});

describe("disputes", () => {
  it("an open dispute stops the auto-complete timer and the parties' approve, revision and cancel; the seller may still deliver", async () => {
    const buyer = await newBuyer();
    const { orderId } = await deliveredOrder(buyer);
    expect(await openDispute(memberActor(buyer), { orderId, reason: "Wrong logo" }, o())).toMatchObject({ ok: true, value: { disputeId: expect.any(Number) } });
    expect(await t.db("disputes").where({ order_id: orderId }).select("status", "opened_by", "reason")).toEqual([
      { status: "open", opened_by: buyer.id, reason: "Wrong logo" },
    ]);

    expect(await runOrderTimers(system, { ...o(), now: at(Date.now() + 4 * DAY_MS) })).toMatchObject({ ok: true });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "delivered", completedAt: null });

    const before = await trail(t.db, [orderId]);
    const buyerSteps = partySteps(memberActor(buyer), orderId);
    const sellerSteps = partySteps(memberActor(t.seller), orderId);
    for (const [name, step] of Object.entries({
      "buyer approves": buyerSteps.approve,
      "buyer asks a revision": buyerSteps.revision,
      "buyer cancels": buyerSteps.cancel,
      "seller cancels": sellerSteps.cancel,
      "buyer disputes again": buyerSteps.dispute,
      "seller disputes too": sellerSteps.dispute,
    })) {
      expect(await step(), name).toEqual(disputeOpen);
    }
    expect(await trail(t.db, [orderId])).toEqual(before);

    // In progress and disputed: the work may still arrive.
    const other = await paidTestOrder(t, buyer, t.gigId);
    expect(await openDispute(memberActor(t.seller), { orderId: other.orderId, reason: "The buyer does not answer" }, o())).toMatchObject({ ok: true });
    expect(await deliverOrder(memberActor(t.seller), { orderId: other.orderId, message: "Done anyway" }, o())).toMatchObject({ ok: true });
    expect(await orderRow(t.db, other.orderId)).toMatchObject({ status: "delivered" });
    expect(await eventKinds(t.db, other.orderId)).toEqual(["placed", "paid", "dispute_opened", "delivered"]);
  });

  it("resolved by release: the order completes, the seller's pending balance gets the price less the fee, the platform both fees", async () => {
    const buyer = await newBuyer();
    const { orderId } = await deliveredOrder(buyer);
    expect(await openDispute(memberActor(t.seller), { orderId, reason: "No answer for days" }, o())).toMatchObject({ ok: true });
    const before = await balances(t.db);
    expect(await resolveDispute(memberActor(t.admin), { orderId, resolution: "release", note: "The work matches the brief" }, o())).toEqual({
      ok: true,
      value: { status: "completed", resolution: "release", buyerUgx: 0, sellerUgx: 80_000 },
    });
    const after = await balances(t.db);
    const delta = (code: string) => (after[code] ?? 0) - (before[code] ?? 0);
    expect(delta(`seller_pending:user:${t.seller.id}`)).toBe(80_000);
    expect(delta("platform_seller_fees")).toBe(20_000);
    expect(delta("platform_buyer_fees")).toBe(5_000);
    expect(after[`escrow:order:${orderId}`]).toBe(0);
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "completed", completedAt: expect.any(Date) });
    expect(await t.db("disputes").where({ order_id: orderId }).first("status", "resolution", "resolution_note", "resolved_by")).toEqual({
      status: "resolved",
      resolution: "release",
      resolution_note: "The work matches the brief",
      resolved_by: t.admin.id,
    });
    const events = await t.db("order_events").where({ order_id: orderId }).orderBy("id").select("kind", "actor_role");
    expect(events.at(-1)).toEqual({ kind: "dispute_released", actor_role: "admin" });
    expect(await t.db("payouts").where({ order_id: orderId })).toEqual([]);
  });

  it("resolved by refund: the order is cancelled and everything the buyer paid goes back to them", async () => {
    const buyer = await newBuyer();
    const { orderId } = await paidTestOrder(t, buyer, t.gigId);
    expect(await openDispute(memberActor(buyer), { orderId, reason: "No work after a week" }, o())).toMatchObject({ ok: true });
    const sellerBefore = (await balances(t.db))[`seller_pending:user:${t.seller.id}`] ?? 0;
    expect(await resolveDispute(memberActor(t.admin), { orderId, resolution: "refund", note: "Nothing was delivered" }, o())).toEqual({
      ok: true,
      value: { status: "cancelled", resolution: "refund", buyerUgx: 105_000, sellerUgx: 0 },
    });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "cancelled" });
    expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`, `order:${orderId}:refunded`]);
    expect(await t.db("payouts").where({ order_id: orderId }).select("user_id", "kind", "amount_ugx")).toEqual([
      { user_id: buyer.id, kind: "refund", amount_ugx: 105000 },
    ]);
    const after = await balances(t.db);
    expect(after).toMatchObject({ [`escrow:order:${orderId}`]: 0, [`payout_in_transit:user:${buyer.id}`]: 105_000 });
    expect(after[`seller_pending:user:${t.seller.id}`] ?? 0).toBe(sellerBefore);
    expect(await t.db("disputes").where({ order_id: orderId }).first("status", "resolution")).toEqual({ status: "resolved", resolution: "refund" });
  });

  it("resolving an order with no open dispute is a conflict, also once its dispute is resolved; an unknown order is not found", async () => {
    const buyer = await newBuyer();
    const { orderId } = await paidTestOrder(t, buyer, t.gigId);
    const before = await trail(t.db, [orderId]);
    expect(await resolveDispute(memberActor(t.admin), { orderId, resolution: "release", note: "Decided" }, o())).toMatchObject({
      ok: false,
      error: "conflict",
      code: "order.no_open_dispute",
    });
    expect(await trail(t.db, [orderId])).toEqual(before);
    expect(await resolveDispute(memberActor(t.admin), { orderId: 987_654, resolution: "refund", note: "Decided" }, o())).toEqual(notFound);

    expect(await openDispute(memberActor(buyer), { orderId, reason: "Late" }, o())).toMatchObject({ ok: true });
    expect(await resolveDispute(memberActor(t.admin), { orderId, resolution: "refund", note: "Decided" }, o())).toMatchObject({ ok: true });
    const resolved = await trail(t.db, [orderId]);
    for (const resolution of ["release", "refund"] as const) {
      expect(await resolveDispute(memberActor(t.admin), { orderId, resolution, note: "Decided" }, o())).toMatchObject({
        ok: false,
        error: "conflict",
        code: "dispute.already_resolved",
        params: { resolution: "refund" },
      });
    }
    expect(await trail(t.db, [orderId])).toEqual(resolved);
  });
});

describe("timers", () => {
  it("auto-completes a delivered order exactly 3 days after its last delivery (a revision and a new delivery start it again), once", async () => {
    const buyer = await newBuyer();
    const { orderId } = await paidTestOrder(t, buyer, t.gigId);
    const first = new Date();
    expect(await deliverOrder(memberActor(t.seller), { orderId, message: "Draft" }, { ...o(), now: at(first) })).toMatchObject({ ok: true });
    expect(await requestRevision(memberActor(buyer), { orderId, reason: "Bigger" }, { ...o(), now: at(first.getTime() + HOUR_MS) })).toMatchObject({
      ok: true,
    });
    const last = new Date(first.getTime() + DAY_MS);
    expect(await deliverOrder(memberActor(t.seller), { orderId, message: "Final" }, { ...o(), now: at(last) })).toMatchObject({ ok: true });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "delivered", deliveredAt: last });

    const run = (ms: number) => runOrderTimers(system, { ...o(), now: at(ms) });
    // Three days after the first delivery is not three days after the last.
    await run(first.getTime() + 3 * DAY_MS + HOUR_MS);
    await run(last.getTime() + 3 * DAY_MS - 1);
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "delivered", completedAt: null });

    const due = last.getTime() + 3 * DAY_MS;
    const both = await Promise.all([run(due), run(due)]);
    expect(both.every((r) => r.ok)).toBe(true);
    expect(await run(due)).toEqual({ ok: true, value: { completed: 0, cleared: 0 } });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "completed", completedAt: new Date(due) });
    expect(await eventKinds(t.db, orderId)).toEqual(["placed", "paid", "delivered", "revision_requested", "delivered", "auto_completed"]);
    expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`, `order:${orderId}:released`]);
    expect(await balances(t.db)).toMatchObject({ [`escrow:order:${orderId}`]: 0 });
  });

  it("clears a completed order's earnings exactly 14 days after completion, once", async () => {
    // A seller of its own: the run clears every due order, and this one's balances must show this order alone.
    const own = await createUser(t.db, { role: "freelancer", name: "Clearance Seller" });
    const gig = await createGig(t.db, { sellerId: own.id, packages: { basic: { priceUgx: 100_000, deliveryDays: 3 } } });
    const buyer = await newBuyer();
    const { orderId } = await paidTestOrder(t, buyer, gig.id);
    expect(await deliverOrder(memberActor(own), { orderId, message: "Done" }, o())).toMatchObject({ ok: true });
    const completedAt = new Date();
    expect(await approveOrder(memberActor(buyer), { orderId }, { ...o(), now: at(completedAt) })).toMatchObject({ ok: true });
    const run = (ms: number) => runOrderTimers(system, { ...o(), now: at(ms) });
    const due = completedAt.getTime() + 14 * DAY_MS;
    const sellerBalances = async () => {
      const b = await balances(t.db);
      return { pending: b[`seller_pending:user:${own.id}`] ?? 0, available: b[`seller_available:user:${own.id}`] ?? 0 };
    };

    await run(due - 1);
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "completed", clearedAt: null });
    expect(await sellerBalances()).toEqual({ pending: 80_000, available: 0 });
    await Promise.all([run(due), run(due)]);
    expect(await run(due)).toEqual({ ok: true, value: { completed: 0, cleared: 0 } });
    expect(await run(due + DAY_MS)).toEqual({ ok: true, value: { completed: 0, cleared: 0 } });
    expect(await sellerBalances()).toEqual({ pending: 0, available: 80_000 });
    expect(await orderRow(t.db, orderId)).toMatchObject({ clearedAt: new Date(due) });
    expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`, `order:${orderId}:released`, `order:${orderId}:cleared`]);
    expect((await eventKinds(t.db, orderId)).filter((k) => k === "cleared")).toHaveLength(1);
    expect(await t.db("notifications").where({ order_id: orderId, kind: "earnings_cleared" }).pluck("user_id")).toEqual([own.id]);
  });
});
