/**
 * The account operations (app/operations/accounts.server.ts) called directly, against a real Postgres (a
 * database of this file) and Redis (rate limits under a prefix of this file): for each, what its allowed
 * actor gets and what is stored, what a forbidden actor gets (nothing stored), and bad input refused; and
 * activity rows written iff the operation commits.
 */
import { randomBytes, scryptSync } from "node:crypto";
import fs from "node:fs";
import { Redis } from "ioredis";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getSessionUser, hashToken } from "~/models/session.server";
import { becomeSeller, createAdmin, createMember, join, setUserStatus, signIn, signOut, signOutOthers } from "~/operations/accounts.server";
import { setCurrency, updateBilling, updateNotifications, updatePreferences, updateProfile } from "~/operations/account-settings.server";
import { changePassword, completePasswordReset, requestPasswordReset } from "~/operations/passwords.server";
import { systemActor, type Actor, type Client } from "~/operations/core.server";
import { getEnv } from "~/server/env.server";
import { passwordNeedsRehash, verifyPassword } from "~/server/password.server";
import { closeLimitRedis } from "~/server/rate-limit.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createSession, createUser, DEFAULT_PASSWORD, type UserOptions } from "../support/factories";

// Rate limits under a prefix of this file, and pictures in a directory of its own (both read from the env
// when first used).
const { prefix, uploads } = vi.hoisted(() => {
  const prefix = `t_opsacc_${process.pid}_${Date.now()}`;
  const uploads = `${process.env.TMPDIR ?? "/tmp"}/soko-ops-accounts-${process.pid}-${Date.now()}`;
  process.env.QUEUE_PREFIX = prefix;
  process.env.UPLOAD_DIR = uploads;
  return { prefix, uploads };
});

let t: TestDatabase;
let redis: Redis;
const opts = () => ({ db: t.db });
const system = systemActor("test");

beforeAll(async () => {
  expect(getEnv().QUEUE_PREFIX).toBe(prefix);
  expect(getEnv().UPLOAD_DIR).toBe(uploads);
  t = await createTestDatabase();
  redis = new Redis(getEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  const keys = await redis?.keys(`${prefix}:*`);
  if (keys?.length) await redis.del(...keys);
  await redis?.quit();
  await closeLimitRedis();
  await t?.drop();
  fs.rmSync(uploads, { recursive: true, force: true });
});

let lastIp = 0;
/** A client at an address no other test uses (so no test meets another's rate limit). */
const client = (ip = `198.51.100.${++lastIp}`): Client => ({ ip, userAgent: "Mozilla/5.0 (test)", analyticsConsent: false, tabSessionId: null });
const visitor = (ip?: string): Extract<Actor, { kind: "anonymous" }> => ({ kind: "anonymous", client: client(ip) });

/** A member actor as getActor makes one: the session user behind a fresh session token. */
async function memberActor(userId: number): Promise<Extract<Actor, { kind: "member" }> & { token: string }> {
  const token = await createSession(t.db, userId);
  const user = await getSessionUser(t.db, token);
  return { kind: "member", user: user!, client: client(), token };
}
async function member(options: UserOptions = {}) {
  const row = await createUser(t.db, options);
  return { row, actor: await memberActor(row.id) };
}

const count = async (table: string, where: Record<string, unknown> = {}) =>
  Number((await t.db(table).where(where).count<{ c: string }[]>({ c: "*" }).first())?.c);
const activity = (userId: number, kind?: string) => count("activity", { user_id: userId, ...(kind ? { kind } : {}) });
const user = (id: number) => t.db("users").where({ id }).first();
const liveSessions = (userId: number) => count("sessions", { user_id: userId });
const png = (colour = "#2a7") =>
  sharp({ create: { width: 64, height: 64, channels: 3, background: colour } })
    .png()
    .toBuffer();
const filesIn = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);

const joinInput = (email: string, name = "Amina Nansubuga") =>
  ({ name, email, password: "a-long-password", confirmPassword: "a-long-password", role: "client" }) as const;

