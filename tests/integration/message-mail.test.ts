/**
 * Mail about unread messages (docs/product.md, Messages), through the real operations and the worker's real effects
 * runner: messages to a member become one `message_mail` effect per conversation and round, carried out a
 * little later; what the member read meanwhile is not mailed; mails of one conversation are at least 15
 * minutes apart; and a member who turned message mail off gets none. Time is moved by moving an effect's
 * `run_after` (or the last mail's `mailed_at`) rather than by waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markConversationRead, MESSAGE_MAIL_DELAY_MS, MESSAGE_MAIL_GAP_MS, sendMessage, startConversation } from "~/operations/messages.server";
import { getEnv } from "~/server/env.server";
import { startEffects, type EffectsRunner } from "../../worker/effects-runner.server";
import { createUser, type TestUser } from "../support/factories";
import { memberActor, orderTestContext } from "../support/orders";
import { runEffectNow } from "../support/effects";

const t = orderTestContext("message_mail");
let runner: EffectsRunner;

beforeAll(() => {
  runner = startEffects(getEnv(), { db: t.db, pollMs: 25 });
});
afterAll(async () => {
  await runner?.close();
});

/** A new pair of members and their conversation: `from` writes to `to`. */
async function pair() {
  const from = await createUser(t.db, { role: "client" });
  const to = await createUser(t.db, { role: "freelancer" });
  const started = await startConversation(memberActor(from), { userId: to.id }, { db: t.db });
  if (!started.ok) throw new Error(`startConversation failed: ${JSON.stringify(started)}`);
  return { from, to, conversationId: started.value.conversationId };
}

async function send(from: TestUser, conversationId: string, body: string) {
  const sent = await sendMessage(memberActor(from), { conversationId, body }, { db: t.db });
  expect(sent.ok).toBe(true);
}

type EffectRow = { id: number; payload: { conversationId: string; userId: number; round: number }; run_after: Date; created_at: Date; done_at: Date | null };

const mailEffects = (conversationId: string): Promise<EffectRow[]> =>
  t.db("effects").where({ kind: "message_mail" }).whereRaw("payload->>'conversationId' = ?", [conversationId]).orderBy("id");

const mailsTo = (who: TestUser) => t.db("outbox").where({ to_address: who.email }).orderBy("id").select("subject", "body");

const side = (conversationId: string, who: TestUser) =>
  t.db("conversation_participants").where({ conversation_id: conversationId, user_id: who.id }).first("mail_round", "mailed_at");

const runNow = (effect: EffectRow) => runEffectNow(t.db, effect);

const msBetween = (later: Date, earlier: Date) => new Date(later).getTime() - new Date(earlier).getTime();

