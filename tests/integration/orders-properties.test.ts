/**
 * Property test of concurrent order operations (ADR 014): fast-check draws a few orders of one seller, one or
 * two buyers, and a list of steps, most of them two operations at once (Promise.all) as they happen when two
 * tabs, a provider's callback and the worker's poll, or a timer and a person meet on one order. Against real
 * Postgres and Redis with the sandbox provider. After each run, whatever won each race, the stored orders and
 * ledger must be consistent (ledgerProblems in tests/support/order-checks.ts), no race may have two winners, and no
 * operation may throw: a loser gets a Result (a conflict), never a deadlock or a serialization error.
 *
 * Each run has its own seller, buyers, gig and orders, and the invariants are checked on those only, so a
 * failing run does not fail the runs fast-check tries while shrinking it. Replay a failure with the seed and
 * path it prints: ORDER_PROPERTY_SEED=… ORDER_PROPERTY_PATH=… npx vitest run --project integration <this file>.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { memberBalances } from "~/models/ledger.server";
import type { Result } from "~/operations/core.server";
import { resolveDispute } from "~/operations/disputes.server";
import { approveOrder, cancelOrder, deliverOrder, openDispute, requestRevision, runOrderTimers } from "~/operations/orders.server";
import { paymentCallback, pollPayouts, requestWithdrawal, settlePayment, settlePayout } from "~/operations/payments.server";
import { createUser, type TestUser } from "../support/factories";
import { DAY_MS, ledgerProblems } from "../support/order-checks";
import { completedTestOrder, createParties, memberActor, opts, orderTestContext, paidTestOrder, placeTestOrder, system } from "../support/orders";

const t = orderTestContext("orderprops", { admin: true });

const later = (days: number) => () => new Date(Date.now() + days * DAY_MS);

// ── The steps fast-check draws ──────────────────────────────────────────────────────────────────────────

const order = fc.nat({ max: 2 });
const Step = fc.oneof(
  fc.record({ op: fc.constant("approve_twice" as const), order }),
  fc.record({ op: fc.constant("approve_vs_agree_cancel" as const), order }),
  fc.record({ op: fc.constant("deliver_vs_cancel" as const), order, late: fc.boolean() }),
  fc.record({ op: fc.constant("callback_twice" as const), order, decision: fc.constantFrom("approve" as const, "decline" as const) }),
  fc.record({ op: fc.constant("callback_vs_poll" as const), order, decision: fc.constantFrom("approve" as const, "decline" as const) }),
  fc.record({ op: fc.constant("timer_vs_approve" as const), order }),
  fc.record({ op: fc.constant("withdraw_twice" as const), sameKey: fc.boolean(), percent: fc.integer({ min: 30, max: 90 }) }),
  fc.record({ op: fc.constant("revision" as const), order }),
  fc.record({
    op: fc.constant("dispute_and_resolve" as const),
    order,
    by: fc.constantFrom("buyer" as const, "seller" as const),
    resolution: fc.constantFrom("release" as const, "refund" as const),
  }),
  fc.record({ op: fc.constant("clearance" as const) }),
  fc.record({ op: fc.constant("late_payment_vs_payout_poll" as const), order }),
);
type Step = typeof Step extends fc.Arbitrary<infer S> ? S : never;

const Scenario = fc.record({
  buyers: fc.integer({ min: 1, max: 2 }),
  // Where each order starts: fewer steps are then spent bringing orders to where the races are.
  starts: fc.array(fc.constantFrom("unpaid" as const, "paid" as const, "delivered" as const), { minLength: 2, maxLength: 3 }),
  steps: fc.array(Step, { minLength: 1, maxLength: 8 }),
});
type Scenario = typeof Scenario extends fc.Arbitrary<infer S> ? S : never;

// ── One run ─────────────────────────────────────────────────────────────────────────────────────────────

type RunOrder = { id: number; reference: string; buyer: TestUser };

/** A run's members and orders, what each operation answered, and what went wrong. */
class Run {
  problems: string[] = [];
  trace: string[] = [];
  orders: RunOrder[] = [];
  buyers: TestUser[] = [];
  seller!: TestUser;
  private keys = 0;

  /** Calls an operation; an exception (a deadlock, a serialization failure, a bug) is a problem, not the test's end. */
  async attempt<T>(label: string, fn: () => Promise<Result<T>>): Promise<Result<T> | undefined> {
    try {
      const result = await fn();
      if (typeof result?.ok !== "boolean") this.problems.push(`${label} returned ${JSON.stringify(result)}, not a Result`);
      this.trace.push(
        `${label} → ${result.ok ? `ok ${JSON.stringify(result.value)}` : `${result.error}${"reason" in result ? ` ${String(result.reason)}` : ""}`}`,
      );
      return result;
    } catch (error) {
      this.problems.push(`${label} threw: ${(error as Error).message}`);
      this.trace.push(`${label} → threw`);
      return undefined;
    }
  }

