/**
 * Verified emails and vetted sellers (ADR 051), through the operations against a real Postgres (a database of
 * this file) and Redis (rate limits under a prefix of this file): a link mailed at joining and on an email
 * change, used once, refused when expired, replayed or for an old address; resending limited per member;
 * publishing refused until verified (drafts allowed); vetting audited, revocable, for admins and freelancers
 * only; and the catalog's "vetted sellers only" filter, browsing and searching.
 */
import type { Knex } from "knex";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { listCatalog, EMPTY_QUERY } from "~/models/catalog-search.server";
import { getGigPage } from "~/models/gig.server";
import { getPublicProfile } from "~/models/profile.server";
import { getSessionUser, hashToken } from "~/models/session.server";
import { join } from "~/operations/accounts.server";
import { changeEmail, resendVerification, verifyEmail } from "~/operations/email-verification.server";
import { saveGig } from "~/operations/gigs.server";
import { setVetting } from "~/operations/vetting.server";
import type { Actor, Client } from "~/operations/core.server";
import { gigFormSchema, type GigIntent } from "~/schemas/gig";
import { getEnv } from "~/server/env.server";
import { closeLimitRedis } from "~/server/rate-limit.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createGig, createSession, createUser, DEFAULT_PASSWORD, type UserOptions } from "../support/factories";

const { prefix } = vi.hoisted(() => {
  const prefix = `t_verify_${process.pid}_${Date.now()}`;
  process.env.QUEUE_PREFIX = prefix;
  return { prefix };
});

let t: TestDatabase;
let redis: Redis;
const opts = () => ({ db: t.db });

