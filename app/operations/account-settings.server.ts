/**
 * The settings tabs of an account (ADR 012): profile, notifications, preferences and the footer's currency,
 * and the payout number (ADR 032, proven by a texted code: ADR 055), by the member or, for the demo data, the platform. Joining, signing in
 * and the platform's own account changes are in accounts.server.ts; passwords in passwords.server.ts.
 */
import type { Knex } from "knex";
import * as users from "~/models/user.server";
import * as phones from "~/models/user-phone.server";
import { insertNotification, noticeTime, sayNotice, type Notice } from "~/models/notification.server";
import { sendMail } from "~/models/outbox.server";
import { forbidden, invalid, limitedBy, memberOf, notFound, ok, transact, type Actor, type Result, type Tx } from "~/operations/core.server";
import { pushUnreadCount } from "~/operations/notifications.server";
import { type BillingInput, type NotificationsInput, type PreferencesInput, type ProfileInput } from "~/schemas/account";
import { getDb } from "~/server/db.server";
import { appMailOrigin } from "~/server/host.server";
import { SUPPORT_EMAIL } from "~/content/faq";
import { maskMsisdn, PAYOUT_NUMBER_HOLD_MS, PAYOUT_NUMBER_NOTIFICATION } from "~/domain/mobile-money";
import { deleteImage, InvalidImageError, saveImage } from "~/server/files/storage.server";
import { releaseUploads, reserveUploads, uploadFailure } from "~/server/files/upload-quota.server";
import { onlyMembers, type Options } from "~/operations/accounts.server";
import { checkCurrentPassword } from "~/operations/passwords.server";
import { limitCodes, sendCode, takeCode, typedCode, type CodeOutcome } from "~/operations/phone-verification.server";
import { getDeviceKey } from "~/models/sign-in-device.server";

/**
 * The profile tab. A new picture counts against the member's upload quota (ADR 031, as every stored file
 * does) and is stored before the transaction, its bytes recorded with it; the picture it replaces is deleted
 * once the change has committed, and a picture whose change did not commit is deleted at once (no row names it).
 * A portfolio or years of experience left out (an empty field) is cleared.
 */
