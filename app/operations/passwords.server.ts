/**
 * Passwords (ADR 012, 030): the current one asked before a change that matters, a new one from the Security
 * tab, and reset links (asked for by mail, then used). Hashes are made before the transaction, so no
 * connection waits on scrypt.
 */
import type { Knex } from "knex";
import { cancelPasswordResets, createPasswordReset, findResetRecipient, isResetTokenValid, useResetToken } from "~/models/password-reset.server";
import { deleteUserSessions } from "~/models/session.server";
import * as users from "~/models/user.server";
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
import { type ForgotPasswordInput, type ResetPasswordInput, type SecurityInput } from "~/schemas/account";
import { getDb } from "~/server/db.server";
import { hashPassword, verifyPassword } from "~/server/password.server";
import { addressKey, consume, refund } from "~/server/rate-limit.server";
import { onlyMembers, type Options } from "~/operations/accounts.server";

/**
 * The current password of a signed-in member, asked before a change that matters (a new password, a new payout
 * number): counted per member before the check (parallel guesses all count) and given back when right, so only
 * wrong ones use up the limit. Null when right; otherwise what to answer.
 */
export async function checkCurrentPassword(userId: number, password: string, db: Knex): Promise<Failure | null> {
  const key = `user:${userId}`;
  const limited = await consume("currentPassword", [key]);
  if (limited) return limitedBy(limited);
  const stored = await users.getPasswordHash(db, userId);
  if (stored === undefined) return notFound();
  if (!(await verifyPassword(password, stored))) return invalid({ currentPassword: [issue("account.wrong_current_password")] });
  await refund("currentPassword", key);
  return null;
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
