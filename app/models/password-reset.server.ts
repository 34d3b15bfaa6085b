/**
 * Password resets: a random single-use token in the link, only its SHA-256 stored, valid for one hour.
 * Asking for a reset never tells whether the email has an account. Plain reads and writes on a `Db` that
 * may be a transaction; the account operations put them together (app/operations/accounts.server.ts).
 */
import { randomBytes } from "node:crypto";
import { serverI18n } from "~/i18n/catalog.server";
import { DEFAULT_LOCALE, isLocale, type Locale } from "~/i18n/locales";
import { sendMail } from "~/models/outbox.server";
import { hashToken } from "~/models/session.server";
import type { Db } from "~/server/db.server";

export const RESET_TTL_MS = 60 * 60 * 1000;

/** Who a reset link is mailed to, and the language the mail is written in (theirs: ADR 047). */
export type ResetRecipient = { id: number; name: string; email: string; language?: Locale };

/** The active member an email names, to mail a reset link to; null for anyone else. */
export async function findResetRecipient(db: Db, email: string): Promise<ResetRecipient | null> {
  const user = await db("users").whereRaw("lower(email) = lower(?)", [email]).andWhere({ status: "active" }).first("id", "name", "email", "language");
  return user ? { id: Number(user.id), name: user.name, email: user.email, language: isLocale(user.language) ? user.language : DEFAULT_LOCALE } : null;
}

/** Stores a new reset link for a member and writes the mail that carries it (on the caller's transaction). */
export async function createPasswordReset(db: Db, user: ResetRecipient, origin: string) {
  const token = randomBytes(32).toString("base64url");
  await db("password_resets").insert({ id: hashToken(token), user_id: user.id, expires_at: new Date(Date.now() + RESET_TTL_MS) });
  const i18n = serverI18n(user.language ?? DEFAULT_LOCALE);
  await sendMail(db, {
    to: user.email,
    subject: i18n._("mail.reset.subject"),
    body: i18n._("mail.reset.body", { name: user.name, link: `${origin}/reset-password?token=${token}` }),
  });
}

/** True when a token names an unused, unexpired reset. */
export async function isResetTokenValid(db: Db, token: string): Promise<boolean> {
  if (!token || token.length > 200) return false;
  return Boolean(
    await db("password_resets")
      .where({ id: hashToken(token) })
      .whereNull("used_at")
      .andWhere("expires_at", ">", db.fn.now())
      .first("id"),
  );
}

/**
 * Uses a token once: locks it, and uses it up together with the member's other unused links (an older mail
 * lying in an inbox must not reset the password that is being chosen). Answers the member's id, or null when
 * the token is unknown, used or expired.
 */
export async function useResetToken(db: Db, token: string): Promise<number | null> {
  if (!token || token.length > 200) return null;
  const reset = await db("password_resets")
    .where({ id: hashToken(token) })
    .whereNull("used_at")
    .andWhere("expires_at", ">", db.fn.now())
    .forUpdate()
    .first("id", "user_id");
  if (!reset) return null;
  await cancelPasswordResets(db, Number(reset.user_id));
  return Number(reset.user_id);
}

/** Uses up a member's unused reset links (their password was just changed, by a link or in settings). */
export async function cancelPasswordResets(db: Db, userId: number) {
  await db("password_resets").where({ user_id: userId }).whereNull("used_at").update({ used_at: db.fn.now() });
}
