/**
 * Verifying a member's phone by a code texted to it (ADR 050). `askPhoneCode` checks the number is a Ugandan
 * mobile number, counts the request against the resend limits (per member and per number, in Redis), stores a
 * new six-digit code as an HMAC with the server's key (it replaces any earlier one) and texts it at once through
 * queueSms. `confirmPhoneCode` checks the latest code: right, within 10 minutes, within 5 tries and not used
 * before; a right one sets users.phone and phone_verified_at, and is used up.
 */
import { createHmac, randomInt, timingSafeEqual } from "node:crypto";
import type { Knex } from "knex";
import { normaliseMsisdn } from "~/domain/mobile-money";
import { getDeviceKey } from "~/models/sign-in-device.server";
import { forbidden, invalid, limitedBy, ok, transact, type Actor, type Result } from "~/operations/core.server";
import { queueSms } from "~/operations/sms.server";
import { getDb } from "~/server/db.server";
import { consumeAll } from "~/server/rate-limit.server";

export const PHONE_CODE_TTL_MS = 10 * 60_000;
export const PHONE_CODE_TRIES = 5;
const UGANDAN_MOBILE = /^\+2567\d{8}$/;

/** Why a code was not taken; each has its words beside the code field (account.phone.*). */
export type CodeRefusal = "none" | "wrong" | "expired" | "used_up" | "used";

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

export async function askPhoneCode(
  actor: Actor,
  input: { phone: string },
  { db = getDb(), now = new Date() }: Options = {},
): Promise<Result<{ phone: string }>> {
  if (actor.kind !== "member") return forbidden("account.sign_in_required");
  const phone = ugandanMobile(input.phone);
  if (!phone) return invalid({ phone: [{ code: "schema", message: "account.phone.notUgandan" }] });
  const userId = actor.user.id;
  const limited = await consumeAll([
    { name: "phoneCode", key: `user:${userId}`, points: 1 },
    { name: "phoneCodeNumber", key: phone, points: 1 },
  ]);
  if (limited) return limitedBy(limited);
  const key = await getDeviceKey(db);
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  return transact(
    actor,
    async (tx) => {
      await tx.trx("phone_codes").where({ user_id: userId, purpose: "phone" }).whereNull("used_at").whereNull("superseded_at").update({ superseded_at: now });
      const [row] = await tx
        .trx("phone_codes")
        .insert({
          user_id: userId,
          phone,
          purpose: "phone",
          code_hash: codeHash(key, userId, phone, code),
          expires_at: new Date(now.getTime() + PHONE_CODE_TTL_MS),
        })
        .returning("id");
      await queueSms(tx, {
        userId,
        purpose: "verification",
        to: phone,
        eventKey: `phone_code:${row.id}`,
        words: { key: "notify.sms.code", values: { code } },
        now,
      });
      return ok({ phone });
    },
    { db },
  );
}

/**
 * A code typed by the member. The latest code asked for is the one checked; a wrong try is counted (and kept:
 * the result is `ok` with the refusal, so the count commits), a right one verifies the number.
 */
export async function confirmPhoneCode(
  actor: Actor,
  input: { code: string },
  { db = getDb(), now = new Date() }: Options = {},
): Promise<Result<{ verified: true; phone: string } | { verified: false; refusal: CodeRefusal }>> {
  if (actor.kind !== "member") return forbidden("account.sign_in_required");
  const code = input.code.replace(/\s/g, "");
  if (!/^\d{6}$/.test(code)) return invalid({ code: [{ code: "schema", message: "account.phone.codeFormat" }] });
  const userId = actor.user.id;
  const key = await getDeviceKey(db);
  return transact(
    actor,
    async (tx): Promise<Result<{ verified: true; phone: string } | { verified: false; refusal: CodeRefusal }>> => {
      const row = await tx.trx("phone_codes").where({ user_id: userId, purpose: "phone" }).whereNull("superseded_at").orderBy("id", "desc").forUpdate().first();
      const refuse = (refusal: CodeRefusal) => ok({ verified: false as const, refusal });
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
      await tx.trx("users").where({ id: userId }).update({ phone: row.phone, phone_verified_at: now });
      return ok({ verified: true as const, phone: row.phone as string });
    },
    { db },
  );
}
