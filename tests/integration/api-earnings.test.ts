/**
 * The JSON API's Earnings calls (ADR 041), against the built server with the sandbox provider: the balance as
 * the dashboard shows it (available, pending clearance, in escrow, on its way), a withdrawal as the dashboard's
 * form makes one (refusals beside `amountUgx` or as 409, nothing moved; one payout per Idempotency-Key), and
 * the member's own payouts, paged, each answer checked against the OpenAPI document.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { memberBalances } from "~/models/ledger.server";
import { insertPayout, settlePayoutRow } from "~/models/payment.server";
import { cancelOrder, runOrderTimers } from "~/operations/orders.server";
import { failureWords } from "~/payments/failure-words.server";
import { apiClient, createAppToken } from "../support/api";
import { createUser } from "../support/factories";
import { DAY_MS, rowCount } from "../support/order-checks";
import { completedTestOrder, memberActor, opts, orderTestContext, paidTestOrder, PAYOUT_NUMBER, system } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";
import { words } from "../support/words";

/**
 * The seller has UGX 80,000 available (an order of UGX 100,000, less the 20% fee, completed and cleared) and
 * UGX 80,000 pending clearance (another completed, not yet cleared), and one paid order of UGX 100,000 in escrow.
 */
const t = orderTestContext("apiearnings", { parties: { seller: { name: "Earning Seller" }, buyer: { name: "Earning Buyer" } } });
let server: TestServer;
let api: ReturnType<typeof apiClient>;
const tokens = { buyer: "", seller: "" };

beforeAll(async () => {
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, PAYMENTS_SANDBOX: "1", TRUST_PROXY: "loopback" });
  api = apiClient(server.baseUrl);
  tokens.buyer = await createAppToken(t.db, t.buyer.id);
  tokens.seller = await createAppToken(t.db, t.seller.id);
  await completedTestOrder(t, t.buyer, t.seller, t.gigId);
  await runOrderTimers(system, { ...opts(t), now: () => new Date(Date.now() + 15 * DAY_MS) });
  await completedTestOrder(t, t.buyer, t.seller, t.gigId);
  await paidTestOrder(t, t.buyer, t.gigId);
  expect(await memberBalances(t.db, t.seller.id)).toMatchObject({ pendingUgx: 80_000, availableUgx: 80_000 });
});
afterAll(async () => {
  await server?.stop();
});

/** Each test's calls come from their own address, so the per-address limits of one test never meet another's. */
let address = 0;
beforeEach(() => void address++);
const from = () => ({ "X-Forwarded-For": `198.51.100.${address}` });
const as = (who: keyof typeof tokens, body?: unknown, headers: Record<string, string> = {}) => ({
  token: tokens[who],
  body,
  headers: { ...from(), ...headers },
});

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const payoutsOf = (userId: number) => t.db("payouts").where({ user_id: userId, kind: "withdrawal" }).orderBy("id");

describe("GET /balance", () => {
  it("answers the seller's money as Money, with the payout number masked", async () => {
    const answer = await api.call("get", "/balance", "/balance", as("seller"));
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({
      available: { ugx: 80_000, usd: 21.62 },
      pendingClearance: { ugx: 80_000, usd: 21.62 },
      inEscrow: { ugx: 100_000, usd: 27.03 },
      inTransit: { ugx: 0, usd: 0 },
      refundDue: { ugx: 0, usd: 0 },
      withdrawal: { number: "****4567", heldUntil: null, minimum: { ugx: 5_000, usd: 1.35 } },
    });
    expect(JSON.stringify(answer.body)).not.toContain("701234567");
  });

  it("is all zeros for a buyer without earnings, and 401 without a token", async () => {
    const answer = await api.call("get", "/balance", "/balance", as("buyer"));
    expect(answer.body.data).toMatchObject({ available: { ugx: 0 }, pendingClearance: { ugx: 0 }, inEscrow: { ugx: 0 }, withdrawal: { number: null } });
    expect((await api.call("get", "/balance", "/balance", { headers: from() })).status).toBe(401);
  });
});

