/**
 * Accounts (ADR 012): joining, signing in and out, settings, passwords, becoming a seller, and what the
 * platform does to accounts (admins, status). Each operation checks the actor's right, counts its rate limit
 * before the expensive work (a password hash, an image), and writes its rows, its activity and its
 * after-commit effects in one transaction; routes, scripts and (later) the JSON API only map its Result.
 * Password hashes are made before the transaction, so no connection waits on scrypt.
 */
import type { Knex } from "knex";
import { conversionFact } from "~/analytics/conversions.server";
import { cancelPasswordResets, createPasswordReset, findResetRecipient, isResetTokenValid, useResetToken } from "~/models/password-reset.server";
import { createSession, deleteSessionById, deleteUserSessions, renewSession } from "~/models/session.server";
import { getDeviceKey } from "~/models/sign-in-device.server";
import * as users from "~/models/user.server";
import { EmailTakenError, type Role, type UserStatus } from "~/models/user.server";
import { insertNotification } from "~/models/notification.server";
import { sendMail } from "~/models/outbox.server";
import {
  conflict,
  forbidden,
  invalid,
  issue,
  limitedBy,
  memberOf,
  notFound,
  ok,
  transact,
  type Actor,
  type Failure,
  type Result,
} from "~/operations/core.server";
import { pushUnreadCount } from "~/operations/notifications.server";
import {
  type BillingInput,
  type ForgotPasswordInput,
  type FreelancerRegisterInput,
  type LoginInput,
  type NotificationsInput,
  type PreferencesInput,
  type ProfileInput,
  type RegisterInput,
  type ResetPasswordInput,
  type SecurityInput,
} from "~/schemas/account";
import { formatDateTime } from "~/utils/dates";
import { getDb } from "~/server/db.server";
import { appMailOrigin } from "~/server/host.server";
import { SUPPORT_EMAIL } from "~/content/faq";
import { maskMsisdn, PAYOUT_NUMBER_HOLD_MS, PAYOUT_NUMBER_NOTIFICATION } from "~/domain/mobile-money";
import { hashPassword, passwordNeedsRehash, verifyPassword } from "~/server/password.server";
import { addressKey, consume, refund, resetLimit, type Limited } from "~/server/rate-limit.server";
import { deviceAfterSignIn, normaliseEmail, trustedDevice } from "~/server/sign-in-device.server";
import { deleteImage, InvalidImageError, saveImage } from "~/server/files/storage.server";
import { releaseUploads, reserveUploads, uploadFailure } from "~/server/files/upload-quota.server";

/** Every operation takes the database last: the app's by default, a test's or a script's own when given. */
type Options = { db?: Knex };

/** A session the door hands to its client (a cookie, or a Bearer token for the API). */
export type NewSession = { userId: number; token: string; expiresAt: Date; persistent: boolean };

const onlyMembers = (actor: Actor) => (actor.kind === "member" ? null : forbidden("account.sign_in_required"));
const userAgentOf = (actor: Actor) => (actor.kind === "system" ? null : actor.client.userAgent || null);

/**
 * Joining: /register (a client, or a freelancer who chose Work) and /freelancer/register (a seller with
 * skills). Counted per address before anything else; a taken email is refused beside the field. The new
 * member is signed in (a browser session, and the browser's device cookie names the account: ADR 030) and
 * their signup recorded as a business conversion after the commit.
 */
export type JoinInput = RegisterInput | (FreelancerRegisterInput & { role: "freelancer" });

