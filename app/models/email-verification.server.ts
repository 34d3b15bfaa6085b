/**
 * Email verification links (ADR 051), made as password resets are (app/models/password-reset.server.ts): a
 * random single-use token in the link, only its SHA-256 stored, valid for 48 hours. Each link names the address
 * it was mailed to: once the member's email has changed, a link to the old address is refused. Plain reads and
 * writes on a `Db` that may be a transaction; app/operations/email-verification.server.ts puts them together.
 */
import { randomBytes } from "node:crypto";
import { serverI18n } from "~/i18n/catalog.server";
import { DEFAULT_LOCALE, isLocale, type Locale } from "~/i18n/locales";
import { sendMail } from "~/models/outbox.server";
import { hashToken } from "~/models/session.server";
import type { Db } from "~/server/db.server";

export const VERIFY_TTL_MS = 48 * 60 * 60 * 1000;

/** The page a verification link opens (the API's `/auth/verify-email` has the same name); the token rides in its query, as a reset link's does. */
export const VERIFY_PATH = "/auth/verify-email";

/** A member to mail a link to, in their language (ADR 047), and whether their current address is verified. */
export type VerifyRecipient = { id: number; name: string; email: string; language: Locale; verified: boolean };

export async function findVerifyRecipient(db: Db, userId: number): Promise<VerifyRecipient | null> {
  const user = await db("users").where({ id: userId, status: "active" }).first("id", "name", "email", "language", "email_verified_at");
  if (!user) return null;
  const language = isLocale(user.language) ? user.language : DEFAULT_LOCALE;
  return { id: Number(user.id), name: user.name, email: user.email, language, verified: user.email_verified_at !== null };
}

/**
 * Stores a new link for the member's current address and writes the mail that carries it (on the caller's
 * transaction). Their older unused links stay good until they expire: a member who asked twice may open either mail.
 */
export async function createEmailVerification(db: Db, user: Omit<VerifyRecipient, "verified">, origin: string) {
  const token = randomBytes(32).toString("base64url");
  await db("email_verifications").insert({ id: hashToken(token), user_id: user.id, email: user.email, expires_at: new Date(Date.now() + VERIFY_TTL_MS) });
  const i18n = serverI18n(user.language);
  await sendMail(db, {
    to: user.email,
    subject: i18n._("mail.verify.subject"),
    body: i18n._("mail.verify.body", { name: user.name, link: `${origin}${VERIFY_PATH}?token=${token}` }),
  });
}

/** Why a token does not verify: unknown or used (`used`), out of time (`expired`), or for an address since changed (`stale`). */
export type DeadLink = "used" | "expired" | "stale";

/**
 * Whether a token is a live link (read only; with `lock`, its row locked for the transaction that uses it):
 * the member's id, or why the link is dead.
 */
export async function readVerifyToken(db: Db, token: string, { lock = false } = {}): Promise<{ userId: number } | { dead: DeadLink }> {
  if (!token || token.length > 200) return { dead: "used" };
  const query = db("email_verifications as v")
    .join("users as u", "u.id", "v.user_id")
    .where("v.id", hashToken(token))
    .whereNull("v.used_at")
    .andWhere("u.status", "active")
    .first("v.user_id", "v.email", "u.email as current_email", db.raw("v.expires_at > now() AS fresh"));
  const link = await (lock ? query.forUpdate("v") : query);
  if (!link) return { dead: "used" };
  if (!link.fresh) return { dead: "expired" };
  if (String(link.email).toLowerCase() !== String(link.current_email).toLowerCase()) return { dead: "stale" };
  return { userId: Number(link.user_id) };
}

/**
 * Uses a live token up under a lock, together with the member's other unused links, and marks the member's
 * address verified. Answers the member's id, or why the link is dead.
 */
export async function useVerifyToken(db: Db, token: string): Promise<{ userId: number } | { dead: DeadLink }> {
  const checked = await readVerifyToken(db, token, { lock: true });
  if ("dead" in checked) return checked;
  await cancelEmailVerifications(db, checked.userId);
  await db("users").where({ id: checked.userId }).update({ email_verified_at: db.fn.now() });
  return checked;
}

/** Uses up a member's unused links (their address changed: none of them names it any more). */
export async function cancelEmailVerifications(db: Db, userId: number) {
  await db("email_verifications").where({ user_id: userId }).whereNull("used_at").update({ used_at: db.fn.now() });
}

/** Whether a member's current address is verified. */
export async function isEmailVerified(db: Db, userId: number): Promise<boolean> {
  const row = await db("users").where({ id: userId }).first("email_verified_at");
  return Boolean(row?.email_verified_at);
}
