/**
 * Accounts (ADR 012): joining, signing in and out, becoming a seller, and what the platform does to accounts
 * (admins, status). The settings tabs are in account-settings.server.ts, passwords in passwords.server.ts. Each operation checks the actor's right, counts its rate limit
 * before the expensive work (a password hash, an image), and writes its rows, its activity and its
 * after-commit effects in one transaction; routes, scripts and (later) the JSON API only map its Result.
 * Password hashes are made before the transaction, so no connection waits on scrypt.
 */
import type { Knex } from "knex";
import { conversionFact } from "~/analytics/conversions.server";
import { createAppSession, createSession, deleteMemberSession, deleteUserSessions, renewSession, type AppPlatform } from "~/models/session.server";
import { getDeviceKey } from "~/models/sign-in-device.server";
import { createEmailVerification } from "~/models/email-verification.server";
import { DEFAULT_LOCALE } from "~/i18n/locales";
import { appMailOrigin } from "~/server/host.server";
import * as users from "~/models/user.server";
import { EmailTakenError, type Role, type UserStatus } from "~/models/user.server";
import { conflict, forbidden, invalid, issue, limitedBy, memberOf, notFound, ok, transact, type Actor, type Result } from "~/operations/core.server";
import { type FreelancerRegisterInput, type LoginInput, type RegisterInput } from "~/schemas/account";
import { getDb } from "~/server/db.server";
import { hashPassword, passwordNeedsRehash } from "~/server/password.server";
import { addressKey, consume, refund, resetLimit } from "~/server/rate-limit.server";
import { deviceAfterSignIn, normaliseEmail, trustedDevice } from "~/server/sign-in-device.server";

/** Every operation takes the database last: the app's by default, a test's or a script's own when given. */
export type Options = { db?: Knex };

/** A session the door hands to its client (a cookie, or a Bearer token for the API). */
export type NewSession = { userId: number; token: string; expiresAt: Date; persistent: boolean };

/**
 * Signing in or joining from an app (the JSON API, ADR 041) rather than a browser: the session is an app's,
 * named by a Bearer token, and no device cookie is involved.
 */
export type AppSignIn = { platform: AppPlatform; deviceName: string | null };

export const onlyMembers = (actor: Actor) => (actor.kind === "member" ? null : forbidden("account.sign_in_required"));
const userAgentOf = (actor: Actor) => (actor.kind === "system" ? null : actor.client.userAgent || null);

/**
 * Joining: /register (a client, or a freelancer who chose Work) and /freelancer/register (a seller with
 * skills). Counted per address before anything else; a taken email is refused beside the field. The new
 * member is signed in (a browser session, and the browser's device cookie names the account: ADR 030) and
 * their signup recorded as a business conversion after the commit. A link that verifies their email is mailed
 * to it (ADR 051), pointing at `mailOrigin` (the door's getMailOrigin; the configured public URL by default).
 */
export type JoinInput = RegisterInput | (FreelancerRegisterInput & { role: "freelancer" });

export async function join(
  actor: Actor,
  input: JoinInput & { device?: string | null; app?: AppSignIn; language?: "en" | "lg" | "sw"; mailOrigin?: string },
  { db }: Options = {},
): Promise<Result<NewSession & { username: string; device: string }>> {
  if (actor.kind !== "anonymous") return forbidden("account.already_member");
  const limited = await consume("join", [`ip:${addressKey(actor.client.ip)}`]);
  if (limited) return limitedBy(limited);
  const deviceKey = await getDeviceKey(db ?? getDb());
  const passwordHash = await hashPassword(input.password);
  const seller =
    "skills" in input
      ? { skills: input.skills, yearsExperience: input.yearsExperience ?? null, portfolioUrl: input.portfolioUrl ?? null, bio: input.description ?? "" }
      : {};
  return transact(
    actor,
    async (tx) => {
      let created: { id: number; username: string };
      try {
        // A member keeps the language they joined in: their mail and notifications are in it from the start.
        created = await users.createUser(tx.trx, { name: input.name, email: input.email, passwordHash, role: input.role, language: input.language, ...seller });
      } catch (error) {
        if (error instanceof EmailTakenError) return invalid({ email: [issue("account.email_taken")] });
        throw error;
      }
      const { token, expiresAt } = input.app
        ? await createAppSession(tx.trx, { userId: created.id, admin: false, ...input.app, userAgent: userAgentOf(actor) })
        : await createSession(tx.trx, { userId: created.id, persistent: false, userAgent: userAgentOf(actor) });
      await tx.activity(created.id, "joined", { role: input.role });
      // The link that verifies the address (ADR 051), in the language they joined in.
      const recipient = { id: created.id, name: input.name, email: input.email, language: input.language ?? DEFAULT_LOCALE };
      await createEmailVerification(tx.trx, recipient, input.mailOrigin ?? appMailOrigin());
      await tx.effect(
        { kind: "conversion", fact: conversionFact(actor, { type: "signup", userId: created.id, subjectId: created.id, metadata: { role: input.role } }) },
        `conversion:signup:${created.id}`,
      );
      // The browser that made the account is one that signed in to it (ADR 030).
      const device = input.app ? "" : deviceAfterSignIn(deviceKey, input.device, input.email);
      return ok({ userId: created.id, username: created.username, token, expiresAt, persistent: Boolean(input.app), device });
    },
    { db },
  );
}

