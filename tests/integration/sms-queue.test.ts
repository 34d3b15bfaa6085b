/**
 * queueSms (ADR 050) inside an operation's transaction, with a given clock: alerts go only to a verified phone,
 * only when the member chose SMS of that kind, in the recipient's language, held from 21:00 to 07:00 East Africa
 * time (verification codes are not), capped per member per day, and never twice for the same event. Then the
 * worker's side (deliverSms) through the sandbox: sent once, a repeat sends nothing.
 */
import { describe, expect, it } from "vitest";
import { ok, systemActor, transact } from "~/operations/core.server";
import { deliverSms, queueSms, SMS_DAILY_CAP, type SmsInput } from "~/operations/sms.server";
import { createSandboxSmsProvider } from "~/sms/sandbox.server";
import type { SmsProvider } from "~/sms/provider.server";
import { createUser } from "../support/factories";
import { orderTestContext } from "../support/orders";

const t = orderTestContext("sms_queue");
const actor = systemActor("test");
let phones = 0;
const nextPhone = () => `+25677${String(1_000_000 + ++phones).slice(-7)}`;

/** 10:00 East Africa time (07:00 UTC) on a given day, unless another time is given. */
const at = (iso = "2026-12-07T07:00:00Z") => new Date(iso);

async function queue(input: SmsInput) {
  const result = await transact(actor, async (tx) => ok(await queueSms(tx, input)), { db: t.db });
  if (!result.ok) throw new Error(JSON.stringify(result));
  return result.value;
}

const newOrder = (userId: number, eventKey: string, now = at()): SmsInput => ({
  userId,
  purpose: "order",
  eventKey,
  words: { key: "notify.sms.newOrder", values: { title: "Logo for a juice shop" } },
  now,
});

const textsOf = (userId: number) => t.db("sms_messages").where({ user_id: userId }).orderBy("id");

