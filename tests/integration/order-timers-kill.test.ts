/**
 * The worker's order round (auto-completion of deliveries nobody answered for 3 days, clearance of earnings 14
 * days after completion) killed with SIGKILL in the middle, then run again; and two rounds at once. Each due
 * order must complete exactly once and clear exactly once: nothing lost to the kill, nothing doubled by the
 * round that follows it or runs beside it. The round runs in a child process (tests/support/order-round-child.ts)
 * against this file's database; the orders are made through the operations, then their clocks moved back
 * with SQL (delivered 4 days ago, completed 15 days ago), as if the worker had been away.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memberBalances } from "~/models/ledger.server";
import { deliverOrder } from "~/operations/orders.server";
import { runOrderRound } from "../../worker/order-timers-job.server";
import { startTsx, waitUntil, type Child } from "../../scripts/lib/servers";
import { createGig, createUser, type TestUser } from "../support/factories";
import { ledgerProblems } from "../support/order-checks";
import { completedTestOrder, memberActor, opts, orderTestContext, paidTestOrder } from "../support/orders";

const PRICE_UGX = 100_000;
const EARNED_UGX = 80_000; // the price less the seller's 20%

const t = orderTestContext("ordkill");
let buyers: TestUser[] = [];
let turn = 0;
const children: Child[] = [];

beforeAll(async () => {
  // Checkout allows a member 30 orders an hour: enough buyers for every order of this file.
  buyers = [];
  for (let i = 0; i < 8; i++) buyers.push(await createUser(t.db, { role: "client" }));
}, 60_000);
afterAll(async () => {
  for (const child of children) {
    if (!child.exited() && child.child.pid) process.kill(-child.child.pid, "SIGKILL");
  }
});

type Seller = { user: TestUser; gigId: number };

async function seller(): Promise<Seller> {
  const user = await createUser(t.db, { role: "freelancer" });
  const gig = await createGig(t.db, { sellerId: user.id, packages: { basic: { priceUgx: PRICE_UGX, deliveryDays: 3, revisions: 1 } } });
  return { user, gigId: gig.id };
}

/**
 * Orders of the seller made through the operations, four at a time: `delivered` delivered and not answered,
 * `completed` approved by their buyers. Then the clock is moved back: delivered 4 days ago, completed 15.
 */
async function dueOrders(s: Seller, { delivered, completed }: { delivered: number; completed: number }) {
  const buyer = () => buyers[turn++ % buyers.length]!;
  const make = async (kind: "delivered" | "completed") => {
    if (kind === "completed") return (await completedTestOrder(t, buyer(), s.user, s.gigId)).orderId;
    const { orderId } = await paidTestOrder(t, buyer(), s.gigId);
    expect((await deliverOrder(memberActor(s.user), { orderId, message: "The logo" }, opts(t))).ok).toBe(true);
    return orderId;
  };
  const kinds = [...Array(delivered).fill("delivered"), ...Array(completed).fill("completed")] as ("delivered" | "completed")[];
  const ids: Record<"delivered" | "completed", number[]> = { delivered: [], completed: [] };
  for (let i = 0; i < kinds.length; i += 4) {
    const batch = kinds.slice(i, i + 4);
    const made = await Promise.all(batch.map(make));
    batch.forEach((kind, j) => ids[kind].push(made[j]!));
  }
  await t
    .db("orders")
    .whereIn("id", ids.delivered)
    .update({ delivered_at: t.db.raw("now() - interval '4 days'") });
  await t
    .db("orders")
    .whereIn("id", ids.completed)
    .update({ completed_at: t.db.raw("now() - interval '15 days'") });
  return ids;
}

/** How many of these orders the timers have done so far: completions and clearances, as their timelines say. */
async function progress(ids: number[]) {
  const rows = await t
    .db("order_events")
    .whereIn("order_id", ids)
    .whereIn("kind", ["auto_completed", "cleared"])
    .groupBy("kind")
    .select("kind", t.db.raw("count(*)::int as n"));
  const by = Object.fromEntries(rows.map((r) => [r.kind, r.n as number]));
  return { completed: by.auto_completed ?? 0, cleared: by.cleared ?? 0 };
}

/** What each order has, as stored: every due order completed once and cleared once, each with its one journal, event and notifications. */
async function outcome(ids: number[]) {
  const { rows } = await t.db.raw(
    `SELECT o.id, o.status, o.cleared_at IS NOT NULL AS cleared,
      (SELECT count(*) FROM ledger_journals j WHERE j.order_id = o.id AND j.kind = 'escrow_released')::int AS released,
      (SELECT count(*) FROM ledger_journals j WHERE j.order_id = o.id AND j.kind = 'earnings_cleared')::int AS cleared_journals,
      (SELECT count(*) FROM order_events v WHERE v.order_id = o.id AND v.kind = 'auto_completed')::int AS auto_completed,
      (SELECT count(*) FROM order_events v WHERE v.order_id = o.id AND v.kind = 'cleared')::int AS cleared_events,
      (SELECT count(*) FROM notifications n WHERE n.order_id = o.id AND n.kind = 'order_completed')::int AS completed_notices,
      (SELECT count(*) FROM notifications n WHERE n.order_id = o.id AND n.kind = 'earnings_cleared')::int AS cleared_notices
     FROM orders o WHERE o.id = ANY(?::bigint[]) ORDER BY o.id`,
    [ids],
  );
  return rows;
}