describe("message mail", () => {
  it("batches three messages sent within a minute into one mail, sent a little later, that lists them", async () => {
    const { from, to, conversationId } = await pair();
    for (const body of ["Hello, are you free this week?", "I need a logo for my juice stall.", "Budget is UGX 100,000."])
      await send(from, conversationId, body);

    const effects = await mailEffects(conversationId);
    expect(effects).toHaveLength(1);
    expect(effects[0]!.payload).toEqual({ conversationId, userId: to.id, round: 0 });
    // Not at once: the recipient may read them on the page first.
    expect(msBetween(effects[0]!.run_after, effects[0]!.created_at)).toBeGreaterThanOrEqual(MESSAGE_MAIL_DELAY_MS - 1000);
    expect(await mailsTo(to)).toEqual([]);

    await runNow(effects[0]!);
    const mails = await mailsTo(to);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe(`Soko: new messages from ${from.name}`);
    expect(mails[0]!.body).toContain(
      `${from.name}: Hello, are you free this week?\n${from.name}: I need a logo for my juice stall.\n${from.name}: Budget is UGX 100,000.`,
    );
    // An address a mail client can open: PUBLIC_URL, or this machine's own for a local run.
    expect(mails[0]!.body).toMatch(new RegExp(`Reply on Soko: https?://[^/\\s]+/messages/${conversationId}\\n`));
    // The sender is not mailed about their own messages.
    expect(await mailsTo(from)).toEqual([]);
    expect(await side(conversationId, to)).toMatchObject({ mail_round: 1, mailed_at: expect.any(Date) });
  });

  it("quotes the five latest unread messages and says how many more wait", async () => {
    const { from, to, conversationId } = await pair();
    for (let i = 1; i <= 7; i++) await send(from, conversationId, `Line ${i}`);
    await runNow((await mailEffects(conversationId))[0]!);
    const [mail] = await mailsTo(to);
    expect(mail!.body).toContain([3, 4, 5, 6, 7].map((i) => `${from.name}: Line ${i}`).join("\n") + "\n…and 2 more\n");
    expect(mail!.body).not.toContain("Line 2\n");
  });

  it("sends no mail when the member read the messages before the delay was over", async () => {
    const { from, to, conversationId } = await pair();
    await send(from, conversationId, "Can you start on Monday?");
    await send(from, conversationId, "Please confirm.");
    expect((await markConversationRead(memberActor(to), { conversationId }, { db: t.db })).ok).toBe(true);

    const [effect] = await mailEffects(conversationId);
    await runNow(effect!);
    expect(await mailsTo(to)).toEqual([]);
    // The round is over all the same: the next message starts a new one.
    expect(await side(conversationId, to)).toMatchObject({ mail_round: 1, mailed_at: null });
    await send(from, conversationId, "Hello again?");
    expect((await mailEffects(conversationId)).map((e) => e.payload.round)).toEqual([0, 1]);
  });

  it("does not schedule the next mail of a conversation sooner than 15 minutes after the last one", async () => {
    const { from, to, conversationId } = await pair();
    await send(from, conversationId, "First message");
    await runNow((await mailEffects(conversationId))[0]!);
    const { mailed_at: mailedAt } = await side(conversationId, to);
    expect(mailedAt).toBeInstanceOf(Date);

    await send(from, conversationId, "A second message, a moment after the mail");
    await send(from, conversationId, "And a third");
    const [, next, ...more] = await mailEffects(conversationId);
    expect(more).toEqual([]);
    expect(next!.payload.round).toBe(1);
    expect(msBetween(next!.run_after, mailedAt)).toBeGreaterThanOrEqual(MESSAGE_MAIL_GAP_MS - 1000);
    expect(await mailsTo(to)).toHaveLength(1);

    // Once it runs, one more mail lists what is unread (the first message, still unread, with the new ones).
    await runNow(next!);
    const mails = await mailsTo(to);
    expect(mails).toHaveLength(2);
    expect(mails[1]!.body).toContain(`${from.name}: A second message, a moment after the mail\n${from.name}: And a third`);

    // Long after the last mail, a new message waits only the short delay again.
    await t
      .db("conversation_participants")
      .where({ conversation_id: conversationId, user_id: to.id })
      .update({ mailed_at: t.db.raw("now() - interval '1 hour'") });
    await send(from, conversationId, "Are you there?");
    const latest = (await mailEffects(conversationId)).at(-1)!;
    expect(latest.payload.round).toBe(2);
    expect(msBetween(latest.run_after, latest.created_at)).toBeLessThan(MESSAGE_MAIL_DELAY_MS + 1000);
  });

  it("sends no message mail to a member who turned it off, before or after the messages came", async () => {
    const { from, to, conversationId } = await pair();
    await t.db("users").where({ id: to.id }).update({ notify_email_messages: false });
    await send(from, conversationId, "Hello?");
    expect(await mailEffects(conversationId)).toEqual([]);

    // Turned off while a mail waited: the worker asks again and sends nothing.
    await t.db("users").where({ id: to.id }).update({ notify_email_messages: true });
    await send(from, conversationId, "Hello again?");
    const [effect] = await mailEffects(conversationId);
    await t.db("users").where({ id: to.id }).update({ notify_email_messages: false });
    await runNow(effect!);
    expect(await mailsTo(to)).toEqual([]);
    // The in-app notification is there all the same.
    expect(await t.db("notifications").where({ user_id: to.id, conversation_id: conversationId }).select("kind", "body")).toEqual([
      { kind: "message", body: `New message from ${from.name}` },
    ]);
  });
});