  /** Two operations at once; at most `winners` of them may change anything (the other loses the race). */
  async race(label: string, a: () => Promise<Result<unknown>>, b: () => Promise<Result<unknown>>, won: (r: Result<unknown>) => boolean, winners = 1) {
    const results = await Promise.all([this.attempt(`${label} (a)`, a), this.attempt(`${label} (b)`, b)]);
    const count = results.filter((r) => r && r.ok && won(r)).length;
    if (count > winners) this.problems.push(`${label}: ${count} winners`);
  }

  async status(o: RunOrder): Promise<string> {
    return (await t.db("orders").where({ id: o.id }).first("status")).status;
  }

  /** Moves an order forwards (paid, then delivered) when it is not there yet; a finished order stays finished. */
  async bring(o: RunOrder, to: "paid" | "delivered") {
    if ((await this.status(o)) === "pending_payment") {
      await t.sandbox.decide(o.reference, "approve");
      await this.attempt(`settle ${o.id}`, () => settlePayment(system, { reference: o.reference }, opts(t)));
    }
    if (to === "delivered" && (await this.status(o)) === "in_progress") {
      await this.attempt(`deliver ${o.id}`, () => deliverOrder(memberActor(this.seller), { orderId: o.id, message: "The work" }, opts(t)));
    }
  }

  key() {
    this.keys += 1;
    return `withdrawal-${this.seller.id}-${this.keys}-${Date.now()}`;
  }
}

const changed = (r: Result<unknown>) => !(r.ok && (r.value as { outcome?: string })?.outcome === "requested");
const settled = (r: Result<unknown>) => r.ok && ["paid", "failed"].includes((r.value as { settlement?: string }).settlement ?? "");

async function setUp(run: Run, scenario: Scenario) {
  const { seller, buyer, gigId } = await createParties(t.db);
  run.seller = seller;
  run.buyers.push(buyer);
  while (run.buyers.length < scenario.buyers) run.buyers.push(await createUser(t.db, { role: "client" }));
  for (const [i, start] of scenario.starts.entries()) {
    const buyer = run.buyers[i % run.buyers.length]!;
    const placed = await placeTestOrder(t, buyer, gigId);
    const o = { id: placed.orderId, reference: placed.reference, buyer };
    run.orders.push(o);
    if (start !== "unpaid") await run.bring(o, start);
  }
}