export async function updateProfile(
  actor: Actor,
  input: Omit<ProfileInput, "portfolioUrl" | "yearsExperience"> & { portfolioUrl?: string | null; yearsExperience?: number | null; avatar?: Buffer | null },
  { db }: Options = {},
): Promise<Result<null>> {
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
  const portfolioUrl = input.portfolioUrl ?? null;
  const yearsExperience = input.yearsExperience ?? null;
  let result: Result<null> | undefined;
  try {
    result = await transact(
      actor,
      async (tx) => {
        const saved = await users.updateProfile(tx.trx, user.id, {
          name,
          bio,
          location,
          skills,
          languages,
          portfolioUrl,
          yearsExperience,
          avatarKey,
          avatarSizeBytes,
        });
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
    smsOrders: input.smsOrders === "on",
    smsMessages: input.smsMessages === "on",
  };
  return updateOwnRow(actor, user.id, "notifications_updated", (trx) => users.updateNotifications(trx, user.id, prefs), db);
}

/**
 * The billing tab: the mobile-money number payouts go to (ADR 032, 055). Setting it, the first time too, takes
 * the current password (wrong ones counted per member, as sign-in counts them). A number the member has not
 * proven is not set yet: a code is texted to it (`codeSentTo`), and confirmPayoutNumber sets it once the code
 * comes back; their own verified phone is proven already and is set at once. The same number again changes
 * nothing.
 */
export async function updateBilling(
  actor: Actor,
  input: BillingInput,
  { db = getDb(), now = new Date() }: Options & { now?: Date } = {},
): Promise<Result<{ changed: boolean; holdUntil: Date | null; codeSentTo: string | null }>> {
  const refused = onlyMembers(actor);
  if (refused) return refused;
  const user = memberOf(actor)!;
  const wrong = await checkCurrentPassword(user.id, input.currentPassword, db);
  if (wrong) return wrong;
  const number = input.mobileMoneyNumber;
  const settings = await users.getSettings(db, user.id);
  if (settings && needsCode(settings, number)) {
    const limited = await limitCodes(user.id, number);
    if (limited) return limitedBy(limited);
  }
  const key = await getDeviceKey(db);
  return transact<{ changed: boolean; holdUntil: Date | null; codeSentTo: string | null }>(
    actor,
    async (tx) => {
      const before = await phones.lockPayoutNumber(tx.trx, user.id);
      if (!before) return notFound();
      const unchanged = { changed: false, holdUntil: null, codeSentTo: null };
      if (before.mobileMoneyNumber === number && before.payoutNumberVerified) return ok(unchanged);
      if (needsCode({ ...before, payoutNumberVerifiedAt: before.payoutNumberVerified ? now : null }, number)) {
        await sendCode(tx, { userId: user.id, phone: number, purpose: "payout", key, now });
        return ok({ ...unchanged, codeSentTo: number });
      }
      // Their verified phone: proven already. The same number as before is proven without a new hold.
      if (before.mobileMoneyNumber === number) {
        await phones.provePayoutNumber(tx.trx, user.id, number);
        return ok(unchanged);
      }
      const holdUntil = await setHeldPayoutNumber(tx, user, before, number);
      return ok({ changed: true, holdUntil, codeSentTo: null });
    },
    { db },
  );
}

/** Whether saving `number` as the payout number takes a texted code: not for the member's verified phone, nor for the proven number it already is. */
function needsCode(s: { verifiedPhone: string | null; mobileMoneyNumber: string | null; payoutNumberVerifiedAt: Date | null }, number: string) {
  if (s.verifiedPhone === number) return false;
  return !(s.mobileMoneyNumber === number && s.payoutNumberVerifiedAt);
}

/**
 * The code texted to a new payout number, typed back: a right one sets the number (held 24 hours, the member
 * told at once); a wrong one is counted and refused (the outcome is not an error, so the count commits). A
 * member without a verified phone has this one verified too: texts go to it from now on.
 */
export async function confirmPayoutNumber(
  actor: Actor,
  input: { code: string },
  { db = getDb(), now = new Date() }: Options & { now?: Date } = {},
): Promise<Result<CodeOutcome & { holdUntil?: Date }>> {
  const refused = onlyMembers(actor);
  if (refused) return refused;
  const user = memberOf(actor)!;
  const code = typedCode(input.code);
  if (!code) return invalid({ code: [{ code: "schema", message: "account.phone.codeFormat" }] });
  const key = await getDeviceKey(db);
  return transact<CodeOutcome & { holdUntil?: Date }>(
    actor,
    async (tx) => {
      const before = await phones.lockPayoutNumber(tx.trx, user.id);
      if (!before) return notFound();
      const outcome = await takeCode(tx, { userId: user.id, purpose: "payout", code, key, now });
      if (!outcome.verified) return ok(outcome);
      if (!before.verifiedPhone) await phones.setVerifiedPhone(tx.trx, user.id, outcome.phone);
      // A number saved before numbers were proven, proven now: no change, so no new hold.
      if (before.mobileMoneyNumber === outcome.phone) {
        await phones.provePayoutNumber(tx.trx, user.id, outcome.phone);
        return ok(outcome);
      }
      const holdUntil = await setHeldPayoutNumber(tx, user, before, outcome.phone);
      return ok({ ...outcome, holdUntil });
    },
    { db },
  );
}

/**
 * Sets a proven payout number chosen by the member: withdrawals to it wait 24 hours (ADR 032) and the member is
 * told at once, in /notifications and by mail to the account's email whatever their mail settings, so someone
 * who got hold of their session and password has a day in which the member can stop them.
 */
async function setHeldPayoutNumber(tx: Tx, user: NonNullable<ReturnType<typeof memberOf>>, before: PayoutNumberRow, number: string): Promise<Date> {
  const setAt = (await phones.setPayoutNumber(tx.trx, user.id, number, { held: true }))!;
  const holdUntil = new Date(setAt.getTime() + PAYOUT_NUMBER_HOLD_MS);
  const masked = maskMsisdn(number);
  await tx.activity(user.id, "billing_updated", { number: masked });
  // Said in the member's own language (ADR 047): the notification when it is read, the mail now.
  const values = {
    change: before.mobileMoneyNumber ? "changed" : "set",
    number: masked,
    previous: before.mobileMoneyNumber ? maskMsisdn(before.mobileMoneyNumber) : "",
    setAt: noticeTime(setAt, before.timeZone),
    opensAt: noticeTime(holdUntil, before.timeZone),
    support: SUPPORT_EMAIL,
  };
  const notice: Notice = { key: "notify.payout.numberChanged", values };
  await insertNotification(tx.trx, { userId: user.id, kind: PAYOUT_NUMBER_NOTIFICATION, notice });
  await pushUnreadCount(tx, user.id, { kind: PAYOUT_NUMBER_NOTIFICATION, body: sayNotice(notice, user.language), orderId: null, conversationId: null });
  await sendMail(tx.trx, {
    to: before.email,
    subject: sayNotice({ key: "mail.payout.subject", values }, user.language),
    body: sayNotice({ key: "mail.payout.body", values: { ...values, name: before.name, origin: appMailOrigin() } }, user.language),
  });
  return holdUntil;
}

type PayoutNumberRow = NonNullable<Awaited<ReturnType<typeof phones.lockPayoutNumber>>>;

/**
 * A payout number set by the platform rather than by the member (the demo data; later an import): no password
 * to ask for, nobody to warn, no hold.
 */
export async function setMemberPayoutNumber(actor: Actor, input: { userId: number; mobileMoneyNumber: string }, { db }: Options = {}): Promise<Result<null>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "set_payout_numbers" });
  return transact(
    actor,
    async (tx) => {
      if (!(await phones.lockPayoutNumber(tx.trx, input.userId))) return notFound();
      await phones.setPayoutNumber(tx.trx, input.userId, input.mobileMoneyNumber, { held: false });
      await tx.activity(input.userId, "billing_updated", { number: maskMsisdn(input.mobileMoneyNumber) });
      return ok(null);
    },
    { db },
  );
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

/**
 * The language switch, for a member: stored with their preferences, so every device and every mail and
 * notification follows it (a visitor's choice is only a cookie, which the route sets).
 */
export async function setLanguage(actor: Actor, input: { language: "en" | "lg" | "sw" }, { db }: Options = {}): Promise<Result<null>> {
  const refused = onlyMembers(actor);
  if (refused) return refused;
  const user = memberOf(actor)!;
  return updateOwnRow(actor, user.id, "preferences_updated", (trx) => users.setLanguage(trx, user.id, input.language), db);
}

/**
 * Data-saver mode (ADR 054), for a member: stored with their preferences, so it follows them to every device they
 * sign in on (a visitor's choice is only a cookie, which the route sets). The same switch and Settings › Preferences
 * both come here.
 */
export async function setDataSaver(actor: Actor, input: { dataSaver: boolean }, { db }: Options = {}): Promise<Result<null>> {
  const refused = onlyMembers(actor);
  if (refused) return refused;
  const user = memberOf(actor)!;
  return updateOwnRow(actor, user.id, "preferences_updated", (trx) => users.setDataSaver(trx, user.id, input.dataSaver), db);
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
