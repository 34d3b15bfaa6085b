/**
 * The escrow ledger's guarantees (ADR 014), against a real Postgres: the database itself refuses a journal
 * that does not balance (at COMMIT, by its deferred trigger) and any change to a posted entry; postEntries
 * posts a key once, and never takes an account that holds somebody's money below zero, even with two
 * journals at once. Each way an order can end is played through the operations, and after every test the
 * ledger keeps its rules (tests/support/order-checks.ts): every journal balances, so the whole book sums to
 * zero; no such account is negative; each order's money agrees with its status, a finished one holds nothing.
 * The journals the operations post are exactly what their templates declare (ledger-journals.server.ts), and
 * a template that refuses its parameters writes nothing.
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import {
  accountCode,
  buyerFeeHeld,
  escrow,
  memberBalances,
  NegativeBalanceError,
  platform,
  postEntries,
  sellerAvailable,
  sellerPending,
  UnbalancedJournalError,
} from "~/models/ledger.server";
import { journalPostings, JournalParamsError, postJournal, type JournalName } from "~/models/ledger-journals.server";
import { resolveDispute } from "~/operations/disputes.server";
import { cancelOrder, deliverOrder, openDispute, runOrderTimers } from "~/operations/orders.server";
import { requestWithdrawal, settlePayment, settlePayout } from "~/operations/payments.server";
import type { Providers } from "~/payments/registry.server";
import { createSandboxProvider } from "~/payments/sandbox.server";
import { at, DAY_MS, expectLedgerSound, journalKeys, orderRow } from "../support/order-checks";
import { balances, completedTestOrder, createParties, memberActor, opts, orderTestContext, paidTestOrder, placeTestOrder, system } from "../support/orders";

const t = orderTestContext("ledger", { admin: { name: "Ledger Admin" } });
afterEach(() => expectLedgerSound(t.db));

let people = 0;
/** A seller (with a payout number) and a buyer of their own, and the seller's gig at UGX 100,000. */
async function parties() {
  const n = ++people;
  return createParties(t.db, { seller: { name: `Ledger Seller ${n}` }, buyer: { name: `Ledger Buyer ${n}` } });
}

const o = () => opts(t);
const count = async (table: string) => Number((await t.db(table).count<{ c: string }[]>({ c: "*" }).first())?.c);
const book = async () => ({ journals: await count("ledger_journals"), entries: await count("ledger_entries"), balances: await balances(t.db) });

/** The ids of two platform accounts, made on first use, for journals written straight in SQL. */
async function platformAccountIds() {
  await t
    .db("ledger_accounts")
    .insert([
      { code: "provider_clearing", kind: "provider_clearing" },
      { code: "platform_buyer_fees", kind: "platform_buyer_fees" },
    ])
    .onConflict("code")
    .ignore();
  const rows = await t.db("ledger_accounts").whereIn("code", ["provider_clearing", "platform_buyer_fees"]).select("code", "id");
  const id = (code: string) => Number(rows.find((r) => r.code === code)!.id);
  return { clearing: id("provider_clearing"), fees: id("platform_buyer_fees") };
}

