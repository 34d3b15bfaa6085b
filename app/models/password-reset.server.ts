/**
 * Password resets: a random single-use token in the link, only its SHA-256 stored, valid for one hour.
 * Asking for a reset never tells whether the email has an account.
 */
import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import { sendMail } from "~/models/outbox.server";
import { hashToken } from "~/models/session.server";
import { resetPassword } from "~/models/user.server";

export const RESET_TTL_MS = 60 * 60 * 1000;

/** Writes the reset mail when the email belongs to an active member; does nothing otherwise. */
export async function requestPasswordReset(db: Knex, email: string, origin: string) {
  const user = await db("users").whereRaw("lower(email) = lower(?)", [email]).andWhere({ status: "active" }).first("id", "name", "email");
  if (!user) return;
  const token = randomBytes(32).toString("base64url");
  await db.transaction(async (trx) => {
    await trx("password_resets").insert({ id: hashToken(token), user_id: user.id, expires_at: new Date(Date.now() + RESET_TTL_MS) });
    await sendMail(trx, {
      to: user.email,
      subject: "Reset your Soko password",
      body: `Hello ${user.name},\n\nUse this link within one hour to choose a new password:\n${origin}/reset-password?token=${token}\n\nIf you did not ask for this, ignore this message; your password stays the same.`,
    });
  });
}

/** True when a token names an unused, unexpired reset. */
export async function isResetTokenValid(db: Knex, token: string): Promise<boolean> {
  if (!token || token.length > 200) return false;
  return Boolean(
    await db("password_resets").where({ id: hashToken(token) }).whereNull("used_at").andWhere("expires_at", ">", db.fn.now()).first("id"),
  );
}

/**
 * Uses a token once: sets the password, ends every session, and uses up the member's other unused links too
 * (an older mail lying in an inbox must not reset the password that was just chosen). False when the token
 * is unknown, used or expired.
 */
export async function completePasswordReset(db: Knex, token: string, password: string): Promise<boolean> {
  if (!token || token.length > 200) return false;
  return db.transaction(async (trx) => {
    const reset = await trx("password_resets")
      .where({ id: hashToken(token) })
      .whereNull("used_at")
      .andWhere("expires_at", ">", trx.fn.now())
      .forUpdate()
      .first("id", "user_id");
    if (!reset) return false;
    await trx("password_resets").where({ user_id: reset.user_id }).whereNull("used_at").update({ used_at: trx.fn.now() });
    await resetPassword(trx, reset.user_id, password);
    return true;
  });
}
