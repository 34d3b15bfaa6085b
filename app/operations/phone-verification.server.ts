/**
 * Verifying a member's phone by a code texted to it (ADR 050). `askPhoneCode` checks the number is a Ugandan
 * mobile number, counts the request against the resend limits (per member and per number, in Redis), stores a
 * new six-digit code as an HMAC with the server's key (it replaces any earlier one) and texts it at once through
 * queueSms. `confirmPhoneCode` checks the latest code: right, within 10 minutes, within 5 tries and not used
 * before; a right one sets users.phone and phone_verified_at, and is used up. The payout number's codes (ADR
 * 055, app/operations/account-settings.server.ts) are the same codes under another purpose.
 */
import { createHmac, randomInt, timingSafeEqual } from "node:crypto";
import type { Knex } from "knex";
import { normaliseMsisdn } from "~/domain/mobile-money";
import { getDeviceKey } from "~/models/sign-in-device.server";
import { setVerifiedPhone } from "~/models/user-phone.server";
import { forbidden, invalid, limitedBy, ok, transact, type Actor, type Result, type Tx } from "~/operations/core.server";
import { queueSms } from "~/operations/sms.server";
import { getDb } from "~/server/db.server";
import { consumeAll } from "~/server/rate-limit.server";

export const PHONE_CODE_TTL_MS = 10 * 60_000;
export const PHONE_CODE_TRIES = 5;
const UGANDAN_MOBILE = /^\+2567\d{8}$/;

/** Why a code was not taken; each has its words beside the code field (account.phone.*). */
export type CodeRefusal = "none" | "wrong" | "expired" | "used_up" | "used";

/** The words of each refusal, said beside the code field (account.phone.refused.*). */
export const CODE_REFUSALS: Record<CodeRefusal, string> = {
  none: "account.phone.refused.none",
  wrong: "account.phone.refused.wrong",
  expired: "account.phone.refused.expired",
  used_up: "account.phone.refused.usedUp",
  used: "account.phone.refused.used",
};

/** A typed number as +2567XXXXXXXX, or null when it is not a Ugandan mobile number. */
export function ugandanMobile(typed: string): string | null {
  const phone = normaliseMsisdn(typed.trim());
  return UGANDAN_MOBILE.test(phone) ? phone : null;
}

/**
 * The stored form of a code: an HMAC-SHA256 with the server's key (the sign-in device key, under its own label),
 * of the code row's member and number as well, so a leaked table does not give the codes away by trying the
 * million of them, and a hash cannot be moved to another row.
 */
function codeHash(key: Buffer, userId: number, phone: string, code: string): string {
  return createHmac("sha256", key).update(`soko-phone-code-v1\n${userId}\n${phone}\n${code}`).digest("hex");
}

type Options = { db?: Knex; now?: Date };

/** What a right code does: `phone` verifies the member's own number, `payout` makes it their payout number (ADR 055). */
export type CodePurpose = "phone" | "payout";

/**
 * Counts a code asked for against the resend limits, per member and per number (in Redis, before any write). A
 * number's limit is shared by both purposes, so one number cannot be texted more often by asking for each.
 */
export function limitCodes(userId: number, phone: string) {
  return consumeAll([
    { name: "phoneCode", key: `user:${userId}`, points: 1 },
    { name: "phoneCodeNumber", key: phone, points: 1 },
  ]);
}

/**
 * Stores a new code for `purpose` (replacing the member's earlier one) and texts it at once, in the transaction.
 * `key`: the server's key (getDeviceKey), read before the transaction.
 */
export async function sendCode(tx: Tx, input: { userId: number; phone: string; purpose: CodePurpose; key: Buffer; now: Date }) {
  const { userId, phone, purpose, key, now } = input;
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  await tx.trx("phone_codes").where({ user_id: userId, purpose }).whereNull("used_at").whereNull("superseded_at").update({ superseded_at: now });
  const [row] = await tx
    .trx("phone_codes")
    .insert({ user_id: userId, phone, purpose, code_hash: codeHash(key, userId, phone, code), expires_at: new Date(now.getTime() + PHONE_CODE_TTL_MS) })
    .returning("id");
  await queueSms(tx, {
    userId,
    purpose: "verification",
    to: phone,
    eventKey: `phone_code:${row.id}`,
    words: { key: "notify.sms.code", values: { code } },
    now,
  });
}