describe("what the database refuses, whatever the code does", () => {
  it("a journal whose entries do not sum to zero, written in SQL, is refused at COMMIT, and nothing of it remains", async () => {
    const { clearing, fees } = await platformAccountIds();
    const before = await book();
    for (const entries of [[500], [500, -499], [-1, -1]]) {
      const key = `test:unbalanced:${randomUUID()}`;
      let insertedAll = false;
      const written = t.db.transaction(async (trx) => {
        const [journal] = await trx("ledger_journals").insert({ idempotency_key: key, kind: "test" }).returning("id");
        await trx("ledger_entries").insert(entries.map((amount, i) => ({ journal_id: journal.id, account_id: i % 2 ? fees : clearing, amount_ugx: amount })));
        // The trigger is deferred: inside the transaction the entries are there; only the commit is refused.
        expect(await trx("ledger_entries").where({ journal_id: journal.id }).count<{ c: string }[]>({ c: "*" })).toEqual([{ c: entries.length }]);
        insertedAll = true;
      });
      await expect(written, JSON.stringify(entries)).rejects.toThrow(/does not balance/);
      expect(insertedAll).toBe(true);
      expect(await t.db("ledger_journals").where({ idempotency_key: key }).first()).toBeUndefined();
    }
    expect(await book()).toEqual(before);

    // The same statements with entries that balance commit: it is the sum that is refused.
    await t.db.transaction(async (trx) => {
      const [journal] = await trx("ledger_journals")
        .insert({ idempotency_key: `test:balanced:${randomUUID()}`, kind: "test" })
        .returning("id");
      await trx("ledger_entries").insert([
        { journal_id: journal.id, account_id: clearing, amount_ugx: -500 },
        { journal_id: journal.id, account_id: fees, amount_ugx: 500 },
      ]);
    });
    expect((await book()).entries).toBe(before.entries + 2);
  });

  it("a posted entry or journal can be neither changed nor deleted", async () => {
    const { buyer, gigId } = await parties();
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    const before = await book();
    const entries = t.db("ledger_entries").whereIn("journal_id", t.db("ledger_journals").where({ order_id: orderId }).select("id"));
    await expect(entries.clone().update({ amount_ugx: 1 })).rejects.toThrow(/append-only/);
    await expect(entries.clone().delete()).rejects.toThrow(/append-only/);
    await expect(t.db("ledger_entries").delete()).rejects.toThrow(/append-only/);
    await expect(t.db("ledger_journals").where({ order_id: orderId }).update({ kind: "changed" })).rejects.toThrow(/append-only/);
    await expect(t.db("ledger_journals").where({ order_id: orderId }).delete()).rejects.toThrow(/append-only/);
    expect(await book()).toEqual(before);
    expect(await balances(t.db)).toMatchObject({ [`escrow:order:${orderId}`]: 100_000, [`buyer_fee_held:order:${orderId}`]: 5_000 });
  });
});