/**
 * Signing in (ADR 030). The attempt is counted before the password is checked, so a burst of parallel
 * guesses cannot all slip in before the first is counted; the right password gives it back. Whom it counts
 * against depends on the browser: one that signed in to this account before (a valid device cookie,
 * `input.device`) only against that account and device, so nobody else's failures can lock it out; any
 * other against the account and address, the address, and the account's ceiling for new browsers, in turn,
 * stopping at the first that refuses. A hash made with weaker parameters is replaced while we hold the
 * password. Suspended and banned members are told why and get no session. An admin's session is never
 * persistent (nor is any on the admin host): it ends with the browser, and after 12 hours idle.
 * A successful sign-in hands back the device cookie's new value (`device`).
 */
export async function signIn(
  actor: Actor,
  input: LoginInput & { site: "main" | "admin"; device?: string | null; app?: AppSignIn },
  { db = getDb() }: Options = {},
): Promise<Result<NewSession & { device: string; role: Role }>> {
  if (actor.kind === "system") return forbidden("access.not_for_platform", { task: "sign_in" });
  const { password } = input;
  const email = normaliseEmail(input.email);
  const address = addressKey(actor.client.ip);
  const deviceKey = await getDeviceKey(db);
  const device = trustedDevice(deviceKey, input.device, email);
  const counts: [name: "signIn" | "signInDevice" | "signInAddress" | "signInEmail", key: string][] = device
    ? [["signInDevice", `${email}|${device}`]]
    : [
        ["signIn", `${email}|${address}`],
        ["signInAddress", address],
        ["signInEmail", email],
      ];
  for (const [name, key] of counts) {
    const limited = await consume(name, [key]);
    if (limited) return limitedBy(limited); // its words say when to try again
  }
  const user = await users.verifyCredentials(db, email, password);
  if (!user) return invalid({ form: [issue("account.invalid_sign_in")] });
  // The right password: this attempt was not a guess.
  const [first, ...shared] = counts;
  await Promise.all([resetLimit(first![0], first![1]), ...shared.map(([name, key]) => refund(name, key))]);
  if (user.status !== "active") return forbidden(user.status === "banned" ? "account.banned" : "account.suspended");
  const stronger = passwordNeedsRehash(user.passwordHash) ? await hashPassword(password) : null;
  const admin = user.role === "admin";
  const persistent = input.app ? !admin : input.remember === "on" && input.site !== "admin" && !admin;
  return transact(
    actor,
    async (tx) => {
      if (stronger) await users.upgradePasswordHash(tx.trx, user.id, { from: user.passwordHash, to: stronger });
      const { token, expiresAt } = input.app
        ? await createAppSession(tx.trx, { userId: user.id, admin, ...input.app, userAgent: userAgentOf(actor) })
        : await createSession(tx.trx, { userId: user.id, persistent, userAgent: userAgentOf(actor) });
      await tx.activity(user.id, "signed_in");
      const device = input.app ? "" : deviceAfterSignIn(deviceKey, input.device, email);
      return ok({ userId: user.id, token, expiresAt, persistent, device, role: user.role, language: user.language });
    },
    { db },
  );
}

/**
 * A member is active: their browser session's end moves 12 hours ahead, when the session's read found it due
 * (at most once every five minutes; app/models/session.server.ts). Without this an admin working all day
 * was signed out 12 hours after signing in; with it, a session still ends after 12 hours idle. No activity
 * row: the member did nothing worth listing.
 */
export async function keepSessionAlive(actor: Actor, { db }: Options = {}): Promise<Result<{ renewed: boolean }>> {
  const refused = onlyMembers(actor);
  if (refused) return refused;
  const { sessionId } = memberOf(actor)!;
  return transact(actor, async (tx) => ok({ renewed: await renewSession(tx.trx, sessionId) }), { db });
}

/** Signing out: this session ends (an app's with the tokens its refreshes replaced). A visitor has nothing to end. */
export async function signOut(actor: Actor, { db }: Options = {}): Promise<Result<null>> {
  if (actor.kind === "system") return forbidden("access.not_for_platform", { task: "session" });
  if (actor.kind === "anonymous") return ok(null);
  const { sessionId, id } = actor.user;
  return transact(
    actor,
    async (tx) => {
      for (const ended of await deleteMemberSession(tx.trx, id, sessionId)) tx.live({ disconnectSession: ended });
      return ok(null);
    },
    { db },
  );
}

