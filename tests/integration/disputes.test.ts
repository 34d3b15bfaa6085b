/**
 * An admin resolves a dispute (ADR 044): release all, refund all, or split the price. Each outcome checked by
 * what is stored: the one journal and its entries, the balances, the order's state and timeline, the dispute
 * row, the audit row and both parties' notifications (with the admin's reason). Bad input and a non-admin write
 * nothing; two admins resolving at once give one resolution.
 */
import { afterEach, describe, expect, it } from "vitest";
import { disputeOutcomeOf } from "~/models/dispute.server";
import { memberBalances } from "~/models/ledger.server";
import { journalPostings } from "~/models/ledger-journals.server";
import { resolveDispute } from "~/operations/disputes.server";
import { deliverOrder, openDispute, runOrderTimers } from "~/operations/orders.server";
import { createUser, type TestUser } from "../support/factories";
import { DAY_MS, eventKinds, expectLedgerSound, journalKeys, orderRow, trail } from "../support/order-checks";
import { balances, memberActor, opts, orderTestContext, paidTestOrder, system } from "../support/orders";

/** The gig's Basic package: UGX 100,000; the buyer pays 105,000 (5,000 fee); the seller's fee is 20,000. */
const t = orderTestContext("splits", { parties: { seller: { name: "Split Seller" }, gig: { title: "Shop logo" } }, admin: { name: "Split Admin" } });
afterEach(() => expectLedgerSound(t.db));

let buyers = 0;
const newBuyer = () => createUser(t.db, { role: "client", name: `Split Buyer ${++buyers}` });
const o = () => opts(t);
const admin = () => memberActor(t.admin);

/** A paid order, delivered, disputed by its buyer. */
async function disputed(buyer: TestUser) {
  const { orderId } = await paidTestOrder(t, buyer, t.gigId);
  expect(await deliverOrder(memberActor(t.seller), { orderId, message: "Blue logo" }, o())).toMatchObject({ ok: true });
  expect(await openDispute(memberActor(buyer), { orderId, reason: "We agreed on three colours" }, o())).toMatchObject({ ok: true });
  return orderId;
}

/** The entries stored under a journal key, account code → amount. */
async function entriesOf(key: string) {
  const rows = await t
    .db("ledger_entries as e")
    .join("ledger_journals as j", "j.id", "e.journal_id")
    .join("ledger_accounts as a", "a.id", "e.account_id")
    .where("j.idempotency_key", key)
    .select("a.code", "e.amount_ugx");
  return Object.fromEntries(rows.map((r) => [r.code as string, Number(r.amount_ugx)]));
}

const notes = (orderId: number) => t.db("notifications").where({ order_id: orderId, kind: "dispute_resolved" }).orderBy("id").select("user_id", "body");
const audit = (orderId: number) =>
  t
    .db("admin_audit_log")
    .where({ target_type: "order", target_id: String(orderId) })
    .orderBy("id")
    .select("admin_id", "action", "details");