describe("postEntries, the writer every template posts through", () => {
  it("posts a key once: the same key again, after or at the same time, returns false and moves nothing", async () => {
    const { buyer, gigId } = await parties();
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    const before = await book();
    // The order's own capture, posted again as a retried callback would: by its template, and as raw entries.
    const again = await t.db.transaction((trx) => postJournal(trx, "payment_captured", { orderId, priceUgx: 100_000, paidUgx: 105_000 }));
    expect(again).toBe(false);
    const rawAgain = await t.db.transaction((trx) =>
      postEntries(trx, {
        key: `order:${orderId}:captured`,
        kind: "payment_captured",
        orderId,
        postings: [
          { account: platform.clearing, amountUgx: -105_000 },
          { account: escrow(orderId), amountUgx: 100_000 },
          { account: buyerFeeHeld(orderId), amountUgx: 5_000 },
        ],
      }),
    );
    expect(rawAgain).toBe(false);
    expect(await book()).toEqual(before);

    const journal = {
      key: `test:once:${randomUUID()}`,
      kind: "test",
      postings: [
        { account: platform.clearing, amountUgx: -700 },
        { account: platform.buyerFees, amountUgx: 700 },
      ],
    };
    const both = await Promise.all([t.db.transaction((trx) => postEntries(trx, journal)), t.db.transaction((trx) => postEntries(trx, journal))]);
    expect(both.sort()).toEqual([false, true]);
    expect(await t.db.transaction((trx) => postEntries(trx, journal))).toBe(false);
    const after = await book();
    expect(after.entries).toBe(before.entries + 2);
    expect(after.balances.platform_buyer_fees).toBe((before.balances.platform_buyer_fees ?? 0) + 700);
  });

  it("refuses a journal that does not balance or moves a fraction of a shilling, before writing anything", async () => {
    const before = await book();
    const post = (amounts: [number, number]) =>
      t.db.transaction((trx) =>
        postEntries(trx, {
          key: `test:bad:${randomUUID()}`,
          kind: "test",
          postings: [
            { account: platform.clearing, amountUgx: amounts[0] },
            { account: platform.buyerFees, amountUgx: amounts[1] },
          ],
        }),
      );
    await expect(post([-100, 99])).rejects.toBeInstanceOf(UnbalancedJournalError);
    await expect(post([-0.5, 0.5])).rejects.toBeInstanceOf(UnbalancedJournalError);
    await expect(post([0, 0])).rejects.toBeInstanceOf(UnbalancedJournalError);
    expect(await book()).toEqual(before);
  });

  it("never takes an order's escrow or a seller's available balance below zero, and rolls the whole journal back", async () => {
    const { seller, buyer, gigId } = await parties();
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    const before = await book();
    const overdraw = t.db.transaction((trx) =>
      postEntries(trx, {
        key: `test:overdraw:${randomUUID()}`,
        kind: "test",
        orderId,
        postings: [
          { account: escrow(orderId), amountUgx: -100_001 },
          { account: sellerPending(seller.id), amountUgx: 100_001 },
        ],
      }),
    );
    await expect(overdraw).rejects.toThrow(NegativeBalanceError);
    await expect(overdraw).rejects.toMatchObject({ code: `escrow:order:${orderId}` });

    const empty = t.db.transaction((trx) =>
      postEntries(trx, {
        key: `test:empty:${randomUUID()}`,
        kind: "test",
        postings: [
          { account: sellerAvailable(seller.id), amountUgx: -1 },
          { account: platform.clearing, amountUgx: 1 },
        ],
      }),
    );
    await expect(empty).rejects.toMatchObject({ code: `seller_available:user:${seller.id}` });
    expect(await book()).toEqual(before);
    expect(await memberBalances(t.db, seller.id)).toEqual({ pendingUgx: 0, availableUgx: 0, inTransitUgx: 0, refundDueUgx: 0 });
  });

  it("two journals at once that each take an order's whole escrow: one posts, the other is refused", async () => {
    const { seller, buyer, gigId } = await parties();
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    const take = (n: number) =>
      t.db.transaction((trx) =>
        postEntries(trx, {
          key: `test:take:${orderId}:${n}`,
          kind: "test",
          orderId,
          postings: [
            { account: escrow(orderId), amountUgx: -100_000 },
            { account: sellerPending(seller.id), amountUgx: 100_000 },
          ],
        }),
      );
    const results = await Promise.allSettled([take(1), take(2)]);
    expect(results.filter((r) => r.status === "fulfilled")).toEqual([{ status: "fulfilled", value: true }]);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(NegativeBalanceError);
    expect(await balances(t.db)).toMatchObject({ [`escrow:order:${orderId}`]: 0, [`seller_pending:user:${seller.id}`]: 100_000 });
    expect((await journalKeys(t.db, orderId)).filter((k) => k.startsWith("test:take"))).toHaveLength(1);

    // The order is still in progress, so its escrow must hold its price again for the ledger's rules after
    // each test: the money taken goes back.
    await t.db.transaction((trx) =>
      postEntries(trx, {
        key: `test:put-back:${orderId}`,
        kind: "test",
        orderId,
        postings: [
          { account: sellerPending(seller.id), amountUgx: -100_000 },
          { account: escrow(orderId), amountUgx: 100_000 },
        ],
      }),
    );
  });
});

