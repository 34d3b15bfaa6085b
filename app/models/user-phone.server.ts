/**
 * A member's phones (ADR 050, 055): their own verified number, which texts go to, and the payout number their
 * earnings go to, each proven by a code texted to it. Columns of `users`; the codes are phone_codes.
 */
import type { Db } from "~/server/db.server";
import type { Settings } from "~/models/user.server";

/** A member's payout number, when it was set, and how to tell them about a change; the row locked for the change. */
export async function lockPayoutNumber(
  db: Db,
  userId: number,
): Promise<
  | {
      mobileMoneyNumber: string | null;
      payoutNumberVerified: boolean;
      verifiedPhone: string | null;
      email: string;
      name: string;
      timeZone: Settings["timeZone"];
    }
  | undefined
> {
  const u = await db("users")
    .where({ id: userId })
    .forUpdate()
    .first("mobile_money_number", "payout_number_verified_at", "phone", "phone_verified_at", "email", "name", "time_zone");
  if (!u) return undefined;
  return {
    mobileMoneyNumber: u.mobile_money_number,
    payoutNumberVerified: Boolean(u.payout_number_verified_at),
    verifiedPhone: u.phone_verified_at ? u.phone : null,
    email: u.email,
    name: u.name,
    timeZone: u.time_zone,
  };
}

/**
 * Stores a payout number, proven (ADR 055: by a code texted to it, or as the member's verified phone, or vouched
 * for by the platform). `held`: set by the member now, so withdrawals to it wait (ADR 032); otherwise (the
 * platform's own, such as the demo data) it has no set time and no hold. Answers when it was set, if held.
 */
export async function setPayoutNumber(db: Db, userId: number, mobileMoneyNumber: string, { held }: { held: boolean }): Promise<Date | null> {
  const [row] = await db("users")
    .where({ id: userId })
    .update({
      mobile_money_number: mobileMoneyNumber,
      payout_number_set_at: held ? db.fn.now() : null,
      payout_number_verified_at: db.fn.now(),
      updated_at: db.fn.now(),
    })
    .returning("payout_number_set_at");
  return row?.payout_number_set_at ?? null;
}

/** A phone just verified by its code: if it is already the payout number, that number is proven too (ADR 055). */
export async function setVerifiedPhone(db: Db, userId: number, phone: string) {
  await db("users").where({ id: userId }).update({ phone, phone_verified_at: db.fn.now(), updated_at: db.fn.now() });
  await provePayoutNumber(db, userId, phone);
}

/** Marks the payout number proven, if it is `number` and was not yet (a number saved before numbers were proven). */
export async function provePayoutNumber(db: Db, userId: number, number: string) {
  await db("users")
    .where({ id: userId, mobile_money_number: number })
    .whereNull("payout_number_verified_at")
    .update({ payout_number_verified_at: db.fn.now() });
}