export type CodeOutcome = { verified: true; phone: string } | { verified: false; refusal: CodeRefusal };

/**
 * Checks a typed code against the member's latest one of `purpose`, locked: right, within 10 minutes, within 5
 * tries and not used before. A wrong try is counted (the caller commits it: the outcome is not an error); a
 * right one is used up. What a right code does is the caller's.
 */
export async function takeCode(tx: Tx, input: { userId: number; purpose: CodePurpose; code: string; key: Buffer; now: Date }): Promise<CodeOutcome> {
  const { userId, purpose, code, key, now } = input;
  const row = await tx.trx("phone_codes").where({ user_id: userId, purpose }).whereNull("superseded_at").orderBy("id", "desc").forUpdate().first();
  const refuse = (refusal: CodeRefusal): CodeOutcome => ({ verified: false, refusal });
  if (!row) return refuse("none");
  if (row.used_at) return refuse("used");
  if (row.attempts >= PHONE_CODE_TRIES) return refuse("used_up");
  if (new Date(row.expires_at).getTime() <= now.getTime()) return refuse("expired");
  const expected = Buffer.from(row.code_hash as string, "hex");
  const given = Buffer.from(codeHash(key, userId, row.phone as string, code), "hex");
  if (!timingSafeEqual(expected, given)) {
    await tx
      .trx("phone_codes")
      .where({ id: row.id })
      .update({ attempts: row.attempts + 1 });
    return refuse(row.attempts + 1 >= PHONE_CODE_TRIES ? "used_up" : "wrong");
  }
  await tx
    .trx("phone_codes")
    .where({ id: row.id })
    .update({ used_at: now, attempts: row.attempts + 1 });
  return { verified: true, phone: row.phone as string };
}

/** Six digits typed, spaces allowed; null when it is not. */
export function typedCode(typed: string): string | null {
  const code = typed.replace(/\s/g, "");
  return /^\d{6}$/.test(code) ? code : null;
}

/** The number a member's latest code of `purpose` went to, while it can still be used (the page's code form). */
export async function pendingCodeNumber(db: Knex, userId: number, purpose: CodePurpose, now = new Date()): Promise<string | null> {
  const row = await db("phone_codes")
    .where({ user_id: userId, purpose })
    .whereNull("used_at")
    .whereNull("superseded_at")
    .where("expires_at", ">", now)
    .orderBy("id", "desc")
    .first("phone");
  return (row?.phone as string | undefined) ?? null;
}

export async function askPhoneCode(
  actor: Actor,
  input: { phone: string },
  { db = getDb(), now = new Date() }: Options = {},
): Promise<Result<{ phone: string }>> {
  if (actor.kind !== "member") return forbidden("account.sign_in_required");
  const phone = ugandanMobile(input.phone);
  if (!phone) return invalid({ phone: [{ code: "schema", message: "account.phone.notUgandan" }] });
  const userId = actor.user.id;
  const limited = await limitCodes(userId, phone);
  if (limited) return limitedBy(limited);
  const key = await getDeviceKey(db);
  return transact(
    actor,
    async (tx) => {
      await sendCode(tx, { userId, phone, purpose: "phone", key, now });
      return ok({ phone });
    },
    { db },
  );
}

/**
 * A code typed by the member. The latest code asked for is the one checked; a wrong try is counted (and kept:
 * the result is `ok` with the refusal, so the count commits), a right one verifies the number (and proves it
 * as the payout number too when it is that: ADR 055).
 */
export async function confirmPhoneCode(actor: Actor, input: { code: string }, { db = getDb(), now = new Date() }: Options = {}): Promise<Result<CodeOutcome>> {
  if (actor.kind !== "member") return forbidden("account.sign_in_required");
  const code = typedCode(input.code);
  if (!code) return invalid({ code: [{ code: "schema", message: "account.phone.codeFormat" }] });
  const userId = actor.user.id;
  const key = await getDeviceKey(db);
  return transact(
    actor,
    async (tx): Promise<Result<CodeOutcome>> => {
      const outcome = await takeCode(tx, { userId, purpose: "phone", code, key, now });
      if (outcome.verified) await setVerifiedPhone(tx.trx, userId, outcome.phone);
      return ok(outcome);
    },
    { db },
  );
}