/** "Sign out of all other sessions": every session of the member but this one ends. */
export async function signOutOthers(actor: Actor, { db }: Options = {}): Promise<Result<{ ended: number }>> {
  const refused = onlyMembers(actor);
  if (refused) return refused;
  const user = memberOf(actor)!;
  return transact(
    actor,
    async (tx) => {
      const ended = await deleteUserSessions(tx.trx, user.id, { exceptSessionId: user.sessionId });
      tx.live({ disconnect: user.id, except: user.sessionId });
      await tx.activity(user.id, "signed_out_elsewhere");
      return ok({ ended: Number(ended) });
    },
    { db },
  );
}

/** A client starts selling: the same account becomes a freelancer. Already a seller: nothing changes. */
export async function becomeSeller(actor: Actor, { db }: Options = {}): Promise<Result<{ changed: boolean }>> {
  const refused = onlyMembers(actor);
  if (refused) return refused;
  const user = memberOf(actor)!;
  if (user.role === "admin") return forbidden("seller.admins_do_not_sell");
  return transact(
    actor,
    async (tx) => {
      const changed = await users.becomeSeller(tx.trx, user.id);
      if (changed) await tx.activity(user.id, "became_seller");
      return ok({ changed });
    },
    { db },
  );
}

/** An administrator, made by the platform only (`npm run admin:create`). A taken email is refused beside the field. */
export async function createAdmin(
  actor: Actor,
  input: { name: string; email: string; password: string },
  { db }: Options = {},
): Promise<Result<{ id: number; username: string }>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "make_admins" });
  const passwordHash = await hashPassword(input.password);
  return transact(
    actor,
    async (tx) => {
      let created: { id: number; username: string };
      try {
        created = await users.createUser(tx.trx, { name: input.name, email: input.email, passwordHash, role: "admin" satisfies Role });
      } catch (error) {
        if (error instanceof EmailTakenError) return invalid({ email: [issue("account.email_taken")] });
        throw error;
      }
      await tx.activity(created.id, "joined", { role: "admin" });
      return ok(created);
    },
    { db },
  );
}

/**
 * A client or freelancer account made by the platform rather than by a visitor joining (the demo data;
 * later an import): the same row and "joined" activity as a join, but no join limit, no session and no
 * signup conversion (nobody signed up). `passwordHash` lets many accounts share one hash made once (the
 * demo password: scrypt costs a few hundred milliseconds a hash). `emailVerified`: the platform knows the
 * address is the member's (the demo's), so no link is mailed (ADR 051). A taken email is refused beside the field.
 */
export async function createMember(
  actor: Actor,
  input: { name: string; email: string; role: "client" | "freelancer"; passwordHash: string; skills?: string[]; bio?: string; emailVerified?: boolean },
  { db }: Options = {},
): Promise<Result<{ id: number; username: string }>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "make_accounts" });
  const { name, email, role, passwordHash, skills, bio, emailVerified } = input;
  return transact(
    actor,
    async (tx) => {
      let created: { id: number; username: string };
      try {
        created = await users.createUser(tx.trx, { name, email, role, passwordHash, skills, bio, emailVerified });
      } catch (error) {
        if (error instanceof EmailTakenError) return invalid({ email: [issue("account.email_taken")] });
        throw error;
      }
      await tx.activity(created.id, "joined", { role });
      return ok(created);
    },
    { db },
  );
}

const STATUS_AUDIT = { active: "user.activate", suspended: "user.suspend", banned: "user.ban" } as const;

/**
 * Suspends, bans or re-activates a member, by an admin or the platform; anything but active ends their
 * sessions at once. An admin cannot change their own account's status.
 */
export async function setUserStatus(actor: Actor, input: { userId: number; status: UserStatus }, { db }: Options = {}): Promise<Result<null>> {
  if (actor.kind === "anonymous" || (actor.kind === "member" && actor.user.role !== "admin")) return forbidden();
  if (actor.kind === "member" && actor.user.id === input.userId) return conflict("account.own_status");
  return transact(
    actor,
    async (tx) => {
      if (!(await users.setUserStatus(tx.trx, input.userId, input.status))) return notFound("member.not_found");
      tx.pagesChanged(); // a suspended or banned seller's gigs leave the catalogue
      await tx.activity(input.userId, `status_${input.status}`);
      await tx.audit({ action: STATUS_AUDIT[input.status], targetType: "user", targetId: input.userId });
      // Their open pages lose their live connection at once (every web process, through Redis); a page
      // that tries to reconnect meets a handshake without a working session.
      if (input.status !== "active") tx.live({ disconnect: input.userId });
      return ok(null);
    },
    { db },
  );
}