describe("join", () => {
  it("creates a client, starts a browser session, writes 'joined' and records the signup after the commit", async () => {
    const actor = visitor();
    const result = await join(actor, joinInput("amina@example.ug"), opts());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const { userId, token, persistent, username } = result.value;
    expect(await user(userId)).toMatchObject({ email: "amina@example.ug", username: "amina_nansubuga", role: "client", level: "member", status: "active" });
    expect(persistent).toBe(false);
    expect(await getSessionUser(t.db, token)).toMatchObject({ id: userId, username });
    expect(await t.db("activity").where({ user_id: userId }).select("kind", "details")).toEqual([{ kind: "joined", details: { role: "client" } }]);
    const effect = await t
      .db("effects")
      .where({ dedupe_key: `conversion:signup:${userId}` })
      .first("kind", "payload");
    expect(effect).toMatchObject({
      kind: "conversion",
      payload: { fact: { type: "signup", userId, subjectId: userId, metadata: { role: "client" }, client: actor.client } },
    });
  });

  it("creates a seller from the seller form: skills, experience, portfolio, description as bio", async () => {
    const result = await join(
      visitor(),
      {
        name: "Okello Peter",
        email: "okello@example.ug",
        password: "a-long-password",
        confirmPassword: "a-long-password",
        skills: ["Logo design", "Branding"],
        yearsExperience: 4,
        portfolioUrl: "https://okello.example",
        description: "Logos for Kampala shops.",
        terms: "on",
        role: "freelancer",
      },
      opts(),
    );
    if (!result.ok) throw new Error(JSON.stringify(result));
    expect(await user(result.value.userId)).toMatchObject({
      role: "freelancer",
      level: "new",
      skills: ["Logo design", "Branding"],
      years_experience: 4,
      portfolio_url: "https://okello.example",
      bio: "Logos for Kampala shops.",
    });
  });

  it("refuses a member and the platform, storing nothing", async () => {
    const { actor } = await member();
    const users = await count("users");
    expect(await join(actor, joinInput("second@example.ug"), opts())).toMatchObject({ ok: false, error: "forbidden" });
    expect(await join(system, joinInput("third@example.ug"), opts())).toMatchObject({ ok: false, error: "forbidden" });
    expect(await count("users")).toBe(users);
  });

  it("refuses a taken email (any letter case) beside the field, storing no member, session, activity or effect", async () => {
    const before = { users: await count("users"), sessions: await count("sessions"), activity: await count("activity"), effects: await count("effects") };
    const result = await join(visitor(), joinInput("AMINA@example.ug", "Another Amina"), opts());
    expect(result).toEqual({ ok: false, error: "invalid", issues: { email: [{ code: "account.email_taken", params: {} }] } });
    expect({ users: await count("users"), sessions: await count("sessions"), activity: await count("activity"), effects: await count("effects") }).toEqual(
      before,
    );
  });

  it("gives the next username when another join of the same name commits first, waiting for it instead of failing", async () => {
    const trx = await t.db.transaction();
    try {
      await trx("users").insert({ name: "Nakato Sarah", username: "nakato_sarah", email: "nakato.1@example.ug", role: "client" });
      const pending = join(visitor(), joinInput("nakato.2@example.ug", "Nakato Sarah"), opts());
      const deadline = Date.now() + 10_000;
      for (;;) {
        const waiting = await t.db.raw(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ? AND wait_event_type = 'Lock'`, [t.name]);
        if (waiting.rows[0].n > 0) break;
        if (Date.now() > deadline) throw new Error("the join never waited on the other one");
        await new Promise((r) => setTimeout(r, 20));
      }
      await trx.commit();
      const result = await pending;
      if (!result.ok) throw new Error(JSON.stringify(result));
      expect(result.value.username).toBe("nakato_sarah_2");
    } finally {
      if (!trx.isCompleted()) await trx.rollback();
    }
  });

  it("counts joins per address: the 21st in an hour is refused (429) before anything is stored", async () => {
    const ip = "203.0.113.77";
    await redis.set(`${prefix}:rl:join:ip:${ip}`, "20", "EX", 3600);
    const users = await count("users");
    expect(await join(visitor(ip), joinInput("limited@example.ug"), opts())).toMatchObject({
      ok: false,
      error: "limited",
      status: 429,
      code: "limit.exceeded",
      params: { limit: "join" },
    });
    expect(await count("users")).toBe(users);
  });

  it("stores nothing, activity included, when a write after the member's row fails (a trigger refuses the effect)", async () => {
    await t.db.raw(`
      CREATE FUNCTION refuse_effect() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'effects refused for the test'; END $$ LANGUAGE plpgsql;
      CREATE TRIGGER refuse_effect BEFORE INSERT ON effects FOR EACH ROW EXECUTE FUNCTION refuse_effect();
    `);
    try {
      const before = { users: await count("users"), sessions: await count("sessions"), activity: await count("activity") };
      await expect(join(visitor(), joinInput("half@example.ug", "Half Joined"), opts())).rejects.toThrow(/effects refused for the test/);
      expect({ users: await count("users"), sessions: await count("sessions"), activity: await count("activity") }).toEqual(before);
    } finally {
      await t.db.raw(`DROP TRIGGER refuse_effect ON effects; DROP FUNCTION refuse_effect();`);
    }
  });
});

describe("signIn", () => {
  const login = (email: string, password = DEFAULT_PASSWORD, extra: { remember?: "on"; site?: "main" | "admin" } = {}) => ({
    email,
    password,
    site: "main" as const,
    ...extra,
  });

  it("starts a session (30 days with remember me) and writes 'signed_in'", async () => {
    const row = await createUser(t.db, { email: "signer@example.ug" });
    const result = await signIn(visitor(), login("SIGNER@example.ug", DEFAULT_PASSWORD, { remember: "on" }), opts());
    if (!result.ok) throw new Error(JSON.stringify(result));
    expect(result.value).toMatchObject({ userId: row.id, persistent: true });
    expect((result.value.expiresAt.getTime() - Date.now()) / 86_400_000).toBeGreaterThan(29.9);
    expect(
      await t
        .db("sessions")
        .where({ id: hashToken(result.value.token) })
        .first("user_id", "persistent", "user_agent"),
    ).toEqual({
      user_id: row.id,
      persistent: true,
      user_agent: "Mozilla/5.0 (test)",
    });
    expect(await activity(row.id, "signed_in")).toBe(1);
  });

  it("never remembers on the admin host", async () => {
    const row = await createUser(t.db, { role: "admin", email: "ops.admin@example.ug" });
    const result = await signIn(visitor(), login("ops.admin@example.ug", DEFAULT_PASSWORD, { remember: "on", site: "admin" }), opts());
    if (!result.ok) throw new Error(JSON.stringify(result));
    expect(result.value.persistent).toBe(false);
    expect(await t.db("sessions").where({ user_id: row.id }).first("persistent")).toEqual({ persistent: false });
  });

  it("never remembers an admin, on the main host either", async () => {
    const row = await createUser(t.db, { role: "admin", email: "main.admin@example.ug" });
    const result = await signIn(visitor(), login("main.admin@example.ug", DEFAULT_PASSWORD, { remember: "on" }), opts());
    if (!result.ok) throw new Error(JSON.stringify(result));
    expect(result.value.persistent).toBe(false);
    expect(await t.db("sessions").where({ user_id: row.id }).first("persistent")).toEqual({ persistent: false });
  });

  it("refuses a wrong password and an unknown email with one message, storing no session or activity", async () => {
    const row = await createUser(t.db, { email: "wrong.pass@example.ug" });
    for (const input of [login("wrong.pass@example.ug", "not-the-password"), login("nobody.here@example.ug")]) {
      expect(await signIn(visitor(), input, opts())).toEqual({
        ok: false,
        error: "invalid",
        issues: { form: [{ code: "account.invalid_sign_in", params: {} }] },
      });
    }
    expect(await liveSessions(row.id)).toBe(0);
    expect(await activity(row.id)).toBe(0);
  });

  it("tells a suspended or banned member why (forbidden), with no session and no activity", async () => {
    for (const status of ["suspended", "banned"] as const) {
      const row = await createUser(t.db, { email: `held.${status}@example.ug`, status });
      const result = await signIn(visitor(), login(`held.${status}@example.ug`), opts());
      expect(result).toMatchObject({ ok: false, error: "forbidden", code: status === "suspended" ? "account.suspended" : "account.banned" });
      expect(await liveSessions(row.id)).toBe(0);
      expect(await activity(row.id)).toBe(0);
    }
  });

  it("refuses the platform", async () => {
    expect(await signIn(system, login("signer@example.ug"), opts())).toMatchObject({ ok: false, error: "forbidden" });
  });

  it("counts the attempt before checking the password: over the email's limit at that address, even the right password is refused", async () => {
    const row = await createUser(t.db, { email: "guessed@example.ug" });
    const ip = "198.51.100.251";
    await redis.set(`${prefix}:rl:signIn:guessed@example.ug|${ip}`, "10", "EX", 60);
    const result = await signIn(visitor(ip), login("guessed@example.ug"), opts());
    expect(result).toMatchObject({
      ok: false,
      error: "limited",
      status: 429,
      code: "limit.exceeded",
      params: { limit: "signIn" },
    });
    expect(await liveSessions(row.id)).toBe(0);
  });

  it("gives back the attempts of a right password: the email and address's count is cleared, the address's and the email's refunded", async () => {
    await createUser(t.db, { email: "refunded@example.ug" });
    const ip = "198.51.100.250";
    await signIn(visitor(ip), login("refunded@example.ug", "a-wrong-guess"), opts());
    expect(Number(await redis.get(`${prefix}:rl:signIn:refunded@example.ug|${ip}`))).toBe(1);
    expect((await signIn(visitor(ip), login("refunded@example.ug"), opts())).ok).toBe(true);
    expect(await redis.get(`${prefix}:rl:signIn:refunded@example.ug|${ip}`)).toBeNull();
    expect(Number(await redis.get(`${prefix}:rl:signInAddress:${ip}`))).toBe(1);
    expect(Number(await redis.get(`${prefix}:rl:signInEmail:refunded@example.ug`))).toBe(1);
  });

  it("replaces a hash made with weaker parameters while it holds the password", async () => {
    const salt = Buffer.from("0123456789abcdef");
    const key = scryptSync(DEFAULT_PASSWORD.normalize("NFKC"), salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const old = `scrypt$32768$8$1$${salt.toString("base64")}$${key.toString("base64")}`;
    const row = await createUser(t.db, { email: "old.hash@example.ug", passwordHash: old });
    expect((await signIn(visitor(), login("old.hash@example.ug"), opts())).ok).toBe(true);
    const stored = (await user(row.id)).password_hash as string;
    expect(passwordNeedsRehash(stored)).toBe(false);
    expect(await verifyPassword(DEFAULT_PASSWORD, stored)).toBe(true);
  });
});

describe("signOut and signOutOthers", () => {
  it("signOut ends this session only; a visitor has nothing to end; the platform is refused", async () => {
    const { row, actor } = await member();
    const other = await createSession(t.db, row.id);
    expect(await signOut(actor, opts())).toEqual({ ok: true, value: null });
    expect(await getSessionUser(t.db, actor.token)).toBeNull();
    expect(await getSessionUser(t.db, other)).not.toBeNull();
    expect(await signOut(visitor(), opts())).toEqual({ ok: true, value: null });
    expect(await signOut(system, opts())).toMatchObject({ ok: false, error: "forbidden" });
    expect(await getSessionUser(t.db, other)).not.toBeNull();
  });

  it("signOutOthers ends every other session of the member, keeps this one, and writes 'signed_out_elsewhere'", async () => {
    const { row, actor } = await member();
    await createSession(t.db, row.id);
    await createSession(t.db, row.id, { persistent: true });
    expect(await signOutOthers(actor, opts())).toEqual({ ok: true, value: { ended: 2 } });
    expect(await liveSessions(row.id)).toBe(1);
    expect(await getSessionUser(t.db, actor.token)).not.toBeNull();
    expect(await activity(row.id, "signed_out_elsewhere")).toBe(1);
  });

  it("signOutOthers refuses a visitor, writing nothing", async () => {
    const activityBefore = await count("activity");
    expect(await signOutOthers(visitor(), opts())).toMatchObject({ ok: false, error: "forbidden" });
    expect(await count("activity")).toBe(activityBefore);
  });
});

describe("updateProfile", () => {
  const profile = { name: "Profile Person", bio: "I design logos.", location: "Jinja, Uganda", skills: ["Logos"], languages: ["English", "Luganda"] };

  it("stores the profile and a new picture, writes 'profile_updated', and leaves the old picture's deletion to after the commit", async () => {
    const { row, actor } = await member();
    expect(await updateProfile(actor, { ...profile, avatar: await png() }, opts())).toEqual({ ok: true, value: null });
    const first = await user(row.id);
    expect(first).toMatchObject({
      name: "Profile Person",
      bio: "I design logos.",
      location: "Jinja, Uganda",
      skills: ["Logos"],
      languages: ["English", "Luganda"],
    });
    expect(filesIn(uploads)).toContain(`${first.avatar_key}-avatar.webp`);
    // The picture's bytes are kept with it: they count against the member's storage cap.
    expect(Number(first.avatar_size_bytes)).toBe(fs.statSync(`${uploads}/${first.avatar_key}-avatar.webp`).size);

    expect((await updateProfile(actor, { ...profile, avatar: await png("#a27") }, opts())).ok).toBe(true);
    const second = await user(row.id);
    expect(second.avatar_key).not.toBe(first.avatar_key);
    expect(
      await t
        .db("effects")
        .where({ dedupe_key: `delete_image:${first.avatar_key}` })
        .first("kind", "payload"),
    ).toEqual({
      kind: "delete_image",
      payload: { key: first.avatar_key },
    });
    // Saving without a picture keeps the one there is.
    expect((await updateProfile(actor, { ...profile, bio: "Still me.", avatar: null }, opts())).ok).toBe(true);
    expect(await user(row.id)).toMatchObject({ bio: "Still me.", avatar_key: second.avatar_key });
    expect(await activity(row.id, "profile_updated")).toBe(3);
  });

  it("refuses a file that is not an image beside the field: nothing stored, no file, no activity", async () => {
    const { row, actor } = await member();
    const files = filesIn(uploads);
    const result = await updateProfile(actor, { ...profile, avatar: Buffer.from("<?php echo 'hi'; ?>") }, opts());
    expect(result).toEqual({ ok: false, error: "invalid", issues: { avatar: [{ code: "image.wrong_type", params: {} }] } });
    expect(await user(row.id)).toMatchObject({ bio: "", avatar_key: null });
    expect(filesIn(uploads)).toEqual(files);
    expect(await activity(row.id)).toBe(0);
  });

  it("counts a picture against the member's upload quota: over it, refused (429) and nothing stored", async () => {
    const { row, actor } = await member();
    await redis.set(`${prefix}:rl:uploadFilesHour:${row.id}`, "100", "EX", 3600);
    const files = filesIn(uploads);
    expect(await updateProfile(actor, { ...profile, avatar: await png() }, opts())).toMatchObject({ ok: false, error: "limited", status: 429 });
    expect(await user(row.id)).toMatchObject({ bio: "", avatar_key: null });
    expect(filesIn(uploads)).toEqual(files);
  });

  it("refuses a visitor; a member whose account is gone gets not found, and their new picture is deleted again", async () => {
    expect(await updateProfile(visitor(), { ...profile, avatar: null }, opts())).toMatchObject({ ok: false, error: "forbidden" });
    const { row, actor } = await member();
    await t.db("users").where({ id: row.id }).delete();
    const files = filesIn(uploads);
    expect(await updateProfile(actor, { ...profile, avatar: await png() }, opts())).toMatchObject({ ok: false, error: "not_found" });
    expect(filesIn(uploads)).toEqual(files);
  });
});

describe("the other settings tabs and the currency switch", () => {
  it("updateNotifications stores unchecked boxes as off and writes 'notifications_updated'", async () => {
    const { row, actor } = await member();
    expect((await updateNotifications(actor, { emailMarketing: "on", pushOrders: "on" }, opts())).ok).toBe(true);
    expect(await user(row.id)).toMatchObject({
      notify_email_orders: false,
      notify_email_messages: false,
      notify_email_marketing: true,
      notify_push_orders: true,
      notify_push_messages: false,
    });
    expect(await activity(row.id, "notifications_updated")).toBe(1);
  });

  it("updateBilling stores the member's verified phone; a number the schema would refuse is refused by the database too, with no activity", async () => {
    const { row, actor } = await member({ role: "freelancer", verifiedPhone: "+256772123456" });
    expect((await updateBilling(actor, { mobileMoneyNumber: "+256772123456", currentPassword: DEFAULT_PASSWORD }, opts())).ok).toBe(true);
    expect((await user(row.id)).mobile_money_number).toBe("+256772123456");
    await expect(updateBilling(actor, { mobileMoneyNumber: "0772123456", currentPassword: DEFAULT_PASSWORD }, opts())).rejects.toThrow(/check constraint/);
    expect((await user(row.id)).mobile_money_number).toBe("+256772123456");
    expect(await activity(row.id, "billing_updated")).toBe(1);
  });

  it("updatePreferences stores language, currency and time zone and writes 'preferences_updated'", async () => {
    const { row, actor } = await member();
    expect((await updatePreferences(actor, { language: "lg", preferredCurrency: "USD", timeZone: "UTC" }, opts())).ok).toBe(true);
    expect(await user(row.id)).toMatchObject({ language: "lg", preferred_currency: "USD", time_zone: "UTC" });
    expect(await activity(row.id, "preferences_updated")).toBe(1);
    await expect(updatePreferences(actor, { language: "fr" as "en", preferredCurrency: "UGX", timeZone: "EAT" }, opts())).rejects.toThrow(/check constraint/);
    expect(await user(row.id)).toMatchObject({ language: "lg", preferred_currency: "USD" });
    expect(await activity(row.id, "preferences_updated")).toBe(1);
  });

  it("setCurrency stores a member's currency with their preferences; a visitor has nothing to store", async () => {
    const { row, actor } = await member();
    expect((await setCurrency(actor, { preferredCurrency: "USD" }, opts())).ok).toBe(true);
    expect((await user(row.id)).preferred_currency).toBe("USD");
    expect(await activity(row.id, "preferences_updated")).toBe(1);
    await expect(setCurrency(actor, { preferredCurrency: "EUR" as "USD" }, opts())).rejects.toThrow(/check constraint/);
    expect(await activity(row.id)).toBe(1);
    expect(await setCurrency(visitor(), { preferredCurrency: "USD" }, opts())).toMatchObject({ ok: false, error: "forbidden" });
  });

  it("each refuses a visitor and the platform, writing no activity", async () => {
    const before = await count("activity");
    const refused = [
      await updateNotifications(visitor(), {}, opts()),
      await updateBilling(visitor(), { mobileMoneyNumber: "+256772123456", currentPassword: DEFAULT_PASSWORD }, opts()),
      await updatePreferences(system, { language: "en", preferredCurrency: "UGX", timeZone: "EAT" }, opts()),
      await setCurrency(system, { preferredCurrency: "UGX" }, opts()),
    ];
    for (const result of refused) expect(result).toMatchObject({ ok: false, error: "forbidden" });
    expect(await count("activity")).toBe(before);
  });
});

describe("passwords", () => {
  const change = (current: string, next = "a-new-password-1") => ({ currentPassword: current, password: next, confirmPassword: next });

  it("changePassword sets the new one, ends the other sessions and unused reset links, keeps this session", async () => {
    const { row, actor } = await member();
    const other = await createSession(t.db, row.id);
    await t.db("password_resets").insert({ id: randomBytes(16).toString("hex"), user_id: row.id, expires_at: new Date(Date.now() + 3_600_000) });
    expect(await changePassword(actor, change(DEFAULT_PASSWORD), opts())).toEqual({ ok: true, value: null });
    expect(await verifyPassword("a-new-password-1", (await user(row.id)).password_hash)).toBe(true);
    expect(await getSessionUser(t.db, other)).toBeNull();
    expect(await getSessionUser(t.db, actor.token)).not.toBeNull();
    expect(await count("password_resets", { user_id: row.id, used_at: null })).toBe(0);
    expect(await activity(row.id, "password_changed")).toBe(1);
  });

  it("changePassword refuses a wrong current password beside its field: nothing changes, no activity", async () => {
    const { row, actor } = await member();
    const other = await createSession(t.db, row.id);
    const hash = (await user(row.id)).password_hash;
    expect(await changePassword(actor, change("not-my-password"), opts())).toEqual({
      ok: false,
      error: "invalid",
      issues: { currentPassword: [{ code: "account.wrong_current_password", params: {} }] },
    });
    expect((await user(row.id)).password_hash).toBe(hash);
    expect(await getSessionUser(t.db, other)).not.toBeNull();
    expect(await activity(row.id)).toBe(0);
    expect(await changePassword(visitor(), change(DEFAULT_PASSWORD), opts())).toMatchObject({ ok: false, error: "forbidden" });
  });

  it("requestPasswordReset mails a link to an active member (reset row and outbox row together), and nothing for anyone else", async () => {
    const row = await createUser(t.db, { email: "forgetful@example.ug" });
    await createUser(t.db, { email: "held.reset@example.ug", status: "suspended" });
    const mails = await count("outbox");
    const ask = (email: string) => requestPasswordReset(visitor(), { email, origin: "https://soko.example" }, opts());
    expect(await ask("Forgetful@example.ug")).toEqual({ ok: true, value: null });
    expect(await count("password_resets", { user_id: row.id })).toBe(1);
    const mail = await t.db("outbox").orderBy("id", "desc").first("to_address", "body");
    expect(mail.to_address).toBe("forgetful@example.ug");
    const token = /https:\/\/soko\.example\/reset-password\?token=([\w-]+)/.exec(mail.body)![1]!;
    expect(
      await t
        .db("password_resets")
        .where({ id: hashToken(token) })
        .first("user_id"),
    ).toEqual({ user_id: row.id });
    // The same answer, and no mail, for an unknown email or a suspended member.
    expect(await ask("nobody.at.all@example.ug")).toEqual({ ok: true, value: null });
    expect(await ask("held.reset@example.ug")).toEqual({ ok: true, value: null });
    expect(await count("outbox")).toBe(mails + 1);
    expect(await requestPasswordReset(system, { email: "forgetful@example.ug", origin: "https://soko.example" }, opts())).toMatchObject({
      ok: false,
      error: "forbidden",
    });
  });

  it("requestPasswordReset counts per email: the 6th in an hour is refused (429) and mails nothing", async () => {
    await createUser(t.db, { email: "asked.often@example.ug" });
    await redis.set(`${prefix}:rl:reset:email:asked.often@example.ug`, "5", "EX", 3600);
    const mails = await count("outbox");
    expect(await requestPasswordReset(visitor(), { email: "asked.often@example.ug", origin: "https://soko.example" }, opts())).toMatchObject({
      ok: false,
      error: "limited",
      status: 429,
      code: "limit.exceeded",
      params: { limit: "reset" },
    });
    expect(await count("outbox")).toBe(mails);
  });

  it("completePasswordReset sets the password once, uses up the member's other links, ends every session, writes 'password_reset'", async () => {
    const { row, actor } = await member();
    const tokens = ["first-link-token", "second-link-token"];
    for (const token of tokens) await t.db("password_resets").insert({ id: hashToken(token), user_id: row.id, expires_at: new Date(Date.now() + 3_600_000) });
    const input = (token: string) => ({ token, password: "chosen-again-1", confirmPassword: "chosen-again-1" });
    expect(await completePasswordReset(visitor(), input(tokens[0]!), opts())).toEqual({ ok: true, value: { userId: row.id } });
    expect(await verifyPassword("chosen-again-1", (await user(row.id)).password_hash)).toBe(true);
    expect(await getSessionUser(t.db, actor.token)).toBeNull();
    expect(await activity(row.id, "password_reset")).toBe(1);
    // Both links are spent now: each is refused, and nothing more happens.
    for (const token of [...tokens, "never-issued"]) {
      expect(await completePasswordReset(visitor(), input(token), opts())).toEqual({
        ok: false,
        error: "conflict",
        code: "account.reset_link_expired",
        params: {},
      });
    }
    expect(await activity(row.id)).toBe(1);
  });

  it("completePasswordReset refuses an expired link and the platform", async () => {
    const row = await createUser(t.db);
    await t.db("password_resets").insert({ id: hashToken("an-expired-token"), user_id: row.id, expires_at: new Date(Date.now() - 1000) });
    const input = { token: "an-expired-token", password: "chosen-again-1", confirmPassword: "chosen-again-1" };
    expect(await completePasswordReset(visitor(), input, opts())).toMatchObject({ ok: false, error: "conflict", code: "account.reset_link_expired" });
    expect(await completePasswordReset(system, input, opts())).toMatchObject({ ok: false, error: "forbidden" });
    expect(await verifyPassword(DEFAULT_PASSWORD, (await user(row.id)).password_hash)).toBe(true);
  });
});

describe("becomeSeller", () => {
  it("turns a client into a seller once, writing 'became_seller'; a seller again changes nothing", async () => {
    const { row, actor } = await member({ role: "client" });
    expect(await becomeSeller(actor, opts())).toEqual({ ok: true, value: { changed: true } });
    expect((await user(row.id)).role).toBe("freelancer");
    expect(await becomeSeller(actor, opts())).toEqual({ ok: true, value: { changed: false } });
    expect(await activity(row.id, "became_seller")).toBe(1);
  });

  it("refuses an admin and a visitor", async () => {
    const { row, actor } = await member({ role: "admin" });
    expect(await becomeSeller(actor, opts())).toEqual({ ok: false, error: "forbidden", code: "seller.admins_do_not_sell", params: {} });
    expect((await user(row.id)).role).toBe("admin");
    expect(await activity(row.id)).toBe(0);
    expect(await becomeSeller(visitor(), opts())).toMatchObject({ ok: false, error: "forbidden" });
  });
});

describe("createAdmin", () => {
  const input = { name: "Grace Admin", email: "grace.ops@example.ug", password: "grace-admin-pass-1" };

  it("makes an administrator for the platform only, writing 'joined'", async () => {
    const result = await createAdmin(system, input, opts());
    if (!result.ok) throw new Error(JSON.stringify(result));
    expect(await user(result.value.id)).toMatchObject({ role: "admin", username: "grace_admin", email: "grace.ops@example.ug" });
    expect(await verifyPassword("grace-admin-pass-1", (await user(result.value.id)).password_hash)).toBe(true);
    expect(await t.db("activity").where({ user_id: result.value.id }).select("kind", "details")).toEqual([{ kind: "joined", details: { role: "admin" } }]);
  });

  it("refuses a taken email beside the field, and any member, even an admin", async () => {
    const users = await count("users");
    expect(await createAdmin(system, { ...input, email: "GRACE.OPS@example.ug" }, opts())).toMatchObject({
      ok: false,
      error: "invalid",
      issues: { email: [{ code: "account.email_taken" }] },
    });
    const { actor } = await member({ role: "admin" });
    expect(await createAdmin(actor, { ...input, email: "another.admin@example.ug" }, opts())).toMatchObject({ ok: false, error: "forbidden" });
    expect(await count("users")).toBe(users + 1);
  });
});

describe("createMember (the platform's accounts: demo data)", () => {
  const passwordHash = scryptSync("x", "y", 8).toString("hex"); // stored as given; never checked here

  it("makes a client or a freelancer for the platform only, as a join stores one, writing 'joined' and nothing else", async () => {
    const result = await createMember(
      system,
      { name: "Ruth Achieng", email: "ruth.member@example.ug", role: "freelancer", passwordHash, skills: ["Branding"], bio: "Logos." },
      opts(),
    );
    if (!result.ok) throw new Error(JSON.stringify(result));
    expect(await user(result.value.id)).toMatchObject({
      role: "freelancer",
      username: "ruth_achieng",
      level: "new",
      skills: ["Branding"],
      bio: "Logos.",
      password_hash: passwordHash,
    });
    expect(await t.db("activity").where({ user_id: result.value.id }).select("kind", "details")).toEqual([{ kind: "joined", details: { role: "freelancer" } }]);
    expect(await count("sessions", { user_id: result.value.id })).toBe(0);
    expect(await count("effects", { dedupe_key: `conversion:signup:${result.value.id}` })).toBe(0);
  });

  it("refuses a taken email beside the field, a member and a visitor, and stores nothing (no activity) for them", async () => {
    const before = { users: await count("users"), activity: await count("activity") };
    const input = { name: "Twice Member", email: "RUTH.MEMBER@example.ug", role: "client" as const, passwordHash };
    expect(await createMember(system, input, opts())).toMatchObject({ ok: false, error: "invalid", issues: { email: [{ code: "account.email_taken" }] } });
    const { actor } = await member({ role: "admin" });
    before.users += 1;
    expect(await createMember(actor, { ...input, email: "by.admin@example.ug" }, opts())).toMatchObject({ ok: false, error: "forbidden" });
    expect(await createMember(visitor(), { ...input, email: "by.visitor@example.ug" }, opts())).toMatchObject({ ok: false, error: "forbidden" });
    expect({ users: await count("users"), activity: await count("activity") }).toEqual(before);
  });
});

describe("setUserStatus", () => {
  it("lets the platform and an admin suspend, ban and re-activate; anything but active ends the member's sessions", async () => {
    const target = await createUser(t.db, { role: "freelancer" });
    const session = await createSession(t.db, target.id);
    expect(await setUserStatus(system, { userId: target.id, status: "suspended" }, opts())).toEqual({ ok: true, value: null });
    expect((await user(target.id)).status).toBe("suspended");
    expect(await liveSessions(target.id)).toBe(0);
    expect(await getSessionUser(t.db, session)).toBeNull();
    const { actor: admin } = await member({ role: "admin" });
    expect((await setUserStatus(admin, { userId: target.id, status: "active" }, opts())).ok).toBe(true);
    expect((await user(target.id)).status).toBe("active");
    expect((await setUserStatus(admin, { userId: target.id, status: "banned" }, opts())).ok).toBe(true);
    expect(await t.db("activity").where({ user_id: target.id }).orderBy("id").pluck("kind")).toEqual(["status_suspended", "status_active", "status_banned"]);
    // Each change is in the admin audit log with who made it and from where.
    const audit = await t
      .db("admin_audit_log")
      .where({ target_type: "user", target_id: String(target.id) })
      .orderBy("id")
      .select("action", "admin_id", "admin_name", "ip");
    expect(audit.map((a) => a.action)).toEqual(["user.suspend", "user.activate", "user.ban"]);
    expect(audit[0]).toMatchObject({ admin_id: null, admin_name: "platform (test)", ip: "" });
    expect(audit[2]).toMatchObject({ admin_id: admin.kind === "member" ? admin.user.id : -1, ip: admin.kind === "member" ? admin.client.ip : "?" });
  });

  it("refuses a non-admin member and a visitor, answers not found for no such member, and an admin cannot change their own", async () => {
    const target = await createUser(t.db);
    await createSession(t.db, target.id);
    const { actor: seller } = await member({ role: "freelancer" });
    expect(await setUserStatus(seller, { userId: target.id, status: "banned" }, opts())).toMatchObject({ ok: false, error: "forbidden" });
    expect(await setUserStatus(visitor(), { userId: target.id, status: "banned" }, opts())).toMatchObject({ ok: false, error: "forbidden" });
    expect(await setUserStatus(system, { userId: 987_654_321, status: "banned" }, opts())).toMatchObject({ ok: false, error: "not_found" });
    const { row: adminRow, actor: admin } = await member({ role: "admin" });
    expect(await setUserStatus(admin, { userId: adminRow.id, status: "suspended" }, opts())).toMatchObject({
      ok: false,
      error: "conflict",
      code: "account.own_status",
    });
    expect((await user(target.id)).status).toBe("active");
    expect(await liveSessions(target.id)).toBe(1);
    expect(await activity(target.id)).toBe(0);
    expect(await activity(adminRow.id)).toBe(0);
  });
});