beforeAll(async () => {
  expect(getEnv().QUEUE_PREFIX).toBe(prefix);
  t = await createTestDatabase();
  redis = new Redis(getEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  const keys = await redis?.keys(`${prefix}:*`);
  if (keys?.length) await redis.del(...keys);
  await redis?.quit();
  await closeLimitRedis();
  await t?.drop();
});

let lastIp = 0;
const client = (): Client => ({ ip: `198.51.100.${++lastIp}`, userAgent: "Mozilla/5.0 (test)", analyticsConsent: false, tabSessionId: null });
const visitor = (): Actor => ({ kind: "anonymous", client: client() });
async function memberActor(userId: number): Promise<Extract<Actor, { kind: "member" }>> {
  const user = await getSessionUser(t.db, await createSession(t.db, userId));
  return { kind: "member", user: user!, client: client() };
}
async function member(options: UserOptions = {}) {
  const row = await createUser(t.db, options);
  return { row, actor: await memberActor(row.id) };
}
const count = async (query: Knex.QueryBuilder) => Number((await query.count<{ n: string }[]>({ n: "*" }))[0]!.n);
const verifiedAt = async (id: number) => (await t.db("users").where({ id }).first("email_verified_at")).email_verified_at as Date | null;
/** The token of the newest verification link mailed to `to`. */
async function mailedToken(to: string): Promise<string> {
  const mail = await t.db("outbox").where({ to_address: to }).orderBy("id", "desc").first("body", "subject");
  expect(mail, `a mail to ${to}`).toBeTruthy();
  return /\/auth\/verify-email\?token=([\w-]+)/.exec(mail.body)![1]!;
}
const gigValue = (intent: GigIntent) =>
  gigFormSchema(intent).parse({
    title: "Logo design in three days",
    category: "graphics-design",
    description: "Three concepts and the files for print and the web.",
    basic: { price: "75000", delivery: "3" },
    standard: {},
    premium: {},
  });

describe("email verification", () => {
  it("mails a link at joining, in the member's language, that verifies the address once", async () => {
    const joined = await join(
      visitor(),
      {
        name: "Okello Verify",
        email: "okello.verify@example.ug",
        password: DEFAULT_PASSWORD,
        confirmPassword: DEFAULT_PASSWORD,
        role: "freelancer",
        language: "sw",
      },
      opts(),
    );
    expect(joined.ok).toBe(true);
    const id = joined.ok ? joined.value.userId : 0;
    expect(await verifiedAt(id)).toBeNull();
    const mail = await t.db("outbox").where({ to_address: "okello.verify@example.ug" }).first("subject");
    expect(mail.subject).toBe("Thibitisha barua pepe yako ya Soko");
    const token = await mailedToken("okello.verify@example.ug");
    // Only the token's hash is stored.
    expect(await t.db("email_verifications").where({ id: token }).first()).toBeUndefined();
    expect(
      await t
        .db("email_verifications")
        .where({ id: hashToken(token) })
        .first("user_id"),
    ).toMatchObject({ user_id: id });

    expect(await verifyEmail(visitor(), { token }, opts())).toEqual({ ok: true, value: { userId: id } });
    expect(await verifiedAt(id)).toBeInstanceOf(Date);
    expect(await count(t.db("activity").where({ user_id: id, kind: "email_verified" }))).toBe(1);
    // Replayed: used up.
    expect(await verifyEmail(visitor(), { token }, opts())).toMatchObject({ ok: false, error: "conflict", code: "verify.link_dead", params: { why: "used" } });
    expect(await verifyEmail(visitor(), { token: "no-such-token" }, opts())).toMatchObject({ ok: false, code: "verify.link_dead", params: { why: "used" } });
  });

  it("refuses an expired link and changes nothing", async () => {
    const { row, actor } = await member({ emailVerified: false });
    expect(await resendVerification(actor, {}, opts())).toEqual({ ok: true, value: { email: row.email } });
    const token = await mailedToken(row.email);
    await t
      .db("email_verifications")
      .where({ id: hashToken(token) })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect(await verifyEmail(visitor(), { token }, opts())).toMatchObject({
      ok: false,
      error: "conflict",
      code: "verify.link_dead",
      params: { why: "expired" },
    });
    expect(await verifiedAt(row.id)).toBeNull();
  });

  it("a changed email is unverified, its own link is mailed to it, and a link to the old address is refused", async () => {
    const { row, actor } = await member({ emailVerified: false });
    await resendVerification(actor, {}, opts());
    const oldToken = await mailedToken(row.email);
    // A wrong current password changes nothing.
    expect(await changeEmail(actor, { email: "new.address@example.ug", currentPassword: "wrong-password-1" }, opts())).toMatchObject({
      ok: false,
      error: "invalid",
    });
    expect(await changeEmail(actor, { email: "new.address@example.ug", currentPassword: DEFAULT_PASSWORD }, opts())).toEqual({
      ok: true,
      value: { changed: true },
    });
    // The old link died with the address; a link made before the change but after it was read is stale too.
    expect(await verifyEmail(visitor(), { token: oldToken }, opts())).toMatchObject({ ok: false, code: "verify.link_dead", params: { why: "used" } });
    await t
      .db("email_verifications")
      .insert({ id: hashToken("old-address-link"), user_id: row.id, email: row.email, expires_at: new Date(Date.now() + 60_000) });
    expect(await verifyEmail(visitor(), { token: "old-address-link" }, opts())).toMatchObject({
      ok: false,
      code: "verify.link_dead",
      params: { why: "stale" },
    });
    expect(await verifiedAt(row.id)).toBeNull();

    const token = await mailedToken("new.address@example.ug");
    expect((await verifyEmail(visitor(), { token }, opts())).ok).toBe(true);
    expect(await verifiedAt(row.id)).toBeInstanceOf(Date);
    // Changing it again clears the verification.
    await changeEmail(actor, { email: "third.address@example.ug", currentPassword: DEFAULT_PASSWORD }, opts());
    expect(await verifiedAt(row.id)).toBeNull();
    // Another member's address is refused beside the field.
    const other = await createUser(t.db);
    expect(await changeEmail(actor, { email: other.email.toUpperCase(), currentPassword: DEFAULT_PASSWORD }, opts())).toMatchObject({
      ok: false,
      error: "invalid",
      issues: { email: [{ code: "account.email_taken" }] },
    });
  }, 90_000); // four current-password checks (scrypt): slow on a busy machine

  it("resending is limited per member (5 an hour), and refused once verified", async () => {
    const { row, actor } = await member({ emailVerified: false });
    for (let i = 0; i < 5; i++) expect((await resendVerification(actor, {}, opts())).ok).toBe(true);
    // A new session from another address counts against the same member.
    const again = await memberActor(row.id);
    expect(await resendVerification(again, {}, opts())).toMatchObject({ ok: false, error: "limited", status: 429, params: { limit: "verifyEmail" } });
    expect(await count(t.db("outbox").where({ to_address: row.email }))).toBe(5);

    const verified = await member();
    expect(await resendVerification(verified.actor, {}, opts())).toMatchObject({ ok: false, error: "conflict", code: "verify.already_verified" });
    expect(await resendVerification(visitor(), {}, opts())).toMatchObject({ ok: false, error: "forbidden" });
  });

  it("a freelancer may save drafts but not publish until verified", async () => {
    const { row, actor } = await member({ role: "freelancer", emailVerified: false });
    expect(await saveGig(actor, { intent: "publish", gig: gigValue("publish") }, opts())).toMatchObject({
      ok: false,
      error: "conflict",
      code: "verify.required_to_publish",
    });
    expect(await count(t.db("gigs").where({ seller_id: row.id }))).toBe(0);
    const draft = await saveGig(actor, { intent: "draft", gig: gigValue("draft") }, opts());
    expect(draft).toMatchObject({ ok: true, value: { status: "draft" } });

    await resendVerification(actor, {}, opts());
    expect((await verifyEmail(visitor(), { token: await mailedToken(row.email) }, opts())).ok).toBe(true);
    const gigId = draft.ok ? draft.value.id : 0;
    expect(await saveGig(actor, { intent: "publish", gig: gigValue("publish"), gigId }, opts())).toMatchObject({ ok: true, value: { status: "published" } });
    expect(await t.db("gigs").where({ id: gigId }).first("status")).toEqual({ status: "published" });
  });
});

describe("vetting", () => {
  it("an admin vets a freelancer with a note and takes it back, both audited; badges show", async () => {
    const admin = await member({ role: "admin" });
    const seller = await createUser(t.db, { role: "freelancer" });
    const gig = await createGig(t.db, { sellerId: seller.id });
    expect(await setVetting(admin.actor, { intent: "vet", userId: seller.id, note: "Portfolio checked: five logos." }, opts())).toEqual({
      ok: true,
      value: { name: seller.name, vetted: true },
    });
    expect(await t.db("users").where({ id: seller.id }).first("vetted_by", "vetted_note")).toEqual({
      vetted_by: admin.row.id,
      vetted_note: "Portfolio checked: five logos.",
    });
    expect((await getPublicProfile(t.db, seller.username))!.trust).toEqual({ emailVerified: true, phoneVerified: false, vetted: true });
    expect((await getGigPage(t.db, gig.id, null))!.seller.trust).toMatchObject({ emailVerified: true, vetted: true });
    expect(await setVetting(admin.actor, { intent: "vet", userId: seller.id, note: "Again" }, opts())).toMatchObject({ ok: false, code: "vetted.already" });

    expect((await setVetting(admin.actor, { intent: "unvet", userId: seller.id, note: "Portfolio links are broken." }, opts())).ok).toBe(true);
    expect(await t.db("users").where({ id: seller.id }).first("vetted_at", "vetted_by", "vetted_note")).toEqual({
      vetted_at: null,
      vetted_by: null,
      vetted_note: null,
    });
    expect(await setVetting(admin.actor, { intent: "unvet", userId: seller.id, note: "Again" }, opts())).toMatchObject({
      ok: false,
      code: "vetted.not_vetted",
    });
    const audit = await t
      .db("admin_audit_log")
      .where({ target_type: "user", target_id: String(seller.id) })
      .orderBy("id")
      .select("action", "admin_id", "details");
    expect(audit).toEqual([
      { action: "user.vet", admin_id: admin.row.id, details: { note: "Portfolio checked: five logos." } },
      { action: "user.unvet", admin_id: admin.row.id, details: { note: "Portfolio links are broken." } },
    ]);
  });

  it("only admins vet, and only freelancers are vetted", async () => {
    const admin = await member({ role: "admin" });
    const seller = await createUser(t.db, { role: "freelancer" });
    const buyer = await createUser(t.db, { role: "client" });
    const someone = await member({ role: "freelancer" });
    const input = { intent: "vet" as const, userId: seller.id, note: "Looks good." };
    expect(await setVetting(someone.actor, input, opts())).toMatchObject({ ok: false, error: "forbidden", code: "access.admins_only" });
    expect(await setVetting(visitor(), input, opts())).toMatchObject({ ok: false, error: "forbidden" });
    expect(await setVetting(admin.actor, { ...input, userId: buyer.id }, opts())).toMatchObject({
      ok: false,
      error: "conflict",
      code: "vetted.only_freelancers",
    });
    expect(await setVetting(admin.actor, { ...input, userId: 987654 }, opts())).toMatchObject({ ok: false, error: "not_found" });
    expect(await count(t.db("users").whereNotNull("vetted_at").whereIn("id", [seller.id, buyer.id]))).toBe(0);
    expect(await count(t.db("admin_audit_log").whereIn("target_id", [String(seller.id), String(buyer.id)]))).toBe(0);
  });

  it("buyers filter browse and search for vetted sellers, following vetting as it changes", async () => {
    const admin = await member({ role: "admin" });
    const vetted = await createUser(t.db, { role: "freelancer" });
    const other = await createUser(t.db, { role: "freelancer" });
    const mine = await createGig(t.db, { sellerId: vetted.id, title: "Zebrafinch mural painting" });
    const theirs = await createGig(t.db, { sellerId: other.id, title: "Zebrafinch mural sketches" });
    await setVetting(admin.actor, { intent: "vet", userId: vetted.id, note: "Murals checked." }, opts());
    const ids = async (query: Partial<typeof EMPTY_QUERY>) => (await listCatalog(t.db, { ...EMPTY_QUERY, ...query })).gigs.map((g) => g.id);

    for (const sort of ["relevance", "rating", "newest"] as const) {
      expect(await ids({ q: "zebrafinch", sort })).toEqual(expect.arrayContaining([mine.id, theirs.id]));
      expect(await ids({ q: "zebrafinch", sort, vetted: true })).toEqual([mine.id]);
    }
    const browsed = await ids({ vetted: true });
    expect(browsed).toContain(mine.id);
    expect(browsed).not.toContain(theirs.id);
    expect(await t.db("gig_search").where({ id: mine.id }).first("seller_vetted")).toEqual({ seller_vetted: true });

    await setVetting(admin.actor, { intent: "unvet", userId: vetted.id, note: "Taken back." }, opts());
    expect(await ids({ q: "zebrafinch", vetted: true })).toEqual([]);
    expect(await ids({ vetted: true })).not.toContain(mine.id);
  });
});