describe("the book after each way an order ends", () => {
  it("completed, cleared and withdrawn: the seller's 80,000 leaves, the platform keeps both fees, the order holds nothing", async () => {
    const { seller, buyer, gigId } = await parties();
    const fees = await balances(t.db);
    const { orderId } = await completedTestOrder(t, buyer, seller, gigId);
    const completedAt = (await orderRow(t.db, orderId)).completedAt!;
    await runOrderTimers(system, { ...o(), now: at(completedAt.getTime() + 14 * DAY_MS) });
    const withdrawn = await requestWithdrawal(memberActor(seller), { amountUgx: 80_000, requestKey: randomUUID() }, o());
    expect(withdrawn).toMatchObject({ ok: true, value: { amountUgx: 80_000 } });
    if (!withdrawn.ok) return;
    expect(await settlePayout(system, { reference: withdrawn.value.reference }, o())).toMatchObject({ ok: true, value: { settlement: "paid" } });

    expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`, `order:${orderId}:released`, `order:${orderId}:cleared`]);
    expect(await memberBalances(t.db, seller.id)).toEqual({ pendingUgx: 0, availableUgx: 0, inTransitUgx: 0, refundDueUgx: 0 });
    const after = await balances(t.db);
    expect(after.platform_seller_fees! - (fees.platform_seller_fees ?? 0)).toBe(20_000);
    expect(after.platform_buyer_fees! - (fees.platform_buyer_fees ?? 0)).toBe(5_000);
    // In 105,000 from the buyer, out 80,000 to the seller: the outside world is 25,000 down, the fees.
    expect(after.provider_clearing! - (fees.provider_clearing ?? 0)).toBe(-25_000);
  });

  it("given up unpaid, then paid on the phone after all: taken and refunded in full", async () => {
    const { buyer, gigId } = await parties();
    const { orderId, reference } = await placeTestOrder(t, buyer, gigId);
    expect(await cancelOrder(memberActor(buyer), { orderId, reason: "Wrong gig" }, o())).toMatchObject({ ok: true });
    expect(await t.sandbox.decide(reference, "approve")).toBe(true);
    expect(await settlePayment(system, { reference }, o())).toMatchObject({ ok: true });
    const [refund] = await t.db("payouts").where({ order_id: orderId }).pluck("reference");
    expect(await settlePayout(system, { reference: refund }, o())).toMatchObject({ ok: true, value: { settlement: "paid" } });
    expect(await journalKeys(t.db, orderId)).toEqual([`order:${orderId}:captured`, `order:${orderId}:refunded`]);
    expect(await memberBalances(t.db, buyer.id)).toEqual({ pendingUgx: 0, availableUgx: 0, inTransitUgx: 0, refundDueUgx: 0 });
  });

  it("declined on the phone: nothing is posted", async () => {
    const { buyer, gigId } = await parties();
    const { orderId, reference } = await placeTestOrder(t, buyer, gigId);
    const before = await book();
    expect(await t.sandbox.decide(reference, "decline")).toBe(true);
    expect(await settlePayment(system, { reference }, o())).toMatchObject({ ok: true, value: { settlement: "failed" } });
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "cancelled" });
    expect(await book()).toEqual(before);
  });

  it("cancelled late, and the refund refused by the provider: the money waits in the buyer's refund due", async () => {
    const { buyer, gigId } = await parties();
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    const sandbox = createSandboxProvider(t.sandbox);
    const refusing = { ...sandbox, disburse: async () => ({ outcome: "rejected" as const, reason: "The wallet is barred" }) };
    const providers: Providers = { forNetwork: () => refusing, byName: () => refusing, sandbox: t.sandbox };
    const late = (await orderRow(t.db, orderId)).dueAt!.getTime() + DAY_MS + 1;
    expect(await cancelOrder(memberActor(buyer), { orderId, reason: "Too late" }, { db: t.db, providers, now: at(late) })).toMatchObject({
      ok: true,
      value: { outcome: "cancelled" },
    });
    expect(await t.db("payouts").where({ order_id: orderId }).select("kind", "status", "failure_reason")).toEqual([
      { kind: "refund", status: "failed", failure_reason: "The wallet is barred" },
    ]);
    expect(await memberBalances(t.db, buyer.id)).toEqual({ pendingUgx: 0, availableUgx: 0, inTransitUgx: 0, refundDueUgx: 105_000 });
    expect(await t.db("notifications").where({ user_id: buyer.id, kind: "payout_failed" }).pluck("body")).toEqual([
      "Your refund of UGX 105,000 did not go through; our support team will contact you",
    ]);
  });

  it("disputed and released to the seller, or refunded to the buyer", async () => {
    const { seller, buyer, gigId } = await parties();
    const released = await paidTestOrder(t, buyer, gigId);
    expect(await deliverOrder(memberActor(seller), { orderId: released.orderId, message: "Done" }, o())).toMatchObject({ ok: true });
    expect(await openDispute(memberActor(seller), { orderId: released.orderId, reason: "No answer" }, o())).toMatchObject({ ok: true });
    expect(await resolveDispute(memberActor(t.admin), { orderId: released.orderId, resolution: "release", note: "The work was done" }, o())).toMatchObject({
      ok: true,
    });

    const refunded = await paidTestOrder(t, buyer, gigId);
    expect(await openDispute(memberActor(buyer), { orderId: refunded.orderId, reason: "Nothing yet" }, o())).toMatchObject({ ok: true });
    expect(await resolveDispute(memberActor(t.admin), { orderId: refunded.orderId, resolution: "refund", note: "Nothing was delivered" }, o())).toMatchObject({
      ok: true,
    });

    expect(await journalKeys(t.db, released.orderId)).toEqual([`order:${released.orderId}:captured`, `order:${released.orderId}:released`]);
    expect(await journalKeys(t.db, refunded.orderId)).toEqual([`order:${refunded.orderId}:captured`, `order:${refunded.orderId}:refunded`]);
    expect(await memberBalances(t.db, seller.id)).toMatchObject({ pendingUgx: 80_000 });
    expect(await memberBalances(t.db, buyer.id)).toMatchObject({ inTransitUgx: 105_000, refundDueUgx: 0 });
  });
});

/** The entries stored under a journal key, as account code and amount, in code order. */
async function storedEntries(key: string) {
  const rows = await t
    .db("ledger_entries as e")
    .join("ledger_journals as j", "j.id", "e.journal_id")
    .join("ledger_accounts as a", "a.id", "e.account_id")
    .where("j.idempotency_key", key)
    .select("a.code", "e.amount_ugx", "j.kind");
  return rows.map((r) => ({ kind: r.kind as string, code: r.code as string, amountUgx: Number(r.amount_ugx) })).sort((a, b) => a.code.localeCompare(b.code));
}

/** What a template declares for these parameters, in the same shape. */
function declared<N extends JournalName>(name: N, params: Parameters<typeof journalPostings<N>>[1]) {
  const { key, postings } = journalPostings(name, params);
  const entries = postings
    .filter((p) => p.amountUgx !== 0)
    .map((p) => ({ kind: name as string, code: accountCode(p.account), amountUgx: p.amountUgx }))
    .sort((a, b) => a.code.localeCompare(b.code));
  return { key, entries };
}

async function expectPostedAsDeclared<N extends JournalName>(name: N, params: Parameters<typeof journalPostings<N>>[1]) {
  const { key, entries } = declared(name, params);
  expect(entries.length, key).toBeGreaterThanOrEqual(2);
  expect(await storedEntries(key), key).toEqual(entries);
}

describe("journal templates, posted by the operations", () => {
  it("an order completed, cleared and withdrawn posts each journal exactly as its template declares", async () => {
    const { seller, buyer, gigId } = await parties();
    const { orderId } = await completedTestOrder(t, buyer, seller, gigId);
    const order = { orderId, buyerId: buyer.id, sellerId: seller.id, priceUgx: 100_000, buyerFeeUgx: 5_000, sellerFeeUgx: 20_000 };
    await runOrderTimers(system, { ...o(), now: at((await orderRow(t.db, orderId)).completedAt!.getTime() + 14 * DAY_MS) });
    const withdrawn = await requestWithdrawal(memberActor(seller), { amountUgx: 50_000, requestKey: randomUUID() }, o());
    if (!withdrawn.ok) throw new Error("the withdrawal was refused");
    await settlePayout(system, { reference: withdrawn.value.reference }, o());
    const payoutId = Number((await t.db("payouts").where({ reference: withdrawn.value.reference }).first("id")).id);

    await expectPostedAsDeclared("payment_captured", { ...order, paidUgx: 105_000 });
    await expectPostedAsDeclared("escrow_released", order);
    await expectPostedAsDeclared("earnings_cleared", order);
    await expectPostedAsDeclared("payout_sent", { payoutId, userId: seller.id, payoutKind: "withdrawal", amountUgx: 50_000 });
    await expectPostedAsDeclared("payout_paid", { payoutId, userId: seller.id, amountUgx: 50_000 });
    expect(await memberBalances(t.db, seller.id)).toEqual({ pendingUgx: 0, availableUgx: 30_000, inTransitUgx: 0, refundDueUgx: 0 });
  });

  it("an order cancelled late whose refund the provider refuses posts the refund, its payout and its return as declared", async () => {
    const { buyer, gigId } = await parties();
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    const sandbox = createSandboxProvider(t.sandbox);
    const refusing = { ...sandbox, disburse: async () => ({ outcome: "rejected" as const, reason: "The wallet is barred" }) };
    const providers: Providers = { forNetwork: () => refusing, byName: () => refusing, sandbox: t.sandbox };
    const late = (await orderRow(t.db, orderId)).dueAt!.getTime() + DAY_MS + 1;
    expect(await cancelOrder(memberActor(buyer), { orderId, reason: "Too late" }, { db: t.db, providers, now: at(late) })).toMatchObject({ ok: true });
    const payoutId = Number((await t.db("payouts").where({ order_id: orderId }).first("id")).id);

    await expectPostedAsDeclared("order_refunded", { orderId, buyerId: buyer.id, priceUgx: 100_000, paidUgx: 105_000 });
    await expectPostedAsDeclared("payout_sent", { payoutId, userId: buyer.id, payoutKind: "refund", amountUgx: 105_000 });
    await expectPostedAsDeclared("payout_returned", { payoutId, userId: buyer.id, payoutKind: "refund", amountUgx: 105_000 });
  });

  it("parameters a template refuses, or a move the ledger refuses, write nothing", async () => {
    const { seller, buyer, gigId } = await parties();
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    const before = await book();
    const order = { orderId, sellerId: seller.id, priceUgx: 100_000, buyerFeeUgx: 5_000 };
    const post = (run: (trx: Parameters<typeof postJournal>[0]) => Promise<boolean>) => t.db.transaction(run);
    await expect(post((trx) => postJournal(trx, "escrow_released", { ...order, sellerFeeUgx: 100_001 }))).rejects.toBeInstanceOf(JournalParamsError);
    await expect(post((trx) => postJournal(trx, "escrow_released", { ...order, sellerFeeUgx: 0.5 }))).rejects.toBeInstanceOf(JournalParamsError);
    await expect(post((trx) => postJournal(trx, "order_refunded", { orderId, buyerId: buyer.id, priceUgx: 100_000, paidUgx: 99_999 }))).rejects.toBeInstanceOf(
      JournalParamsError,
    );
    // Well-formed, but more than there is: nothing of this order is pending for the seller yet.
    const overdraw = post((trx) => postJournal(trx, "earnings_cleared", { ...order, sellerFeeUgx: 20_000 }));
    await expect(overdraw).rejects.toMatchObject({ code: `seller_pending:user:${seller.id}` });
    await expect(overdraw).rejects.toBeInstanceOf(NegativeBalanceError);
    expect(await book()).toEqual(before);
  });
});
