/**
 * The text about a message left unread (ADR 050), through the real messages operations and the worker's real
 * effects runner: a message starts an `sms_unread` effect 15 minutes later, which texts the recipient if they
 * have still read nothing; one text per conversation and unread run. And each member's two SMS choices apart:
 * SMS for orders off still texts messages, and the other way round. Time is moved by moving the effect's
 * `run_after` rather than by waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliverOrder } from "~/operations/orders.server";
import { markConversationRead, sendMessage, startConversation } from "~/operations/messages.server";
import { UNREAD_TEXT_DELAY_MS } from "~/operations/sms-alerts.server";
import { getEnv } from "~/server/env.server";
import { startEffects, type EffectsRunner } from "../../worker/effects-runner.server";
import { createUser, type TestUser } from "../support/factories";
import { createParties, memberActor, opts, orderTestContext, paidTestOrder } from "../support/orders";
import { runEffectNow } from "../support/effects";

const t = orderTestContext("sms_alerts_messages");
let runner: EffectsRunner;
let phones = 0;
const nextPhone = () => `+25670${String(3_000_000 + ++phones).slice(-7)}`;

beforeAll(() => {
  runner = startEffects(getEnv(), { db: t.db, pollMs: 25 });
});
afterAll(async () => {
  await runner?.close();
});

/** Two members with verified phones and their conversation: `from` writes to `to`. */
async function pair() {
  const from = await createUser(t.db, { role: "client", name: `Amina Client ${phones}`, verifiedPhone: nextPhone() });
  const toPhone = nextPhone();
  const to = await createUser(t.db, { role: "freelancer", verifiedPhone: toPhone });
  const started = await startConversation(memberActor(from), { userId: to.id }, { db: t.db });
  if (!started.ok) throw new Error(`startConversation failed: ${JSON.stringify(started)}`);
  return { from, to, toPhone, conversationId: started.value.conversationId };
}

async function send(from: TestUser, conversationId: string, body = "Hello, are you free this week?") {
  expect(await sendMessage(memberActor(from), { conversationId, body }, { db: t.db })).toMatchObject({ ok: true });
}

type EffectRow = { id: number; payload: { conversationId: string; userId: number; lastRead: number }; run_after: Date; created_at: Date };
const unreadEffects = (conversationId: string): Promise<EffectRow[]> =>
  t.db("effects").where({ kind: "sms_unread" }).whereRaw("payload->>'conversationId' = ?", [conversationId]).orderBy("id");

type Text = { to_number: string; purpose: string; event_key: string; body: string };
const textsTo = (who: TestUser): Promise<Text[]> =>
  t.db("sms_messages").where({ user_id: who.id }).orderBy("id").select("to_number", "purpose", "event_key", "body");

const runNow = (effect: EffectRow) => runEffectNow(t.db, effect);

/** The one pending unread-text effect of the conversation, carried out now. */
async function runUnread(conversationId: string) {
  const pending = (await unreadEffects(conversationId)).filter((e) => new Date(e.run_after).getTime() > Date.now());
  expect(pending).toHaveLength(1);
  await runNow(pending[0]!);
}

describe("a message left unread", () => {
  it("is texted to the recipient 15 minutes later when they still have not read it", async () => {
    const { from, to, toPhone, conversationId } = await pair();
    await send(from, conversationId);
    const [effect, ...more] = await unreadEffects(conversationId);
    expect(more).toEqual([]);
    expect(effect!.payload).toEqual({ conversationId, userId: to.id, lastRead: 0 });
    expect(new Date(effect!.run_after).getTime() - new Date(effect!.created_at).getTime()).toBeGreaterThanOrEqual(UNREAD_TEXT_DELAY_MS - 1000);
    expect(await textsTo(to)).toEqual([]);

    await runNow(effect!);
    const texts = await textsTo(to);
    expect(texts).toHaveLength(1);
    expect(texts[0]).toMatchObject({ to_number: toPhone, purpose: "message", event_key: `unread:${conversationId}:${to.id}:0` });
    expect(texts[0]!.body).toBe(`Soko: ${from.name} sent you a message you have not read yet. Reply on Soko.`);
    // The sender is not texted about their own message.
    expect(await textsTo(from)).toEqual([]);
  });

  it("is not texted when the recipient read it in the meantime", async () => {
    const { from, to, conversationId } = await pair();
    await send(from, conversationId);
    expect(await markConversationRead(memberActor(to), { conversationId }, { db: t.db })).toMatchObject({ ok: true });
    await runUnread(conversationId);
    expect(await textsTo(to)).toEqual([]);
  });

  it("is texted once per unread run: a second message before reading does not text again, one after reading does", async () => {
    const { from, to, conversationId } = await pair();
    await send(from, conversationId, "Hello?");
    await send(from, conversationId, "Are you there?");
    expect(await unreadEffects(conversationId)).toHaveLength(1);
    await runUnread(conversationId);
    await send(from, conversationId, "Still waiting for you.");
    expect(await unreadEffects(conversationId)).toHaveLength(1);
    expect((await textsTo(to)).map((s) => s.event_key)).toEqual([`unread:${conversationId}:${to.id}:0`]);

    expect(await markConversationRead(memberActor(to), { conversationId }, { db: t.db })).toMatchObject({ ok: true });
    await send(from, conversationId, "One more thing.");
    await runUnread(conversationId);
    const keys = (await textsTo(to)).map((s) => s.event_key);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toMatch(new RegExp(`^unread:${conversationId}:${to.id}:[1-9][0-9]*$`));
  });

  it("is texted either way: a seller's message to a buyer too, in the buyer's language", async () => {
    const { from: buyer, to: seller, conversationId } = await pair();
    await t.db("users").where({ id: buyer.id }).update({ language: "sw" });
    await send(seller, conversationId, "Habari, nimeanza kazi.");
    await runUnread(conversationId);
    const texts = await textsTo(buyer);
    expect(texts).toHaveLength(1);
    expect(texts[0]!.body).toBe(`Soko: ${seller.name} amekutumia ujumbe ambao bado hujausoma. Jibu kwenye Soko.`);
  });
});

describe("the two SMS choices", () => {
  it("texts messages but no orders to a member who turned SMS for orders off, and the other way round", async () => {
    const { seller, buyer, gigId } = await createParties(t.db, { seller: { verifiedPhone: nextPhone() }, buyer: { verifiedPhone: nextPhone() } });
    await t.db("users").where({ id: seller.id }).update({ notify_sms_orders: false });
    await t.db("users").where({ id: buyer.id }).update({ notify_sms_messages: false });
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    expect(await deliverOrder(memberActor(seller), { orderId, message: "Here it is" }, opts(t))).toMatchObject({ ok: true });
    const started = await startConversation(memberActor(buyer), { userId: seller.id }, { db: t.db });
    if (!started.ok) throw new Error(`startConversation failed: ${JSON.stringify(started)}`);
    const { conversationId } = started.value;
    await send(buyer, conversationId, "Thanks, I will check it tonight.");
    await runUnread(conversationId);
    await send(seller, conversationId, "Great, tell me what you think.");
    await runUnread(conversationId);

    // The seller: no paid-order text, but the message.
    expect((await textsTo(seller)).map((s) => s.purpose)).toEqual(["message"]);
    // The buyer: the delivery, but no message.
    expect((await textsTo(buyer)).map((s) => [s.purpose, s.event_key])).toEqual([["order", `order_delivered:${orderId}:delivered:0`]]);
  });
});