describe("POST /payouts", () => {
  it("refuses more than is available and less than the minimum beside amountUgx, moving nothing", async () => {
    const above = await api.call("post", "/payouts", "/payouts", as("seller", { amountUgx: 80_001 }));
    expect(above.status).toBe(400);
    expect(above.body.issues.amountUgx[0]).toMatchObject({ code: "payout.above_available", message: "You can withdraw at most UGX 80,000." });
    const below = await api.call("post", "/payouts", "/payouts", as("seller", { amountUgx: 4_999 }));
    expect(below.body.issues.amountUgx[0].code).toBe("payout.below_minimum");
    const fraction = await api.call("post", "/payouts", "/payouts", as("seller", { amountUgx: 12.5 }));
    expect(Object.keys(fraction.body.issues)).toEqual(["amountUgx"]);
    const stray = await api.call("post", "/payouts", "/payouts", as("seller", { amountUgx: 10_000, msisdn: "+256772000000" }));
    expect(stray.status).toBe(400);
    expect(Object.keys(stray.body.issues)).toEqual(["form"]);
    expect(await payoutsOf(t.seller.id)).toEqual([]);
    expect(await memberBalances(t.db, t.seller.id)).toMatchObject({ availableUgx: 80_000, inTransitUgx: 0 });
  });

  it("is 409 for a member with no payout number, one never proven by a code, or one set less than a day ago", async () => {
    const fresh = await createUser(t.db, { role: "freelancer" });
    const token = await createAppToken(t.db, fresh.id);
    const none = await api.call("post", "/payouts", "/payouts", { token, body: { amountUgx: 10_000 }, headers: from() });
    expect(none.status).toBe(409);
    expect(none.body.code).toBe("payout.no_number");
    await t.db("users").where({ id: fresh.id }).update({ mobile_money_number: "+256772999888" });
    const unproven = await api.call("post", "/payouts", "/payouts", { token, body: { amountUgx: 10_000 }, headers: from() });
    expect(unproven.status).toBe(409);
    expect(unproven.body.code).toBe("payout.number_unverified");
    await t.db("users").where({ id: fresh.id }).update({ payout_number_set_at: new Date(), payout_number_verified_at: new Date() });
    const held = await api.call("post", "/payouts", "/payouts", { token, body: { amountUgx: 10_000 }, headers: from() });
    expect(held.status).toBe(409);
    expect(held.body.code).toBe("payout.number_held");
    const balance = await api.call("get", "/balance", "/balance", { token, headers: from() });
    expect(balance.body.data.withdrawal.heldUntil).toMatch(ISO);
    expect(await payoutsOf(fresh.id)).toEqual([]);
  });

  it("sends a withdrawal (201) to the payout number, once per Idempotency-Key", async () => {
    const key = `payout-${randomUUID()}`;
    const first = await api.call("post", "/payouts", "/payouts", as("seller", { amountUgx: 30_000 }, { "Idempotency-Key": key }));
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({
      kind: "withdrawal",
      orderId: null,
      amount: { ugx: 30_000, usd: 8.11 },
      status: "in_transit",
      network: "airtel",
      to: "****4567",
      settledAt: null,
    });
    expect(first.body.data.createdAt).toMatch(ISO);
    const again = await api.call("post", "/payouts", "/payouts", as("seller", { amountUgx: 30_000 }, { "Idempotency-Key": key }));
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(await payoutsOf(t.seller.id)).toHaveLength(1);
    expect(await memberBalances(t.db, t.seller.id)).toMatchObject({ availableUgx: 50_000, inTransitUgx: 30_000 });
    const balance = await api.call("get", "/balance", "/balance", as("seller"));
    expect(balance.body.data).toMatchObject({ available: { ugx: 50_000 }, inTransit: { ugx: 30_000 } });
  });
});

