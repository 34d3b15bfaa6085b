/**
 * Verified emails (ADR 051): a link mailed at joining and when the address changes, mailed again on request
 * (limited per member), and used once to mark the member's current address verified. Until then a member may
 * browse, chat and order, but a freelancer may not publish a gig (app/operations/gigs.server.ts asks
 * `publishRefusal`). Links are made and checked in app/models/email-verification.server.ts.
 */
import { cancelEmailVerifications, createEmailVerification, findVerifyRecipient, isEmailVerified, useVerifyToken } from "~/models/email-verification.server";
import * as users from "~/models/user.server";
import { EmailTakenError } from "~/models/user.server";
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
  type Tx,
} from "~/operations/core.server";
import { onlyMembers, type Options } from "~/operations/accounts.server";
import { checkCurrentPassword } from "~/operations/passwords.server";
import type { Db } from "~/server/db.server";
import { getDb } from "~/server/db.server";
import { appMailOrigin } from "~/server/host.server";
import { consume } from "~/server/rate-limit.server";

/** Mails a link to a member's current address, on the operation's transaction (joining, a changed address). */
export async function mailVerificationLink(tx: Tx, userId: number, origin = appMailOrigin()) {
  const recipient = await findVerifyRecipient(tx.trx, userId);
  if (recipient) await createEmailVerification(tx.trx, recipient, origin);
}

/**
 * "Resend the link": counted per member (5 an hour), whatever address they ask from. `origin` is where the
 * link points (the door's getMailOrigin; the configured public URL by default).
 */
export async function resendVerification(
  actor: Actor,
  { origin = appMailOrigin() }: { origin?: string } = {},
  { db = getDb() }: Options = {},
): Promise<Result<{ email: string }>> {
  const refused = onlyMembers(actor);
  if (refused) return refused;
  const user = memberOf(actor)!;
  if (await isEmailVerified(db, user.id)) return conflict("verify.already_verified");
  const limited = await consume("verifyEmail", [`user:${user.id}`]);
  if (limited) return limitedBy(limited);
  return transact(
    actor,
    async (tx) => {
      const recipient = await findVerifyRecipient(tx.trx, user.id);
      if (!recipient) return notFound();
      if (recipient.verified) return conflict("verify.already_verified");
      await createEmailVerification(tx.trx, recipient, origin);
      return ok({ email: recipient.email });
    },
    { db },
  );
}

/**
 * A link followed (`/auth/verify-email`, or the JSON API): by anyone holding it, signed in or not, since the
 * mail may be opened on another device. The link and the member's other unused links are used up; the badge
 * shows on their public pages, so cached pages drop.
 */
export async function verifyEmail(actor: Actor, input: { token: string }, { db = getDb() }: Options = {}): Promise<Result<{ userId: number }>> {
  if (actor.kind === "system") return forbidden("access.not_for_platform", { task: "use_reset_link" });
  return transact(
    actor,
    async (tx) => {
      const checked = await useVerifyToken(tx.trx, input.token);
      if ("dead" in checked) return conflict("verify.link_dead", { why: checked.dead });
      tx.pagesChanged(); // the "Email verified" badge on their profile and gigs
      await tx.activity(checked.userId, "email_verified");
      return ok({ userId: checked.userId });
    },
    { db },
  );
}

/**
 * A new address for the account, after the current password: it is unverified until its own link is followed
 * (mailed now); links to the old address die, and the badge goes.
 */
export async function changeEmail(
  actor: Actor,
  input: { email: string; currentPassword: string; origin?: string },
  { db = getDb() }: Options = {},
): Promise<Result<{ changed: boolean }>> {
  const refused = onlyMembers(actor);
  if (refused) return refused;
  const user = memberOf(actor)!;
  const wrong = await checkCurrentPassword(user.id, input.currentPassword, db);
  if (wrong) return wrong;
  return transact<{ changed: boolean }>(
    actor,
    async (tx) => {
      let changed: boolean;
      try {
        changed = await users.setEmail(tx.trx, user.id, input.email);
      } catch (error) {
        if (error instanceof EmailTakenError) return invalid({ email: [issue("account.email_taken")] });
        throw error;
      }
      if (!changed) return ok({ changed: false });
      await cancelEmailVerifications(tx.trx, user.id);
      await mailVerificationLink(tx, user.id, input.origin);
      tx.pagesChanged();
      await tx.activity(user.id, "email_changed");
      return ok({ changed: true });
    },
    { db },
  );
}

/**
 * Null when the member may publish gigs; else the refusal that says how to verify (a conflict with the
 * account's state, so the gig form shows it beside the form, with the seller's work kept).
 */
export async function publishRefusal(db: Db, userId: number): Promise<Failure | null> {
  return (await isEmailVerified(db, userId)) ? null : conflict("verify.required_to_publish");
}