/** The auto-completed orders: completed once by the timer (seller and buyer told once each), not yet cleared. */
const autoCompleted = (id: number) => ({
  id,
  status: "completed",
  cleared: false,
  released: 1,
  cleared_journals: 0,
  auto_completed: 1,
  cleared_events: 0,
  completed_notices: 2,
  cleared_notices: 0,
});
/** The orders approved 15 days ago: released once on approval, cleared once by the timer. */
const clearedOnce = (id: number) => ({
  id,
  status: "completed",
  cleared: true,
  released: 1,
  cleared_journals: 1,
  auto_completed: 0,
  cleared_events: 1,
  completed_notices: 1,
  cleared_notices: 1,
});

function roundChild(env: Record<string, string> = {}) {
  // In a process group of its own, so that SIGKILL to the group reaches node under tsx too.
  const child = startTsx(
    "order round",
    ["tests/support/order-round-child.ts"],
    { DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, ...env },
    { processGroup: true },
  );
  children.push(child);
  return child;
}

/** What a child's round reported it did. */
function reported(child: Child) {
  const line = child
    .output()
    .split("\n")
    .find((l) => l.startsWith("round "));
  if (!line) throw new Error(`no round report:\n${child.output()}`);
  return JSON.parse(line.slice("round ".length)) as { completed: number; cleared: number };
}

/** Transactions of this database that have written (they hold a transaction id) and now wait for a lock. */
async function writersWaitingOnLocks(): Promise<number> {
  const { rows } = await t.db.raw(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND backend_xid IS NOT NULL",
  );
  return rows[0].n;
}

describe("the order round", () => {
  it("killed with SIGKILL in the middle loses nothing, and the next round doubles nothing", async () => {
    // Two sellers; all of A's orders come before B's, and a round takes due orders in id order.
    const a = await seller();
    const b = await seller();
    const ofA = await dueOrders(a, { delivered: 20, completed: 20 });
    const ofB = await dueOrders(b, { delivered: 20, completed: 20 });
    const delivered = [...ofA.delivered, ...ofB.delivered];
    const completed = [...ofA.completed, ...ofB.completed];
    const all = [...delivered, ...completed];

    // The round is stopped in the middle of a transaction: our own transaction holds seller B's pending
    // balance, so the round completes A's 20 deliveries, then waits inside B's first completion, with the
    // order already moved and its events written but not committed. There the worker dies.
    const gate = await t.db.transaction();
    let child: Child;
    try {
      await gate("ledger_accounts")
        .where({ code: `seller_pending:user:${b.user.id}` })
        .forUpdate()
        .select("id");
      child = roundChild();
      await waitUntil(child, async () => (await progress(all)).completed === 20 && (await writersWaitingOnLocks()) >= 1, "a round half done", 40_000, 20);
      process.kill(-child.child.pid!, "SIGKILL");
      expect(await child.exit).toBeNull();
      expect(child.child.signalCode).toBe("SIGKILL");
    } finally {
      await gate.rollback();
    }
    // Some but not all: A's deliveries completed, B's not, nothing cleared yet.
    expect(await progress(all)).toEqual({ completed: 20, cleared: 0 });
    expect(await t.db("orders").whereIn("id", ofB.delivered).pluck("status")).toEqual(Array(20).fill("delivered"));

    // The next round (the worker restarted) does the rest, and only the rest.
    expect(await runOrderRound({ db: t.db, providers: t.providers })).toMatchObject({ completed: 20, cleared: 40 });
    expect(await outcome(all)).toEqual([...delivered.map(autoCompleted), ...completed.map(clearedOnce)].sort((x, y) => x.id - y.id));
    for (const s of [a, b]) {
      expect(await memberBalances(t.db, s.user.id)).toMatchObject({ pendingUgx: 20 * EARNED_UGX, availableUgx: 20 * EARNED_UGX });
    }
    // And a round run again after everything is done moves nothing.
    expect(await runOrderRound({ db: t.db, providers: t.providers })).toMatchObject({ completed: 0, cleared: 0 });
    expect(await ledgerProblems(t.db)).toEqual([]);
  }, 60_000);

  it("run twice at once, in two processes, completes and clears each order once", async () => {
    const s = await seller();
    const { delivered, completed } = await dueOrders(s, { delivered: 25, completed: 25 });
    const all = [...delivered, ...completed];
    // Both children connect, then start their rounds together when the gate file appears.
    const gateFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "soko-round-")), "go");
    const first = roundChild({ ORDER_ROUND_GATE: gateFile });
    const second = roundChild({ ORDER_ROUND_GATE: gateFile });
    try {
      await waitUntil(first, () => first.output().includes("ready"), "the first round's connection");
      await waitUntil(second, () => second.output().includes("ready"), "the second round's connection");
      fs.writeFileSync(gateFile, "go");
      expect(await first.exit).toBe(0);
      expect(await second.exit).toBe(0);
    } finally {
      fs.rmSync(path.dirname(gateFile), { recursive: true, force: true });
    }
    // Between them the two rounds did each order once: their counts add up to the orders, no more.
    const one = reported(first);
    const two = reported(second);
    expect({ completed: one.completed + two.completed, cleared: one.cleared + two.cleared }).toEqual({ completed: 25, cleared: 25 });
    expect(await outcome(all)).toEqual([...delivered.map(autoCompleted), ...completed.map(clearedOnce)].sort((x, y) => x.id - y.id));
    expect(await memberBalances(t.db, s.user.id)).toMatchObject({ pendingUgx: 25 * EARNED_UGX, availableUgx: 25 * EARNED_UGX });
    expect(await ledgerProblems(t.db)).toEqual([]);
  }, 60_000);
});