describe("queueSms", () => {
  it("texts a verified phone in the recipient's language and queues one send_sms effect", async () => {
    const phone = nextPhone();
    const seller = await createUser(t.db, { role: "freelancer", verifiedPhone: phone });
    await t.db("users").where({ id: seller.id }).update({ language: "sw" });
    const queued = await queue(newOrder(seller.id, `test:lang:${seller.id}`));
    expect(queued).toMatchObject({ queued: true, heldUntil: null });
    const [text] = await textsOf(seller.id);
    expect(text).toMatchObject({ to_number: phone, purpose: "order", status: "queued" });
    expect(text.body).toBe('Soko: agizo jipya lililolipwa "Logo for a juice shop". Fungua Soko uanze kazi kwa wakati.');
    const effects = await t.db("effects").where({ kind: "send_sms" }).whereRaw("(payload->>'smsId')::bigint = ?", [text.id]);
    expect(effects).toHaveLength(1);
  });

  it("sends nothing to a member without a verified phone, or who turned SMS for orders or messages off", async () => {
    const unverified = await createUser(t.db, { role: "freelancer" });
    await t.db("users").where({ id: unverified.id }).update({ phone: nextPhone() });
    expect(await queue(newOrder(unverified.id, `test:unverified:${unverified.id}`))).toEqual({ queued: false, reason: "no_verified_phone" });

    const quiet = await createUser(t.db, { role: "freelancer", verifiedPhone: nextPhone() });
    await t.db("users").where({ id: quiet.id }).update({ notify_sms_orders: false, notify_sms_messages: false });
    expect(await queue(newOrder(quiet.id, `test:off:${quiet.id}`))).toEqual({ queued: false, reason: "choice_off" });
    const message: SmsInput = {
      userId: quiet.id,
      purpose: "message",
      eventKey: `test:msg:${quiet.id}`,
      words: { key: "notify.sms.unreadMessage", values: { name: "Amina" } },
      now: at(),
    };
    expect(await queue(message)).toEqual({ queued: false, reason: "choice_off" });
    expect(await textsOf(unverified.id)).toEqual([]);
    expect(await textsOf(quiet.id)).toEqual([]);
  });

  it("holds an alert asked for at night until 07:00 East Africa time, but sends a verification code at once", async () => {
    const seller = await createUser(t.db, { role: "freelancer", verifiedPhone: nextPhone() });
    // 22:30 in Kampala is 19:30 UTC; 07:00 next morning is 04:00 UTC.
    const night = at("2026-12-07T19:30:00Z");
    const held = await queue(newOrder(seller.id, `test:night:${seller.id}`, night));
    expect(held).toMatchObject({ queued: true, heldUntil: new Date("2026-12-08T04:00:00Z") });
    // 05:59 in Kampala (02:59 UTC) waits until 07:00 that same morning.
    const early = await queue(newOrder(seller.id, `test:early:${seller.id}`, at("2026-12-08T02:59:00Z")));
    expect(early).toMatchObject({ heldUntil: new Date("2026-12-08T04:00:00Z") });
    const code = await queue({
      userId: seller.id,
      purpose: "verification",
      eventKey: `test:code:${seller.id}`,
      to: "+256701234567",
      words: { key: "notify.sms.code", values: { code: "482913" } },
      now: night,
    });
    expect(code).toMatchObject({ queued: true, heldUntil: null });
    const texts = await textsOf(seller.id);
    expect(texts.map((r) => [r.status, new Date(r.send_after).toISOString()])).toEqual([
      ["held", "2026-12-08T04:00:00.000Z"],
      ["held", "2026-12-08T04:00:00.000Z"],
      ["queued", "2026-12-07T19:30:00.000Z"],
    ]);
    expect(texts[2]!.to_number).toBe("+256701234567");
  });

  it(`stops at ${SMS_DAILY_CAP} alerts a member's day, counts verification codes apart, and starts again the next day`, async () => {
    const seller = await createUser(t.db, { role: "freelancer", verifiedPhone: nextPhone() });
    for (let i = 0; i < SMS_DAILY_CAP; i++) expect((await queue(newOrder(seller.id, `test:cap:${seller.id}:${i}`))).queued).toBe(true);
    expect(await queue(newOrder(seller.id, `test:cap:${seller.id}:over`))).toEqual({ queued: false, reason: "daily_cap" });
    const code = await queue({
      userId: seller.id,
      purpose: "verification",
      eventKey: `test:cap-code:${seller.id}`,
      to: nextPhone(),
      words: { key: "notify.sms.code", values: { code: "000111" } },
      now: at(),
    });
    expect(code.queued).toBe(true);
    expect((await queue(newOrder(seller.id, `test:cap:${seller.id}:tomorrow`, at("2026-12-08T07:00:00Z")))).queued).toBe(true);
    expect(await textsOf(seller.id)).toHaveLength(SMS_DAILY_CAP + 2);
  });

  it("writes one text for one event however often it is asked", async () => {
    const seller = await createUser(t.db, { role: "freelancer", verifiedPhone: nextPhone() });
    expect((await queue(newOrder(seller.id, `test:once:${seller.id}`))).queued).toBe(true);
    expect(await queue(newOrder(seller.id, `test:once:${seller.id}`))).toEqual({ queued: false, reason: "duplicate" });
    const texts = await textsOf(seller.id);
    expect(texts).toHaveLength(1);
    expect(await t.db("effects").where({ dedupe_key: `send_sms:${texts[0].id}` })).toHaveLength(1);
  });
});

describe("deliverSms", () => {
  it("sends a text once through the provider: a repeated effect sends nothing", async () => {
    const seller = await createUser(t.db, { role: "freelancer", verifiedPhone: nextPhone() });
    const queued = await queue(newOrder(seller.id, `test:deliver:${seller.id}`));
    if (!queued.queued) throw new Error("not queued");
    const sandbox = createSandboxSmsProvider();
    let sends = 0;
    const counting: SmsProvider = { name: "sandbox", send: (request) => (sends++, sandbox.send(request)) };
    expect(await deliverSms(actor, { smsId: queued.id, provider: counting }, { db: t.db })).toEqual({ ok: true, value: { status: "sent" } });
    expect(await deliverSms(actor, { smsId: queued.id, provider: counting }, { db: t.db })).toEqual({ ok: true, value: { status: "skipped" } });
    expect(sends).toBe(1);
    const [text] = await textsOf(seller.id);
    expect(text).toMatchObject({ status: "sent", provider: "sandbox", attempts: 1 });
    expect(text.gateway_message_id).toMatch(/^SBX-/);
  });

  it("is refused to anyone but the platform", async () => {
    const member = await createUser(t.db);
    const refused = await deliverSms(
      { kind: "anonymous", client: { ip: "203.0.113.9", userAgent: "x", analyticsConsent: false, tabSessionId: null } },
      { smsId: 1, provider: createSandboxSmsProvider() },
      { db: t.db },
    );
    expect(refused).toMatchObject({ ok: false, error: "forbidden" });
    expect(await textsOf(member.id)).toEqual([]);
  });
});
