/**
 * Helpers for order tests: a test file's context (its own database, QUEUE_PREFIX and sandbox, and the
 * parties to an order), members as actors, a sandbox provider on the real Redis, and orders brought to a
 * given state through the real operations.
 */
import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import { afterAll, beforeAll, expect } from "vitest";
import { systemActor, type Actor } from "~/operations/core.server";
import { approveOrder, deliverOrder, placeOrder } from "~/operations/orders.server";
import { settlePayment, type PaymentOptions } from "~/operations/payments.server";
import { createProviders, type Providers } from "~/payments/registry.server";
import { Sandbox } from "~/payments/sandbox.server";
import { getEnv } from "~/server/env.server";
import { closeLimitRedis } from "~/server/rate-limit.server";
import { createRedis } from "~/server/redis.server";
import { createTestDatabase, type TestDatabase } from "./databases";
import { createGig, createUser, type GigOptions, type TestUser, type UserOptions } from "./factories";

export const TEST_CLIENT = { ip: "203.0.113.7", userAgent: "vitest", analyticsConsent: false, tabSessionId: null };

export function memberActor(u: Pick<TestUser, "id" | "name" | "username" | "email" | "role">): Actor {
  return {
    kind: "member",
    user: {
      sessionId: "test",
      id: u.id,
      name: u.name,
      username: u.username,
      email: u.email,
      role: u.role,
      preferredCurrency: "UGX",
      timeZone: "EAT",
      language: "en",
    },
    client: TEST_CLIENT,
  };
}

export const system = systemActor("test");

/** Somebody not signed in. */
export const visitor: Actor = { kind: "anonymous", client: TEST_CLIENT };

/**
 * A sandbox on the real Redis, and providers that use it for both networks. Under a prefix of its own unless
 * given one: a QUEUE_PREFIX, to share the sandbox of a server started with it.
 */
export function testProviders(prefix = `test_${randomBytes(4).toString("hex")}`) {
  const redis = createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
  const sandbox = new Sandbox(redis, prefix);
  const providers: Providers = createProviders({ ...getEnv(), MTN_MOMO_BASE_URL: undefined, AIRTEL_BASE_URL: undefined }, { sandbox });
  return { sandbox, providers, redis, close: () => redis.quit() };
}

/**
 * Gives this test file a QUEUE_PREFIX of its own (its name, its process and a random part), and returns it.
 * The checkout limit (30 an hour per member) is counted in Redis under QUEUE_PREFIX by member id, and every
 * test database numbers its members from 1: under a shared prefix, other files' checkouts and earlier runs'
 * would count against this file's members. The environment is read once and then kept, so this must run
 * before anything reads it: at the top of the test file (orderTestContext calls it).
 */
export function ownQueuePrefix(name: string): string {
  const prefix = `t_${name}_${process.pid}_${randomBytes(4).toString("hex")}`;
  process.env.QUEUE_PREFIX = prefix;
  if (getEnv().QUEUE_PREFIX !== prefix) throw new Error(`The environment was read before ownQueuePrefix("${name}"): call it at the top of the test file`);
  return prefix;
}

/** An Airtel number: a seller's payouts to it go to the provider of the Airtel network. */
export const PAYOUT_NUMBER = "+256701234567";

export type PartyOptions = {
  /** The seller's Billing number is PAYOUT_NUMBER unless another is given, or null for none. */
  seller?: Omit<UserOptions, "role"> & { payoutNumber?: string | null };
  buyer?: Omit<UserOptions, "role">;
  /** One Basic package at UGX 100,000 in 3 days with 1 revision unless packages are given. */
  gig?: Omit<GigOptions, "sellerId">;
};
export type Parties = { seller: TestUser; buyer: TestUser; gigId: number };

/**
 * The two sides of an order: a seller who can be paid out, a buyer, and the seller's gig (at UGX 100,000 the
 * buyer pays 105,000 and the seller nets 80,000).
 */
export async function createParties(db: Knex, options: PartyOptions = {}): Promise<Parties> {
  const { payoutNumber = PAYOUT_NUMBER, ...sellerOptions } = options.seller ?? {};
  const seller = await createUser(db, { ...sellerOptions, role: "freelancer" });
  // A proven payout number (ADR 055), as a code texted to it would leave it.
  if (payoutNumber) await db("users").where({ id: seller.id }).update({ mobile_money_number: payoutNumber, payout_number_verified_at: db.fn.now() });
  const buyer = await createUser(db, { ...options.buyer, role: "client" });
  const packages = { basic: { priceUgx: 100_000, deliveryDays: 3, revisions: 1 } };
  const { id: gigId } = await createGig(db, { packages, ...options.gig, sellerId: seller.id });
  return { seller, buyer, gigId };
}

export const checkoutKey = () => randomBytes(12).toString("hex");

export type OrderTestContext = { db: Knex; providers: Providers; sandbox: Sandbox; now?: () => Date };
export const opts = (c: OrderTestContext): PaymentOptions => ({ db: c.db, providers: c.providers, now: c.now });

export type OrderTestFile = OrderTestContext & {
  /** The database's URL, for a server or a process the file starts. */
  url: string;
  /** The file's own QUEUE_PREFIX: a server started with it (and PAYMENTS_SANDBOX=1) shares the file's sandbox. */
  queuePrefix: string;
};

export type OrderTestOptions = {
  /** A seller, a buyer and the seller's gig (createParties): `t.seller`, `t.buyer`, `t.gigId`. */
  parties?: true | PartyOptions;
  /** An admin, who resolves disputes: `t.admin`. */
  admin?: true | Omit<UserOptions, "role">;
};
/** The context with the fields its options add. */
type OrderTestFileWith<O> = OrderTestFile &
  (O extends { parties: unknown } ? Parties : unknown) &
  (O extends { admin: unknown } ? { admin: TestUser } : unknown);

/**
 * What an order test file runs on, made before its tests and closed after them: a QUEUE_PREFIX of its own
 * (ownQueuePrefix, given at once, so call this at the top of the file), a database of its own, the sandbox
 * under that prefix with providers that use it, and the members the options ask for. The rest of its fields
 * are filled in before the file's tests: read them in hooks and tests. Once the file is done, its Redis keys
 * (limits, sandbox, a server's queues) are deleted too.
 */
export function orderTestContext<O extends OrderTestOptions = Record<never, never>>(name: string, options?: O): OrderTestFileWith<O> {
  const file = { queuePrefix: ownQueuePrefix(name) } as OrderTestFile & Partial<Parties> & { admin?: TestUser };
  let database: TestDatabase | undefined;
  let sandboxed: ReturnType<typeof testProviders> | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxed = testProviders(file.queuePrefix);
    Object.assign(file, { db: database.db, url: database.url, providers: sandboxed.providers, sandbox: sandboxed.sandbox });
    const { parties, admin } = options ?? {};
    if (parties) Object.assign(file, await createParties(database.db, parties === true ? {} : parties));
    if (admin) file.admin = await createUser(database.db, { ...(admin === true ? {} : admin), role: "admin" });
  });
  afterAll(async () => {
    await closeLimitRedis();
    // The shared Redis keeps nothing of a finished file's: limit counts, sandbox transfers, a server's queues.
    if (sandboxed) {
      const keys = await sandboxed.redis.keys(`${file.queuePrefix}*`);
      if (keys.length) await sandboxed.redis.del(...keys);
      await sandboxed.close();
    }
    await database?.drop();
  });
  return file as OrderTestFileWith<O>;
}

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
