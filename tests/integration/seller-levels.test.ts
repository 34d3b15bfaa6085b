/**
 * Seller levels from real work (ADR 049), against real Postgres and Redis: the figures read from orders, the
 * ledger, reviews, disputes and conversations; each criterion withholding a level; a rise and a drop each told
 * to the seller; the recomputation queued by completions and resolved disputes and carried out by the effects
 * runner; a recomputation racing an order's completion; and the daily round.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { sellerFigures } from "~/models/seller-stats.server";
import { resolveDispute } from "~/operations/disputes.server";
import { approveOrder, deliverOrder, openDispute } from "~/operations/orders.server";
import { recomputeAllLevels, recomputeSellerLevel } from "~/operations/seller-levels.server";
import { parseEnv } from "~/server/env.server";
import { startEffects } from "../../worker/effects-runner.server";
import { LEVELS_EVERY_MS, startLevels } from "../../worker/levels-job.server";
import { createGig, createReview, createUser, type TestUser } from "../support/factories";
import { DAY_MS, expectLedgerSound, HOUR_MS } from "../support/order-checks";
import { completedTestOrder, memberActor, opts, orderTestContext, paidTestOrder, system, visitor } from "../support/orders";

/** UGX 150,000 a Basic order: the seller nets 120,000, so ten orders earn 1,200,000 (Level One asks 1,000,000). */
const gig = { packages: { basic: { priceUgx: 150_000, deliveryDays: 3, revisions: 1 } } };
const t = orderTestContext("levels", { admin: { name: "Levels Admin" } });
const o = () => opts(t);

let made = 0;
/** A seller of their own with a gig, and buyers enough for their orders (each buyer's checkouts are rate limited). */
async function newSeller() {
  const n = ++made;
  const seller = await createUser(t.db, { role: "freelancer", name: `Level Seller ${n}` });
  await t.db("users").where({ id: seller.id }).update({ mobile_money_number: "+256701234567" });
  const { id: gigId } = await createGig(t.db, { ...gig, sellerId: seller.id });
  const buyers = await Promise.all([1, 2, 3].map((b) => createUser(t.db, { role: "client", name: `Level Buyer ${n} ${b}` })));
  return { seller, gigId, buyers };
}

async function completeOrders(s: Awaited<ReturnType<typeof newSeller>>, count: number) {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) ids.push((await completedTestOrder(t, s.buyers[i % s.buyers.length]!, s.seller, s.gigId)).orderId);
  return ids;
}

const joinedDaysAgo = (seller: TestUser, days: number) =>
  t
    .db("users")
    .where({ id: seller.id })
    .update({ created_at: new Date(Date.now() - days * DAY_MS) });
const stored = async (seller: TestUser) =>
  (await t.db("users").where({ id: seller.id }).first("level", "response_time_hours")) as { level: string; response_time_hours: number | null };
const recompute = (seller: TestUser, now?: Date) => recomputeSellerLevel(system, { userId: seller.id, now }, { db: t.db });
const levelNotices = (seller: TestUser) =>
  t.db("notifications").where({ user_id: seller.id, kind: "level_changed" }).orderBy("id").select("body_key", "body_values", "body");

/** A conversation a buyer starts `agoMs` ago, answered by the seller `replyAfterMs` later (null: not answered). */
async function buyerConversation(seller: TestUser, agoMs: number, replyAfterMs: number | null) {
  const buyer = await createUser(t.db, { role: "client" });
  const id = `conv_${randomBytes(8).toString("hex")}`;
  const started = new Date(Date.now() - agoMs);
  await t.db("conversations").insert({ id, pair_key: `${buyer.id}:${seller.id}`, created_by: buyer.id, created_at: started });
  await t.db("conversation_participants").insert([
    { conversation_id: id, user_id: buyer.id },
    { conversation_id: id, user_id: seller.id },
  ]);
  await t.db("messages").insert({ conversation_id: id, sender_id: buyer.id, body: "Hello, are you free this week?", created_at: started });
  if (replyAfterMs !== null) {
    await t.db("messages").insert({ conversation_id: id, sender_id: seller.id, body: "Yes, I am.", created_at: new Date(started.getTime() + replyAfterMs) });
  }
}

describe("who may recompute", () => {
  it("only the platform; a client keeps `member` and a seller with nothing done stays New Seller, untold", async () => {
    const { seller } = await newSeller();
    const client = await createUser(t.db, { role: "client" });
    expect(await recomputeSellerLevel(visitor, { userId: seller.id }, { db: t.db })).toMatchObject({ ok: false, error: "forbidden" });
    expect(await recomputeSellerLevel(memberActor(seller), { userId: seller.id }, { db: t.db })).toMatchObject({ ok: false, error: "forbidden" });
    expect(await recomputeSellerLevel(system, { userId: 987_654 }, { db: t.db })).toMatchObject({ ok: false, error: "not_found" });
    expect(await recompute(client)).toEqual({ ok: true, value: { level: "member", previous: "member", responseTimeHours: null, changed: false } });
    expect(await recompute(seller)).toMatchObject({ ok: true, value: { level: "new", changed: false } });
    expect(await stored(client)).toMatchObject({ level: "member" });
    expect(await levelNotices(seller)).toEqual([]);
  });
});