describe("GET /payouts", () => {
  it("lists the member's own payouts newest first, paged, and filtered by kind", async () => {
    await api.call("post", "/payouts", "/payouts", as("seller", { amountUgx: 10_000 }));
    await api.call("post", "/payouts", "/payouts", as("seller", { amountUgx: 5_000 }));
    const ids = (await payoutsOf(t.seller.id)).map((p) => Number(p.id)).reverse();
    expect(ids).toHaveLength(3);
    const first = await api.call("get", "/payouts", "/payouts?limit=2", as("seller"));
    expect(first.status).toBe(200);
    expect(first.body.data.items.map((p: { id: number }) => p.id)).toEqual(ids.slice(0, 2));
    expect(first.body.data.items[0]).toMatchObject({ amount: { ugx: 5_000 }, to: "****4567" });
    const second = await api.call("get", "/payouts", `/payouts?limit=2&cursor=${first.body.data.nextCursor}`, as("seller"));
    expect(second.body.data).toEqual({ items: [expect.objectContaining({ id: ids[2] })], nextCursor: null });
    // The buyer sees none of the seller's; a refund of theirs, once an order is cancelled.
    const nothing = await api.call("get", "/payouts", "/payouts", as("buyer"));
    expect(nothing.body.data).toEqual({ items: [], nextCursor: null });
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    expect((await cancelOrder(memberActor(t.buyer), { orderId, reason: "" }, opts(t))).ok).toBe(true);
    expect((await cancelOrder(memberActor(t.seller), { orderId, reason: "" }, opts(t))).ok).toBe(true);
    const refunds = await api.call("get", "/payouts", "/payouts?kind=refund", as("buyer"));
    expect(refunds.body.data.items).toEqual([expect.objectContaining({ kind: "refund", orderId, amount: { ugx: 105_000, usd: 28.38 }, to: "****3456" })]);
    expect((await api.call("get", "/payouts", "/payouts?kind=withdrawal", as("buyer"))).body.data.items).toEqual([]);
  });

  it("refuses a malformed cursor, kind or limit beside the query field", async () => {
    const answer = await api.call("get", "/payouts", "/payouts?cursor=-1&kind=bonus&limit=101", as("seller"));
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body.issues).sort()).toEqual(["query.cursor", "query.kind", "query.limit"]);
    expect(await rowCount(t.db("payouts").where({ user_id: t.seller.id }))).toBe(3);
  });
});

describe("a failed payout's reason", () => {
  it("is in the token's member's language, before Accept-Language's, a payout from before keys were stored too", async () => {
    const member = await createUser(t.db, { role: "freelancer" });
    await t.db("users").where({ id: member.id }).update({ language: "lg" });
    const token = await createAppToken(t.db, member.id);
    const payout = async () =>
      (
        await insertPayout(t.db, {
          userId: member.id,
          kind: "withdrawal",
          provider: "airtel",
          network: "airtel",
          msisdn: PAYOUT_NUMBER,
          reference: randomUUID(),
          amountUgx: 10_000,
          requestKey: randomUUID(),
        })
      ).payout;
    // As the payout poll fails one: the provider's diagnosis kept, with the key of its case.
    const older = await payout();
    await settlePayoutRow(t.db, older.id, { status: "failed", reason: failureWords("Airtel Money: not approved in time") });
    // As a payout failed before keys were stored: the provider's English alone.
    const newer = await payout();
    await settlePayoutRow(t.db, newer.id, { status: "failed", reason: "Payee has no Airtel Money wallet (ESB000036)" });
    expect(await t.db("payouts").where({ id: newer.id }).first("failure_key")).toEqual({ failure_key: null });

    const answer = await api.call("get", "/payouts", "/payouts", { token, headers: { ...from(), "Accept-Language": "sw" } });
    expect(answer.status).toBe(200);
    const reasons = answer.body.data.items.map((p: { failureReason: string | null }) => p.failureReason);
    expect(reasons).toEqual([words("ops.reason.noWallet", "lg"), words("ops.reason.notApprovedInTime", "lg")]);
    expect(reasons).not.toContain(words("ops.reason.noWallet", "en"));
    // One paid has none.
    const paid = await payout();
    await settlePayoutRow(t.db, paid.id, { status: "paid", providerTransactionId: "AM-1" });
    const again = await api.call("get", "/payouts", "/payouts?limit=1", { token, headers: from() });
    expect(again.body.data.items[0]).toMatchObject({ status: "paid", failureReason: null });
  });
});