async function perform(run: Run, step: Step) {
  const o = run.orders["order" in step ? step.order % run.orders.length : 0]!;
  const buyer = memberActor(o.buyer);
  const seller = memberActor(run.seller);
  const on = { orderId: o.id };
  const callback = () => paymentCallback(system, { provider: "sandbox", body: { reference: o.reference } }, opts(t));
  switch (step.op) {
    case "approve_twice":
      await run.bring(o, "delivered");
      return run.race(
        "approve twice",
        () => approveOrder(buyer, on, opts(t)),
        () => approveOrder(buyer, on, opts(t)),
        changed,
      );
    case "approve_vs_agree_cancel":
      await run.bring(o, "delivered");
      await run.attempt("seller asks to cancel", () => cancelOrder(seller, { ...on, reason: "I cannot finish" }, opts(t)));
      return run.race(
        "approve vs agree to cancel",
        () => approveOrder(buyer, on, opts(t)),
        () => cancelOrder(buyer, { ...on, reason: "" }, opts(t)),
        changed,
      );
    case "deliver_vs_cancel":
      await run.bring(o, "paid");
      if (step.late) {
        // A month on the order is long overdue: the buyer may cancel alone, as the seller delivers.
        return run.race(
          "deliver vs late cancel",
          () => deliverOrder(seller, { ...on, message: "Sorry it is late" }, opts(t)),
          () => cancelOrder(buyer, { ...on, reason: "Too late" }, { ...opts(t), now: later(30) }),
          changed,
        );
      }
      await run.attempt("buyer asks to cancel", () => cancelOrder(buyer, { ...on, reason: "Changed my mind" }, opts(t)));
      return run.race(
        "deliver vs agree to cancel",
        () => deliverOrder(seller, { ...on, message: "Done anyway" }, opts(t)),
        () => cancelOrder(seller, { ...on, reason: "" }, opts(t)),
        changed,
      );
    case "callback_twice":
      await t.sandbox.decide(o.reference, step.decision);
      return run.race("callback twice", callback, callback, settled);
    case "callback_vs_poll":
      await t.sandbox.decide(o.reference, step.decision);
      return run.race("callback vs poll", callback, () => settlePayment(system, { reference: o.reference }, opts(t)), settled);
    case "timer_vs_approve":
      await run.bring(o, "delivered");
      return run
        .race(
          "timer vs approve",
          () => runOrderTimers(system, { ...opts(t), now: later(4) }),
          () => approveOrder(buyer, on, opts(t)),
          // The timer's round may complete other runs' orders too, so whether it won is told by the order's timeline.
          () => true,
          2,
        )
        .then(async () => {
          const completions = await t.db("order_events").where({ order_id: o.id }).whereIn("kind", ["approved", "auto_completed"]).pluck("kind");
          if (completions.length > 1) run.problems.push(`timer vs approve: order ${o.id} completed ${completions.length} times`);
        });
    case "withdraw_twice": {
      const { availableUgx } = await memberBalances(t.db, run.seller.id);
      const amountUgx = Math.max(5_000, Math.floor((availableUgx * step.percent) / 100));
      const first = run.key();
      const second = step.sameKey ? first : run.key();
      await run.race(
        "two withdrawals",
        () => requestWithdrawal(seller, { amountUgx, requestKey: first }, opts(t)),
        () => requestWithdrawal(seller, { amountUgx, requestKey: second }, opts(t)),
        () => true,
        2,
      );
      const payouts = await t.db("payouts").where({ user_id: run.seller.id, kind: "withdrawal" }).whereIn("request_key", [first, second]).pluck("id");
      if (step.sameKey && payouts.length > 1) run.problems.push(`two withdrawals with one request key made ${payouts.length} payouts`);
      return;
    }
    case "revision":
      await run.bring(o, "delivered");
      await run.attempt("request revision", () => requestRevision(buyer, { ...on, reason: "Bigger letters" }, opts(t)));
      return;
    case "dispute_and_resolve": {
      await run.bring(o, "paid");
      await run.attempt("open dispute", () => openDispute(step.by === "buyer" ? buyer : seller, { ...on, reason: "We disagree" }, opts(t)));
      // The seller may still deliver during a dispute: the admin's decision and a delivery meet.
      const decide = () => resolveDispute(memberActor(t.admin), { ...on, resolution: step.resolution, note: "Decided" }, opts(t));
      return run.race(
        "resolve vs deliver",
        decide,
        () => deliverOrder(seller, { ...on, message: "Here it is" }, opts(t)),
        () => true,
        2,
      );
    }
    case "clearance":
      await run.attempt("clearance", () => runOrderTimers(system, { ...opts(t), now: later(15) }));
      return;
    case "late_payment_vs_payout_poll":
      // The buyer gives up an unpaid order, then approves on the phone after all: the late payment is taken and
      // refunded at once, while the worker settles payouts (this buyer's other refunds among them).
      if ((await run.status(o)) === "pending_payment") await run.attempt("abandon", () => cancelOrder(buyer, { ...on, reason: "" }, opts(t)));
      await t.sandbox.decide(o.reference, "approve");
      return run.race(
        "late payment vs payout poll",
        callback,
        () => pollPayouts(system, opts(t)),
        () => true,
        2,
      );
  }
}

async function check(scenario: Scenario) {
  const run = new Run();
  await setUp(run, scenario);
  for (const step of scenario.steps) await perform(run, step);
  // Refunds and withdrawals still in transit are settled too, so the payout journals are part of what is checked.
  await run.attempt("payout poll", () => pollPayouts(system, opts(t)));
  const problems = [
    ...run.problems,
    ...(await ledgerProblems(t.db, { orderIds: run.orders.map((o) => o.id), userIds: [run.seller.id, ...run.buyers.map((b) => b.id)] })),
  ];
  if (problems.length) throw new Error(`${problems.join("\n")}\n\nwhat each operation answered:\n${run.trace.join("\n")}`);
}

describe("concurrent order operations", () => {
  it("keep every order and the ledger consistent, whatever wins each race", async () => {
    const seed = process.env.ORDER_PROPERTY_SEED ? Number(process.env.ORDER_PROPERTY_SEED) : Date.now() ^ (Math.random() * 0x100000000);
    const path = process.env.ORDER_PROPERTY_PATH;
    await fc.assert(fc.asyncProperty(Scenario, check), {
      numRuns: Number(process.env.ORDER_PROPERTY_RUNS ?? 40),
      seed,
      path,
      // Shrinking a failure replays whole scenarios against the database: stop it in time for the test to report.
      skipAllAfterTimeLimit: 100_000,
    });
  }, 150_000);
});