describe("a seller's figures and level", () => {
  it("reads each criterion from what happened, rises with ten orders and two months, and drops for each criterion missed", async () => {
    const s = await newSeller();
    const orders = await completeOrders(s, 10);
    const figures = await sellerFigures(t.db, s.seller.id, new Date());
    expect(figures).toMatchObject({
      accountAgeDays: 0,
      completedOrders: 10,
      earnedUgx: 1_200_000,
      rating60d: null,
      onTimeRate: 1,
      responseRate: null,
      completionRate: 1,
      replyHours: [],
    });
    // Everything but the account's age.
    expect(await recompute(s.seller)).toMatchObject({ ok: true, value: { level: "new", changed: false } });
    await joinedDaysAgo(s.seller, 61);
    expect(await recompute(s.seller)).toMatchObject({ ok: true, value: { level: "level_1", previous: "new", changed: true } });
    expect(await stored(s.seller)).toMatchObject({ level: "level_1" });
    expect(await levelNotices(s.seller)).toEqual([
      { body_key: "notify.levels.rose", body_values: { level: "level_1" }, body: "You are now Level 1 on Soko: well done!" },
    ]);
    expect(await t.db("activity").where({ user_id: s.seller.id, kind: "level_changed" }).pluck("details")).toEqual([{ from: "new", to: "level_1" }]);
    // The same figures again change nothing and say nothing.
    expect(await recompute(s.seller)).toMatchObject({ ok: true, value: { level: "level_1", changed: false } });
    expect(await levelNotices(s.seller)).toHaveLength(1);

    // A rating below 4.7 over the last 60 days drops the level; one older than that no longer counts.
    const review = await createReview(t.db, { gigId: s.gigId, reviewerId: s.buyers[0]!.id, rating: 3 });
    expect(await recompute(s.seller)).toMatchObject({ ok: true, value: { level: "new", previous: "level_1", changed: true } });
    expect((await levelNotices(s.seller)).at(-1)).toMatchObject({ body_key: "notify.levels.dropped", body_values: { level: "new" } });
    await t
      .db("reviews")
      .where({ id: review.id })
      .update({ created_at: new Date(Date.now() - 61 * DAY_MS) });
    expect(await recompute(s.seller)).toMatchObject({ ok: true, value: { level: "level_1", changed: true } });

    // Two of ten delivered after their due time: 80% on time.
    const late = orders.slice(0, 2);
    await t
      .db("deliveries")
      .whereIn("order_id", late)
      .update({ created_at: new Date(Date.now() + 4 * DAY_MS) });
    expect((await sellerFigures(t.db, s.seller.id, new Date()))!.onTimeRate).toBeCloseTo(0.8);
    expect(await recompute(s.seller)).toMatchObject({ ok: true, value: { level: "new" } });
    await t.db("deliveries").whereIn("order_id", late).update({ created_at: new Date() });
    expect(await recompute(s.seller)).toMatchObject({ ok: true, value: { level: "level_1" } });

    // Buyers left unanswered for more than a day: the response rate falls and no response time is shown.
    for (let i = 0; i < 3; i++) await buyerConversation(s.seller, 2 * DAY_MS, null);
    expect(await recompute(s.seller)).toMatchObject({ ok: true, value: { level: "new", responseTimeHours: null } });
    // Seven quick answers (30 minutes): 7 of 10 answered within a day is still under 90%, but the median says "within 1 hour".
    for (let i = 0; i < 7; i++) await buyerConversation(s.seller, 3 * DAY_MS, 30 * 60_000);
    expect((await sellerFigures(t.db, s.seller.id, new Date()))!.responseRate).toBeCloseTo(0.7);
    expect(await recompute(s.seller)).toMatchObject({ ok: true, value: { level: "new", responseTimeHours: 1 } });
    expect(await stored(s.seller)).toEqual({ level: "new", response_time_hours: 1 });
    // A conversation not yet a day old and unanswered is not counted against them; 20 more answered lift the rate to 90%.
    await buyerConversation(s.seller, 2 * HOUR_MS, null);
    for (let i = 0; i < 20; i++) await buyerConversation(s.seller, 4 * DAY_MS, 3 * HOUR_MS);
    expect((await sellerFigures(t.db, s.seller.id, new Date()))!.responseRate).toBeCloseTo(27 / 30);
    expect(await recompute(s.seller)).toMatchObject({ ok: true, value: { level: "level_1", responseTimeHours: 3 } });
  });

  it("counts a dispute lost or an order cancelled after payment against completion, and a resolved dispute queues a recomputation", async () => {
    const s = await newSeller();
    await completeOrders(s, 10);
    await joinedDaysAgo(s.seller, 61);
    expect(await recompute(s.seller)).toMatchObject({ ok: true, value: { level: "level_1" } });
    const admin = memberActor(t.admin!);
    for (const resolution of ["refund", "split"] as const) {
      const { orderId } = await paidTestOrder(t, s.buyers[1]!, s.gigId);
      expect(await deliverOrder(memberActor(s.seller), { orderId, message: "Here it is" }, o())).toMatchObject({ ok: true });
      expect(await openDispute(memberActor(s.buyers[1]!), { orderId, reason: "Not what we agreed" }, o())).toMatchObject({ ok: true });
      const note = "The work did not match the brief";
      expect(await resolveDispute(admin, { orderId, resolution, refundUgx: resolution === "split" ? 50_000 : undefined, note }, o())).toMatchObject({
        ok: true,
      });
      const to = resolution === "refund" ? "cancelled" : "completed";
      expect(
        await t
          .db("effects")
          .where({ kind: "recompute_level", dedupe_key: `recompute_level:${s.seller.id}:order:${orderId}:${to}` })
          .pluck("payload"),
      ).toEqual([{ userId: s.seller.id }]);
    }
    // 10 kept of 12 closed: 83%. The queued recomputations, carried out by the worker, store the drop.
    const figures = (await sellerFigures(t.db, s.seller.id, new Date()))!;
    expect(figures).toMatchObject({ completedOrders: 11 });
    expect(figures.completionRate).toBeCloseTo(10 / 12);
    const worker = startEffects(parseEnv({ ...process.env, DATABASE_URL: t.url }), { db: t.db, pollMs: 25 });
    try {
      await expect.poll(async () => (await stored(s.seller)).level, { timeout: 10_000 }).toBe("new");
      await expect
        .poll(async () => (await t.db("effects").where({ kind: "recompute_level" }).whereNull("done_at").pluck("id")).length, { timeout: 10_000 })
        .toBe(0);
    } finally {
      await worker.close();
    }
    expect((await levelNotices(s.seller)).map((n) => n.body_key)).toEqual(["notify.levels.rose", "notify.levels.dropped"]);
    await expectLedgerSound(t.db);
  });
});

