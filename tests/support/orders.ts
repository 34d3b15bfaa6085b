/**
 * Helpers for order tests: members as actors, a sandbox provider on the real Redis (its own key prefix),
 * and orders brought to a given state through the real operations.
 */
import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import { expect } from "vitest";
import type { Actor } from "~/operations/core.server";
import { approveOrder, deliverOrder, placeOrder } from "~/operations/orders.server";
import { settlePayment, type PaymentOptions } from "~/operations/payments.server";
import { systemActor } from "~/operations/core.server";
import { createProviders, type Providers } from "~/payments/registry.server";
import { Sandbox } from "~/payments/sandbox.server";
import { getEnv } from "~/utils/env.server";
import { createRedis } from "~/utils/redis.server";
import type { TestUser } from "./factories";

export const TEST_CLIENT = { ip: "203.0.113.7", userAgent: "vitest", analyticsConsent: false, tabSessionId: null };

export function memberActor(u: Pick<TestUser, "id" | "name" | "username" | "email" | "role">): Actor {
  return {
    kind: "member",
    user: { sessionId: "test", id: u.id, name: u.name, username: u.username, email: u.email, role: u.role, preferredCurrency: "UGX", timeZone: "EAT" },
    client: TEST_CLIENT,
  };
}

export const system = systemActor("test");

/** A sandbox on the real Redis under its own prefix, and providers that use it for both networks. */
export function testProviders() {
  const redis = createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
  const sandbox = new Sandbox(redis, `test_${randomBytes(4).toString("hex")}`);
  const providers: Providers = createProviders({ ...getEnv(), MTN_MOMO_BASE_URL: undefined, AIRTEL_BASE_URL: undefined }, { sandbox });
  return { sandbox, providers, close: () => redis.quit() };
}

export const checkoutKey = () => randomBytes(12).toString("hex");

export type OrderTestContext = { db: Knex; providers: Providers; sandbox: Sandbox; now?: () => Date };
export const opts = (c: OrderTestContext): PaymentOptions => ({ db: c.db, providers: c.providers, now: c.now });

/** Places an order of the gig's basic package for the buyer; returns its id and payment reference. */
export async function placeTestOrder(c: OrderTestContext, buyer: TestUser, gigId: number, { tier = "basic" as const } = {}) {
  const placed = await placeOrder(
    memberActor(buyer),
    { gigId, tier, requirements: "A logo for my shop", msisdn: "+256772123456", network: "mtn", checkoutKey: checkoutKey() },
    opts(c),
  );
  if (!placed.ok) throw new Error(`placeOrder failed: ${JSON.stringify(placed)}`);
  return placed.value;
}

/** An order paid through the sandbox: placed, approved on the "phone", settled. */
export async function paidTestOrder(c: OrderTestContext, buyer: TestUser, gigId: number) {
  const { orderId, reference } = await placeTestOrder(c, buyer, gigId);
  expect(await c.sandbox.decide(reference, "approve")).toBe(true);
  const settled = await settlePayment(system, { reference }, opts(c));
  expect(settled).toMatchObject({ ok: true, value: { settlement: "paid" } });
  return { orderId, reference };
}

/** An order delivered by the seller and approved by the buyer. */
export async function completedTestOrder(c: OrderTestContext, buyer: TestUser, seller: TestUser, gigId: number) {
  const { orderId, reference } = await paidTestOrder(c, buyer, gigId);
  expect((await deliverOrder(memberActor(seller), { orderId, message: "Here it is" }, opts(c))).ok).toBe(true);
  expect((await approveOrder(memberActor(buyer), { orderId }, opts(c))).ok).toBe(true);
  return { orderId, reference };
}

/** Every account's balance by code, from the entries. */
export async function balances(db: Knex): Promise<Record<string, number>> {
  const rows = await db("ledger_accounts as a")
    .leftJoin("ledger_entries as e", "e.account_id", "a.id")
    .groupBy("a.code")
    .select("a.code", db.raw("coalesce(sum(e.amount_ugx), 0)::bigint as total"));
  return Object.fromEntries(rows.map((r) => [r.code, Number(r.total)]));
}