describe("one interleaving, held in place", () => {
  /** Waits until `n` of this database's transactions are waiting for a lock. */
  async function waitersOnLocks(n: number) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { rows } = await t.db.raw("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
      if (rows[0].n >= n) return;
      if (Date.now() > deadline) throw new Error(`fewer than ${n} transactions came to wait on a lock`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it("a late payment, taken and refunded, while the same buyer's earlier refund is settled: both settle, neither throws", async () => {
    const { seller, buyer, gigId } = await createParties(t.db);
    // One order paid, then cancelled a month late: its refund is on its way to the buyer's phone.
    const first = await paidTestOrder(t, buyer, gigId);
    expect(await cancelOrder(memberActor(buyer), { orderId: first.orderId, reason: "Too late" }, { ...opts(t), now: later(30) })).toMatchObject({
      ok: true,
      value: { outcome: "cancelled" },
    });
    const refund = await t.db("payouts").where({ order_id: first.orderId, kind: "refund" }).first("reference");
    // Another order given up unpaid, then approved on the phone after all: a late payment, to take and refund.
    const late = await placeTestOrder(t, buyer, gigId);
    expect((await cancelOrder(memberActor(buyer), { orderId: late.orderId, reason: "" }, opts(t))).ok).toBe(true);
    expect(await t.sandbox.decide(late.reference, "approve")).toBe(true);

    // Our own transaction holds the two accounts both settlements need (the provider's clearing account and the
    // buyer's payouts in transit) until both are waiting, then lets them go at the same moment: each then takes
    // the locks in the order it takes them on its own, and a settlement that takes them in the opposite order
    // to the other deadlocks (Postgres aborts one of them).
    const gate = await t.db.transaction();
    try {
      await gate("ledger_accounts")
        .whereIn("code", ["provider_clearing", `payout_in_transit:user:${buyer.id}`])
        .forUpdate()
        .select("id");
      const settling = Promise.allSettled([
        settlePayment(system, { reference: late.reference }, opts(t)),
        settlePayout(system, { reference: refund.reference }, opts(t)),
      ]);
      await waitersOnLocks(2);
      await gate.commit();
      const [payment, payout] = await settling;
      expect(payment.status === "rejected" ? String(payment.reason) : payment.value).toMatchObject({ ok: true, value: { settlement: "failed" } });
      expect(payout.status === "rejected" ? String(payout.reason) : payout.value).toMatchObject({ ok: true, value: { settlement: "paid" } });
    } finally {
      if (!gate.isCompleted()) await gate.rollback();
    }
    expect(await t.db("orders").where({ id: late.orderId }).first("status")).toMatchObject({ status: "cancelled" });
    expect(await t.db("payouts").where({ order_id: late.orderId, kind: "refund" }).pluck("amount_ugx")).toHaveLength(1);
    expect(await ledgerProblems(t.db, { orderIds: [first.orderId, late.orderId], userIds: [seller.id, buyer.id] })).toEqual([]);
  });

  it("the invariants name a release posted twice (the checker can fail)", async () => {
    const { seller, buyer, gigId } = await createParties(t.db);
    const { orderId } = await completedTestOrder(t, buyer, seller, gigId);
    const scope = { orderIds: [orderId], userIds: [seller.id, buyer.id] };
    expect(await ledgerProblems(t.db, scope)).toEqual([]);
    // A second release, written around the ledger module (which would refuse it), as a bug would.
    await t.db.transaction(async (trx) => {
      const [journal] = await trx("ledger_journals")
        .insert({ idempotency_key: `forged:${orderId}`, kind: "escrow_released", order_id: orderId })
        .returning("id");
      const account = (code: string) =>
        trx("ledger_accounts")
          .where({ code })
          .first("id")
          .then((r) => r.id);
      await trx("ledger_entries").insert([
        { journal_id: journal.id, account_id: await account(`escrow:order:${orderId}`), amount_ugx: -1_000 },
        { journal_id: journal.id, account_id: await account(`seller_pending:user:${seller.id}`), amount_ugx: 1_000 },
      ]);
    });
    const problems = await ledgerProblems(t.db, scope);
    expect(problems).toContain(`order ${orderId} has 2 escrow_released journals`);
    expect(problems).toContain(`account escrow:order:${orderId} is at -1000`);
    expect(problems).toContain(`order ${orderId} (completed): its escrow was emptied more than once (released, refunded or split)`);
    expect(problems).toContain(`order ${orderId} (completed): captured 1, released or split 2, refunded 0 (want 1, 1, 0)`);
  });
});