describe("racing an order's completion", () => {
  it("a recomputation and the tenth order's approval at once end with the level the committed orders give", async () => {
    for (let round = 0; round < 3; round++) {
      const s = await newSeller();
      await completeOrders(s, 9);
      await joinedDaysAgo(s.seller, 61);
      const { orderId } = await paidTestOrder(t, s.buyers[round % 3]!, s.gigId);
      expect(await deliverOrder(memberActor(s.seller), { orderId, message: "Final files" }, o())).toMatchObject({ ok: true });
      const [recomputed, approved] = await Promise.all([recompute(s.seller), approveOrder(memberActor(s.buyers[round % 3]!), { orderId }, o())]);
      expect(approved).toMatchObject({ ok: true });
      expect(recomputed).toMatchObject({ ok: true });
      // Whichever went first, the approval's own recomputation runs after it committed.
      const worker = startEffects(parseEnv({ ...process.env, DATABASE_URL: t.url }), { db: t.db, pollMs: 25 });
      try {
        await expect.poll(async () => (await stored(s.seller)).level, { timeout: 10_000 }).toBe("level_1");
      } finally {
        await worker.close();
      }
      expect((await sellerFigures(t.db, s.seller.id, new Date()))!.completedOrders).toBe(10);
      expect((await levelNotices(s.seller)).map((n) => n.body_values)).toEqual([{ level: "level_1" }]);
    }
  });
});

describe("the daily round", () => {
  it("measures every seller as of its clock, and is registered once as a daily job whose first round runs at once", async () => {
    const s = await newSeller();
    await completeOrders(s, 10);
    // Sixty-one days on: the account has come of age; the orders are older than the rates' window, which then count as met.
    const later = new Date(Date.now() + 61 * DAY_MS);
    const round = await recomputeAllLevels(system, { now: later }, { db: t.db });
    expect(round).toMatchObject({ ok: true });
    expect(round.ok && round.value.changed).toBeGreaterThanOrEqual(1);
    expect(await stored(s.seller)).toMatchObject({ level: "level_1" });
    expect(await recomputeAllLevels(memberActor(t.admin!), {}, { db: t.db })).toMatchObject({ ok: false, error: "forbidden" });

    // The worker's job: as of today the account is young again, so its first round drops the level.
    const prefix = `levels_${process.pid}_${Date.now()}`;
    const redis = new Redis(process.env.REDIS_URL ?? parseEnv(process.env).REDIS_URL, { maxRetriesPerRequest: null });
    const job = await startLevels(parseEnv({ ...process.env, QUEUE_PREFIX: prefix, DATABASE_URL: t.url }), redis, { db: t.db });
    try {
      expect((await job.queue.getJobSchedulers()).map((j) => j.every)).toEqual([LEVELS_EVERY_MS]);
      await expect.poll(async () => (await stored(s.seller)).level, { timeout: 20_000 }).toBe("new");
    } finally {
      await job.queue.obliterate({ force: true });
      await job.close();
      redis.disconnect();
    }
  });
});
