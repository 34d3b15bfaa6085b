/**
 * Verifying a phone by a texted code (ADR 050), through the operations: the code goes out at once (even at
 * night) as a verification text to the number typed, stored only as an HMAC; a right code within 10 minutes
 * verifies the number; wrong, expired, used-up (5 tries) and replayed codes are refused and verify nothing;
 * non-Ugandan numbers are refused beside the field; asking again is limited per member and per number.
 */
import { randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { askPhoneCode, confirmPhoneCode, PHONE_CODE_TRIES } from "~/operations/phone-verification.server";
import { createUser, type TestUser } from "../support/factories";
import { memberActor, orderTestContext } from "../support/orders";

const t = orderTestContext("phone_codes");
// Random numbers: the per-number limit lives in the shared Redis for an hour, past this run.
const nextNumber = () => `077${String(randomInt(0, 10_000_000)).padStart(7, "0")}`;
const e164 = (local: string) => `+256${local.slice(1)}`;

/** The code texted to the member, read from the text as the sandbox outbox shows it. */
async function textedCode(user: TestUser): Promise<string> {
  const text = await t.db("sms_messages").where({ user_id: user.id, purpose: "verification" }).orderBy("id", "desc").first("body");
  return /(\d{6})/.exec(text.body as string)![1]!;
}

const phoneOf = (user: TestUser) => t.db("users").where({ id: user.id }).first("phone", "phone_verified_at");

describe("phone verification", () => {
  it("texts a code to the number typed (in a local form) at once, even at night, and stores only its hash", async () => {
    const user = await createUser(t.db);
    const local = nextNumber();
    const night = new Date("2026-12-07T20:30:00Z"); // 23:30 in Kampala
    expect(await askPhoneCode(memberActor(user), { phone: local.replace(/^(\d{4})/, "$1 ") }, { db: t.db, now: night })).toEqual({
      ok: true,
      value: { phone: e164(local) },
    });
    const text = await t.db("sms_messages").where({ user_id: user.id }).first();
    expect(text).toMatchObject({ to_number: e164(local), purpose: "verification", status: "queued" });
    expect(new Date(text.send_after).toISOString()).toBe(night.toISOString());
    const code = await textedCode(user);
    const stored = await t.db("phone_codes").where({ user_id: user.id }).first();
    expect(stored.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(code);
    // Nothing is verified until the code comes back.
    expect(await phoneOf(user)).toEqual({ phone: null, phone_verified_at: null });
  });

  it("verifies the number with the right code, and refuses the same code replayed", async () => {
    const user = await createUser(t.db);
    const local = nextNumber();
    await askPhoneCode(memberActor(user), { phone: local }, { db: t.db });
    const code = await textedCode(user);
    expect(await confirmPhoneCode(memberActor(user), { code }, { db: t.db })).toEqual({ ok: true, value: { verified: true, phone: e164(local) } });
    const verified = await phoneOf(user);
    expect(verified.phone).toBe(e164(local));
    expect(verified.phone_verified_at).not.toBeNull();
    expect(await confirmPhoneCode(memberActor(user), { code }, { db: t.db })).toEqual({ ok: true, value: { verified: false, refusal: "used" } });
  });

  it("refuses a wrong code, an expired one, and any after 5 tries, verifying nothing", async () => {
    const user = await createUser(t.db);
    const asked = new Date();
    await askPhoneCode(memberActor(user), { phone: nextNumber() }, { db: t.db, now: asked });
    const code = await textedCode(user);
    const wrong = code === "000000" ? "111111" : "000000";
    expect(await confirmPhoneCode(memberActor(user), { code: wrong }, { db: t.db })).toEqual({ ok: true, value: { verified: false, refusal: "wrong" } });
    // Eleven minutes later the right code is too late.
    const late = new Date(asked.getTime() + 11 * 60_000);
    expect(await confirmPhoneCode(memberActor(user), { code }, { db: t.db, now: late })).toEqual({ ok: true, value: { verified: false, refusal: "expired" } });

    const other = await createUser(t.db);
    await askPhoneCode(memberActor(other), { phone: nextNumber() }, { db: t.db });
    const right = await textedCode(other);
    const bad = right === "000000" ? "111111" : "000000";
    const answers = [];
    for (let i = 0; i < PHONE_CODE_TRIES; i++) answers.push(await confirmPhoneCode(memberActor(other), { code: bad }, { db: t.db }));
    expect(answers.map((a) => a.ok && !a.value.verified && a.value.refusal)).toEqual(["wrong", "wrong", "wrong", "wrong", "used_up"]);
    expect(await confirmPhoneCode(memberActor(other), { code: right }, { db: t.db })).toEqual({ ok: true, value: { verified: false, refusal: "used_up" } });
    expect((await phoneOf(user)).phone_verified_at).toBeNull();
    expect((await phoneOf(other)).phone_verified_at).toBeNull();
  });

  it("refuses a number that is not a Ugandan mobile number beside the field, texting nothing", async () => {
    const user = await createUser(t.db);
    for (const phone of ["+254712345678", "0312345678", "12345", "+2567123"]) {
      expect(await askPhoneCode(memberActor(user), { phone }, { db: t.db })).toEqual({
        ok: false,
        error: "invalid",
        issues: { phone: [{ code: "schema", message: "account.phone.notUgandan" }] },
      });
    }
    expect(await t.db("sms_messages").where({ user_id: user.id })).toEqual([]);
  });

  it("limits codes to 5 an hour per member and per number, whoever asks", async () => {
    const user = await createUser(t.db);
    for (let i = 0; i < 5; i++) expect((await askPhoneCode(memberActor(user), { phone: nextNumber() }, { db: t.db })).ok).toBe(true);
    expect(await askPhoneCode(memberActor(user), { phone: nextNumber() }, { db: t.db })).toMatchObject({ ok: false, error: "limited", status: 429 });

    const target = nextNumber();
    for (let i = 0; i < 5; i++) expect((await askPhoneCode(memberActor(await createUser(t.db)), { phone: target }, { db: t.db })).ok).toBe(true);
    const another = await createUser(t.db);
    expect(await askPhoneCode(memberActor(another), { phone: target }, { db: t.db })).toMatchObject({ ok: false, error: "limited", code: "limit.exceeded" });
    expect(await t.db("sms_messages").where({ user_id: another.id })).toEqual([]);
  });
});