export async function join(
  actor: Actor,
  input: JoinInput & { device?: string | null },
  { db }: Options = {},
): Promise<Result<NewSession & { username: string; device: string }>> {
  if (actor.kind !== "anonymous") return forbidden("account.already_member");
  const limited = await consume("join", [`ip:${addressKey(actor.client.ip)}`]);
  if (limited) return limitedBy(limited);
  const deviceKey = await getDeviceKey(db ?? getDb());
  const passwordHash = await hashPassword(input.password);
  const seller = "skills" in input ? { skills: input.skills, yearsExperience: input.yearsExperience ?? null, portfolioUrl: input.portfolioUrl ?? null, bio: input.description ?? "" } : {};
  return transact(
    actor,
    async (tx) => {
      let created: { id: number; username: string };
      try {
        created = await users.createUser(tx.trx, { name: input.name, email: input.email, passwordHash, role: input.role, ...seller });
      } catch (error) {
        if (error instanceof EmailTakenError) return invalid({ email: [issue("account.email_taken")] });
        throw error;
      }
      const { token, expiresAt } = await createSession(tx.trx, { userId: created.id, persistent: false, userAgent: userAgentOf(actor) });
      await tx.activity(created.id, "joined", { role: input.role });
      await tx.effect(
        { kind: "conversion", fact: conversionFact(actor, { type: "signup", userId: created.id, subjectId: created.id, metadata: { role: input.role } }) },
        `conversion:signup:${created.id}`,
      );
      // The browser that made the account is one that signed in to it (ADR 030).
      const device = deviceAfterSignIn(deviceKey, input.device, input.email);
      return ok({ userId: created.id, username: created.username, token, expiresAt, persistent: false, device });
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
  input: LoginInput & { site: "main" | "admin"; device?: string | null },
  { db = getDb() }: Options = {},
): Promise<Result<NewSession & { device: string }>> {
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
  const persistent = input.remember === "on" && input.site !== "admin" && user.role !== "admin";
  return transact(
    actor,
    async (tx) => {
      if (stronger) await users.upgradePasswordHash(tx.trx, user.id, { from: user.passwordHash, to: stronger });
      const { token, expiresAt } = await createSession(tx.trx, { userId: user.id, persistent, userAgent: userAgentOf(actor) });
      await tx.activity(user.id, "signed_in");
      return ok({ userId: user.id, token, expiresAt, persistent, device: deviceAfterSignIn(deviceKey, input.device, email) });
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

/** Signing out: this session ends. A visitor without a live session has nothing to end. */
export async function signOut(actor: Actor, { db }: Options = {}): Promise<Result<null>> {
  if (actor.kind === "system") return forbidden("access.not_for_platform", { task: "session" });
  if (actor.kind === "anonymous") return ok(null);
  const { sessionId } = actor.user;
  return transact(
    actor,
    async (tx) => {
      await deleteSessionById(tx.trx, sessionId);
      tx.live({ disconnectSession: sessionId });
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

/**
 * The profile tab. A new picture counts against the member's upload quota (ADR 031, as every stored file
 * does) and is stored before the transaction, its bytes recorded with it; the picture it replaces is deleted
 * once the change has committed, and a picture whose change did not commit is deleted at once (no row names it).
 */
export async function updateProfile(actor: Actor, input: ProfileInput & { avatar?: Buffer | null }, { db }: Options = {}): Promise<Result<null>> {
  const refused = onlyMembers(actor);
  if (refused) return refused;
  const user = memberOf(actor)!;
  let avatarKey: string | undefined;
  let avatarSizeBytes: number | undefined;
  if (input.avatar?.length) {
    const refused = await reserveUploads(user.id, [input.avatar.length], { db });
    if (refused) return uploadFailure(refused, "avatar");
    try {
      ({ key: avatarKey, sizeBytes: avatarSizeBytes } = await saveImage(input.avatar, ["avatar"]));
    } catch (error) {
      await releaseUploads(user.id, [input.avatar.length]);
      if (error instanceof InvalidImageError) return invalid({ avatar: [error.issue] });
      throw error;
    }
  }
  const { name, bio, location, skills, languages } = input;
  let result: Result<null> | undefined;
  try {
    result = await transact(
      actor,
      async (tx) => {
        const saved = await users.updateProfile(tx.trx, user.id, { name, bio, location, skills, languages, avatarKey, avatarSizeBytes });
        if (!saved) return notFound();
        tx.pagesChanged(); // a seller's name, picture and bio show on their gigs and profile
        const previous = saved.previousAvatarKey;
        if (avatarKey && previous) await tx.effect({ kind: "delete_image", key: previous }, `delete_image:${previous}`);
        await tx.activity(user.id, "profile_updated");
        return ok(null);
      },
      { db },
    );
    return result;
  } finally {
    if (avatarKey && !result?.ok) await deleteImage(avatarKey);
  }
}

/** The notifications tab: an unchecked box is stored as off. */
export async function updateNotifications(actor: Actor, input: NotificationsInput, { db }: Options = {}): Promise<Result<null>> {
  const refused = onlyMembers(actor);
  if (refused) return refused;
  const user = memberOf(actor)!;
  const prefs = {
    emailOrders: input.emailOrders === "on",
    emailMessages: input.emailMessages === "on",
    emailMarketing: input.emailMarketing === "on",
    pushOrders: input.pushOrders === "on",
    pushMessages: input.pushMessages === "on",
  };
  return updateOwnRow(actor, user.id, "notifications_updated", (trx) => users.updateNotifications(trx, user.id, prefs), db);
}

/**
 * The billing tab: the mobile-money number payouts go to (ADR 032). Setting it, the first time too, takes the
 * current password (wrong ones counted per member, as sign-in counts them); a new number is held for 24 hours
 * (withdrawals to it wait: app/operations/payments.server.ts) and the member is told at once, in
 * /notifications and by mail to the account's email whatever their mail settings, so someone who got hold of
 * their session and password has a day in which the member can stop them. The same number again changes nothing.
 */
export async function updateBilling(
  actor: Actor,
  input: BillingInput,
  { db = getDb() }: Options = {},
): Promise<Result<{ changed: boolean; holdUntil: Date | null }>> {
  const refused = onlyMembers(actor);
  if (refused) return refused;
  const user = memberOf(actor)!;
  const wrong = await checkCurrentPassword(user.id, input.currentPassword, db);
  if (wrong) return wrong;
  return transact<{ changed: boolean; holdUntil: Date | null }>(
    actor,
    async (tx) => {
      const before = await users.lockPayoutNumber(tx.trx, user.id);
      if (!before) return notFound();
      if (before.mobileMoneyNumber === input.mobileMoneyNumber) return ok({ changed: false, holdUntil: null });
      const setAt = (await users.setPayoutNumber(tx.trx, user.id, input.mobileMoneyNumber, { held: true }))!;
      const holdUntil = new Date(setAt.getTime() + PAYOUT_NUMBER_HOLD_MS);
      const masked = maskMsisdn(input.mobileMoneyNumber);
      await tx.activity(user.id, "billing_updated", { number: masked });
      const when = (d: Date) => formatDateTime(d, before.timeZone);
      const changed = before.mobileMoneyNumber ? "changed" : "set";
      const body = `Your payout number was ${changed} to ${masked} on ${when(setAt)}. Withdrawals to it open on ${when(holdUntil)}. Not you? Reset your password now and write to ${SUPPORT_EMAIL}.`;
      await insertNotification(tx.trx, { userId: user.id, kind: PAYOUT_NUMBER_NOTIFICATION, body });
      await pushUnreadCount(tx, user.id, { kind: PAYOUT_NUMBER_NOTIFICATION, body, orderId: null, conversationId: null });
      const origin = appMailOrigin();
      await sendMail(tx.trx, {
        to: before.email,
        subject: `Soko: your payout number was ${changed}`,
        body:
          `Hello ${before.name},\n\n` +
          `The mobile-money number your Soko earnings are paid to was ${changed} to ${masked} on ${when(setAt)}` +
          `${before.mobileMoneyNumber ? ` (it was ${maskMsisdn(before.mobileMoneyNumber)})` : ""}.\n` +
          `To keep your earnings safe, withdrawals to the new number open 24 hours later, on ${when(holdUntil)}.\n\n` +
          `If you made this change, there is nothing to do.\n\n` +
          `If it was not you, someone has your password. Reset it now at ${origin}/forgot-password (that signs out ` +
          `every session), then put your own number back in Settings, Billing (${origin}/settings?tab=billing) and ` +
          `write to ${SUPPORT_EMAIL}. Nothing can be withdrawn to the new number before ${when(holdUntil)}.\n`,
      });
      return ok({ changed: true, holdUntil });
    },
    { db },
  );
}

/**
 * A payout number set by the platform rather than by the member (the demo data; later an import): no password
 * to ask for, nobody to warn, no hold.
 */
export async function setMemberPayoutNumber(actor: Actor, input: { userId: number; mobileMoneyNumber: string }, { db }: Options = {}): Promise<Result<null>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "set_payout_numbers" });
  return transact(
    actor,
    async (tx) => {
      if (!(await users.lockPayoutNumber(tx.trx, input.userId))) return notFound();
      await users.setPayoutNumber(tx.trx, input.userId, input.mobileMoneyNumber, { held: false });
      await tx.activity(input.userId, "billing_updated", { number: maskMsisdn(input.mobileMoneyNumber) });
      return ok(null);
    },
    { db },
  );
}

/**
 * The current password of a signed-in member, asked before a change that matters (a new password, a new payout
 * number): counted per member before the check (parallel guesses all count) and given back when right, so only
 * wrong ones use up the limit. Null when right; otherwise what to answer.
 */
async function checkCurrentPassword(userId: number, password: string, db: Knex): Promise<Failure | null> {
  const key = `user:${userId}`;
  const limited = await consume("currentPassword", [key]);
  if (limited) return limitedBy(limited);
  const stored = await users.getPasswordHash(db, userId);
  if (stored === undefined) return notFound();
  if (!(await verifyPassword(password, stored))) return invalid({ currentPassword: [issue("account.wrong_current_password")] });
  await refund("currentPassword", key);
  return null;
}

/** The preferences tab: language, display currency, time zone. */
export async function updatePreferences(actor: Actor, input: PreferencesInput, { db }: Options = {}): Promise<Result<null>> {
  const refused = onlyMembers(actor);
  if (refused) return refused;
  const user = memberOf(actor)!;
  return updateOwnRow(actor, user.id, "preferences_updated", (trx) => users.updatePreferences(trx, user.id, input), db);
}

/**
 * The footer's currency switch, for a member: stored with their preferences (a visitor's choice is only a
 * cookie, which the route sets; there is nothing to store for them).
 */
export async function setCurrency(actor: Actor, input: { preferredCurrency: "UGX" | "USD" }, { db }: Options = {}): Promise<Result<null>> {
  const refused = onlyMembers(actor);
  if (refused) return refused;
  const user = memberOf(actor)!;
  return updateOwnRow(actor, user.id, "preferences_updated", (trx) => users.setPreferredCurrency(trx, user.id, input.preferredCurrency), db);
}

/** One write to the member's own row and its activity; not found when the row is gone. */
function updateOwnRow(
  actor: Actor,
  userId: number,
  kind: "notifications_updated" | "preferences_updated",
  write: (trx: Knex.Transaction) => Promise<boolean>,
  db: Knex | undefined,
): Promise<Result<null>> {
  return transact(
    actor,
    async (tx) => {
      if (!(await write(tx.trx))) return notFound();
      await tx.activity(userId, kind);
      return ok(null);
    },
    { db },
  );
}

/**
 * The security tab: a new password, after the current one. Every other session ends (a changed password
 * should lock out whoever else knew the old one), and so does every unused reset link (perhaps asked for by
 * that same person).
 */
export async function changePassword(actor: Actor, input: SecurityInput, { db = getDb() }: Options = {}): Promise<Result<null>> {
  const refused = onlyMembers(actor);
  if (refused) return refused;
  const user = memberOf(actor)!;
  const wrong = await checkCurrentPassword(user.id, input.currentPassword, db);
  if (wrong) return wrong;
  const passwordHash = await hashPassword(input.password);
  return transact(
    actor,
    async (tx) => {
      await users.setPasswordHash(tx.trx, user.id, passwordHash);
      await deleteUserSessions(tx.trx, user.id, { exceptSessionId: user.sessionId });
      tx.live({ disconnect: user.id, except: user.sessionId });
      await cancelPasswordResets(tx.trx, user.id);
      await tx.activity(user.id, "password_changed");
      return ok(null);
    },
    { db },
  );
}

/**
 * "Forgot your password": counted per address and per email, then a reset link is mailed (an outbox row in
 * the same transaction as the link) when the email belongs to an active member. The answer is the same
 * whether or not it does. `origin` is where the link points (the configured public URL).
 */
export async function requestPasswordReset(
  actor: Actor,
  input: ForgotPasswordInput & { origin: string },
  { db = getDb() }: Options = {},
): Promise<Result<null>> {
  if (actor.kind === "system") return forbidden("access.not_for_platform", { task: "ask_reset_link" });
  const limited = await consume("reset", [`ip:${addressKey(actor.client.ip)}`, `email:${input.email}`]);
  if (limited) return limitedBy(limited);
  const recipient = await findResetRecipient(db, input.email);
  if (!recipient) return ok(null);
  return transact(
    actor,
    async (tx) => {
      await createPasswordReset(tx.trx, recipient, input.origin);
      return ok(null);
    },
    { db },
  );
}

/**
 * A reset link used: the new password is set, the link and the member's other unused links are used up, and
 * every session ends. An unknown, used or expired link is a conflict ("account.reset_link_expired").
 */
export async function completePasswordReset(actor: Actor, input: ResetPasswordInput, { db = getDb() }: Options = {}): Promise<Result<{ userId: number }>> {
  if (actor.kind === "system") return forbidden("access.not_for_platform", { task: "use_reset_link" });
  const expired = conflict("account.reset_link_expired");
  // Checked before the hash, so a dead link costs no scrypt; checked again under a lock in the transaction.
  if (!(await isResetTokenValid(db, input.token))) return expired;
  const passwordHash = await hashPassword(input.password);
  return transact(
    actor,
    async (tx) => {
      const userId = await useResetToken(tx.trx, input.token);
      if (userId === null) return expired;
      await users.setPasswordHash(tx.trx, userId, passwordHash);
      await deleteUserSessions(tx.trx, userId);
      tx.live({ disconnect: userId });
      await tx.activity(userId, "password_reset");
      return ok({ userId });
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
 * demo password: scrypt costs a few hundred milliseconds a hash). A taken email is refused beside the field.
 */
export async function createMember(
  actor: Actor,
  input: { name: string; email: string; role: "client" | "freelancer"; passwordHash: string; skills?: string[]; bio?: string },
  { db }: Options = {},
): Promise<Result<{ id: number; username: string }>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "make_accounts" });
  const { name, email, role, passwordHash, skills, bio } = input;
  return transact(
    actor,
    async (tx) => {
      let created: { id: number; username: string };
      try {
        created = await users.createUser(tx.trx, { name, email, role, passwordHash, skills, bio });
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
export async function setUserStatus(
  actor: Actor,
  input: { userId: number; status: UserStatus },
  { db }: Options = {},
): Promise<Result<null>> {
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