describe("resolving a dispute", () => {
  it("splits the price: one journal, the buyer's part and fee share refunded, the seller's part less its fee pending, both told why", async () => {
    const buyer = await newBuyer();
    const orderId = await disputed(buyer);
    const before = await balances(t.db);
    const seller0 = await memberBalances(t.db, t.seller.id);
    const reason = "One colour of three was delivered: the buyer gets 40% back.";

    expect(await resolveDispute(admin(), { orderId, resolution: "split", refundUgx: 40_000, note: reason }, o())).toEqual({
      ok: true,
      value: { status: "completed", resolution: "split", buyerUgx: 42_000, sellerUgx: 48_000 },
    });

    // The one journal of the decision, as its template declares it, and the refund's payout.
    expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`, `order:${orderId}:split`]);
    const stored = await entriesOf(`order:${orderId}:split`);
    expect(stored).toEqual({
      [`escrow:order:${orderId}`]: -100_000,
      [`buyer_fee_held:order:${orderId}`]: -5_000,
      [`refund_due:user:${buyer.id}`]: 42_000,
      [`seller_pending:user:${t.seller.id}`]: 48_000,
      platform_seller_fees: 12_000,
      platform_buyer_fees: 3_000,
    });
    const declared = journalPostings("dispute_split", {
      orderId,
      buyerId: buyer.id,
      sellerId: t.seller.id,
      priceUgx: 100_000,
      buyerFeeUgx: 5_000,
      sellerFeeUgx: 20_000,
      refundUgx: 40_000,
    });
    expect(Object.values(stored).sort()).toEqual(declared.postings.map((p) => p.amountUgx).sort());
    expect(await t.db("payouts").where({ order_id: orderId }).select("user_id", "kind", "amount_ugx")).toEqual([
      { user_id: buyer.id, kind: "refund", amount_ugx: 42_000 },
    ]);

    // Balances: escrow empty, the buyer's 42,000 on its way, the seller's 48,000 pending, the platform's fees.
    const after = await balances(t.db);
    const delta = (code: string) => (after[code] ?? 0) - (before[code] ?? 0);
    expect(after[`escrow:order:${orderId}`]).toBe(0);
    expect(after[`buyer_fee_held:order:${orderId}`]).toBe(0);
    expect(await memberBalances(t.db, buyer.id)).toEqual({ pendingUgx: 0, availableUgx: 0, inTransitUgx: 42_000, refundDueUgx: 0 });
    expect((await memberBalances(t.db, t.seller.id)).pendingUgx - seller0.pendingUgx).toBe(48_000);
    expect(delta("platform_seller_fees")).toBe(12_000);
    expect(delta("platform_buyer_fees")).toBe(3_000);

    // The order completes through the state machine, the admin on its timeline with the reason.
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "completed", completedAt: expect.any(Date) });
    expect((await eventKinds(t.db, orderId)).at(-1)).toBe("dispute_split");
    expect(await t.db("order_events").where({ order_id: orderId, kind: "dispute_split" }).first("actor_id", "actor_role", "reason")).toEqual({
      actor_id: t.admin.id,
      actor_role: "admin",
      reason,
    });
    expect(
      await t.db("disputes").where({ order_id: orderId }).first("status", "resolution", "refund_ugx", "release_ugx", "resolution_note", "resolved_by"),
    ).toEqual({
      status: "resolved",
      resolution: "split",
      refund_ugx: 40_000,
      release_ugx: 60_000,
      resolution_note: reason,
      resolved_by: t.admin.id,
    });
    expect(await audit(orderId)).toEqual([
      {
        admin_id: t.admin.id,
        action: "dispute.split",
        details: { note: reason, refundUgx: 40_000, releaseUgx: 60_000, buyerUgx: 42_000, sellerUgx: 48_000 },
      },
    ]);
    expect(await notes(orderId)).toEqual([
      {
        user_id: buyer.id,
        body: `The dispute on “Shop logo” was split: UGX 42,000 is being refunded to you and the rest is paid to the seller. Reason: ${reason}`,
      },
      {
        user_id: t.seller.id,
        body: `The dispute on “Shop logo” was split: you earn UGX 48,000, available 14 days from now, and the rest is refunded to the buyer. Reason: ${reason}`,
      },
    ]);
    expect(await disputeOutcomeOf(t.db, orderId)).toMatchObject({ resolution: "split", buyerUgx: 42_000, sellerUgx: 48_000, reason });

    // Fourteen days on, the seller's 48,000 (not the whole 80,000 of a release) becomes available.
    const available = (await memberBalances(t.db, t.seller.id)).availableUgx;
    expect(await runOrderTimers(system, { ...o(), now: () => new Date(Date.now() + 15 * DAY_MS) })).toMatchObject({ ok: true });
    expect((await memberBalances(t.db, t.seller.id)).availableUgx - available).toBe(48_000);
    expect(await entriesOf(`order:${orderId}:cleared`)).toEqual({
      [`seller_pending:user:${t.seller.id}`]: -48_000,
      [`seller_available:user:${t.seller.id}`]: 48_000,
    });
  });

  it("releases all to the seller: escrow_released, the order completed, both told the reason", async () => {
    const buyer = await newBuyer();
    const orderId = await disputed(buyer);
    const reason = "The delivery matches the brief the buyer wrote.";
    expect(await resolveDispute(admin(), { orderId, resolution: "release", refundUgx: 5, note: reason }, o())).toEqual({
      ok: true,
      value: { status: "completed", resolution: "release", buyerUgx: 0, sellerUgx: 80_000 },
    });
    expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`, `order:${orderId}:released`]);
    expect(await entriesOf(`order:${orderId}:released`)).toEqual({
      [`escrow:order:${orderId}`]: -100_000,
      [`buyer_fee_held:order:${orderId}`]: -5_000,
      [`seller_pending:user:${t.seller.id}`]: 80_000,
      platform_seller_fees: 20_000,
      platform_buyer_fees: 5_000,
    });
    expect(await t.db("payouts").where({ order_id: orderId })).toEqual([]);
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "completed" });
    expect(await t.db("disputes").where({ order_id: orderId }).first("resolution", "refund_ugx", "release_ugx")).toEqual({
      resolution: "release",
      refund_ugx: 0,
      release_ugx: 100_000,
    });
    expect(await audit(orderId)).toMatchObject([{ admin_id: t.admin.id, action: "dispute.release", details: { note: reason, refundUgx: 0 } }]);
    expect(await notes(orderId)).toEqual([
      { user_id: buyer.id, body: `The dispute on “Shop logo” was decided for the seller: the payment is released to them. Reason: ${reason}` },
      { user_id: t.seller.id, body: `The dispute on “Shop logo” was decided for you: you earn UGX 80,000, available 14 days from now. Reason: ${reason}` },
    ]);
  });

  it("refunds all to the buyer: order_refunded, a refund payout of everything paid, the order cancelled, both told the reason", async () => {
    const buyer = await newBuyer();
    const orderId = await disputed(buyer);
    const reason = "Nothing usable was delivered.";
    expect(await resolveDispute(admin(), { orderId, resolution: "refund", note: reason }, o())).toEqual({
      ok: true,
      value: { status: "cancelled", resolution: "refund", buyerUgx: 105_000, sellerUgx: 0 },
    });
    expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`, `order:${orderId}:refunded`]);
    expect(await entriesOf(`order:${orderId}:refunded`)).toEqual({
      [`escrow:order:${orderId}`]: -100_000,
      [`buyer_fee_held:order:${orderId}`]: -5_000,
      [`refund_due:user:${buyer.id}`]: 105_000,
    });
    expect(await memberBalances(t.db, buyer.id)).toMatchObject({ inTransitUgx: 105_000 });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "cancelled" });
    expect(await t.db("disputes").where({ order_id: orderId }).first("resolution", "refund_ugx", "release_ugx")).toEqual({
      resolution: "refund",
      refund_ugx: 100_000,
      release_ugx: 0,
    });
    expect(await audit(orderId)).toMatchObject([{ action: "dispute.refund", details: { note: reason, buyerUgx: 105_000 } }]);
    expect(await notes(orderId)).toEqual([
      { user_id: buyer.id, body: `The dispute on “Shop logo” was decided for you: UGX 105,000 is being refunded to you. Reason: ${reason}` },
      { user_id: t.seller.id, body: `The dispute on “Shop logo” was decided for the buyer: the payment is refunded to them. Reason: ${reason}` },
    ]);
  });

  it("refuses a split outside 1 to the price less 1, a split without an amount or with a fraction, and a missing reason, writing nothing", async () => {
    const buyer = await newBuyer();
    const orderId = await disputed(buyer);
    const before = await trail(t.db, [orderId]);
    const auditBefore = await audit(orderId);
    const split = (refundUgx: number | undefined, note = "Half each") => resolveDispute(admin(), { orderId, resolution: "split", refundUgx, note }, o());
    for (const amount of [0, 100_000, 100_001, -5]) {
      expect(await split(amount), String(amount)).toEqual({
        ok: false,
        error: "invalid",
        issues: { refundUgx: [{ code: "dispute.split_out_of_range", params: { maxUgx: 99_999 } }] },
      });
    }
    for (const amount of [undefined, 1.5, Number.NaN]) {
      expect(await split(amount), String(amount)).toEqual({
        ok: false,
        error: "invalid",
        issues: { refundUgx: [{ code: "dispute.split_amount_required", params: {} }] },
      });
    }
    for (const note of ["", "   "]) {
      expect(await split(50_000, note)).toEqual({ ok: false, error: "invalid", issues: { note: [{ code: "dispute.reason_required", params: {} }] } });
      expect(await resolveDispute(admin(), { orderId, resolution: "release", note }, o())).toMatchObject({ ok: false, error: "invalid" });
    }
    expect(await trail(t.db, [orderId])).toEqual(before);
    expect(await audit(orderId)).toEqual(auditBefore);

    // 1 and the price less 1 are the edges that work.
    expect(await split(99_999)).toMatchObject({ ok: true, value: { status: "completed", buyerUgx: 104_999, sellerUgx: 1 } });
  });

  it("refuses a member or the platform, and a dispute already resolved, writing nothing", async () => {
    const buyer = await newBuyer();
    const orderId = await disputed(buyer);
    const before = await trail(t.db, [orderId]);
    for (const actor of [memberActor(buyer), memberActor(t.seller), system]) {
      expect(await resolveDispute(actor, { orderId, resolution: "split", refundUgx: 50_000, note: "Half each" }, o())).toEqual({
        ok: false,
        error: "forbidden",
        code: "dispute.admins_only",
        params: {},
      });
    }
    expect(await trail(t.db, [orderId])).toEqual(before);

    expect(await resolveDispute(admin(), { orderId, resolution: "split", refundUgx: 50_000, note: "Half each" }, o())).toMatchObject({ ok: true });
    const resolved = await trail(t.db, [orderId]);
    for (const resolution of ["release", "refund", "split"] as const) {
      expect(await resolveDispute(admin(), { orderId, resolution, refundUgx: 10_000, note: "Again" }, o())).toEqual({
        ok: false,
        error: "conflict",
        code: "dispute.already_resolved",
        params: { resolution: "split" },
      });
    }
    expect(await trail(t.db, [orderId])).toEqual(resolved);
  });

  it("gives one resolution when two admins decide at once: one succeeds, the other is told it was decided", async () => {
    const second = await createUser(t.db, { role: "admin", name: "Second Admin" });
    for (const [a, b] of [
      ["split", "refund"],
      ["release", "split"],
    ] as const) {
      const buyer = await newBuyer();
      const orderId = await disputed(buyer);
      const results = await Promise.all([
        resolveDispute(admin(), { orderId, resolution: a, refundUgx: 30_000, note: "First admin" }, o()),
        resolveDispute(memberActor(second), { orderId, resolution: b, refundUgx: 60_000, note: "Second admin" }, o()),
      ]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const winner = results.findIndex((r) => r.ok);
      expect(results[1 - winner]).toMatchObject({ ok: false, error: "conflict", code: "dispute.already_resolved", params: { resolution: [a, b][winner] } });
      expect(await t.db("disputes").where({ order_id: orderId }).pluck("status")).toEqual(["resolved"]);
      expect(await journalKeys(t.db, orderId)).toHaveLength(2);
      expect(await audit(orderId)).toHaveLength(1);
      expect(await notes(orderId)).toHaveLength(2);
    }
  });
});
