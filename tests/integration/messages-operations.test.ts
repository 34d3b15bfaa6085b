/**
 * The messages operations (ADR 016), as the form actions and socket events call them: who may start,
 * write into, read and mark a conversation; what one send stores (the message, the conversation's counts,
 * the recipient's unread count and notification, the mail effect) and what a refused one leaves (nothing);
 * the off-platform warning and flag; a retried send stored once.
 */
import { describe, expect, it, vi } from "vitest";
import { listConversations } from "~/models/conversation.server";
import { messagesSince, threadPage } from "~/models/message.server";
import { markConversationRead, markDelivered, sendMessage, startConversation } from "~/operations/messages.server";
import { setUserStatus } from "~/operations/accounts.server";
import { listCursor, SendMessageSchema } from "~/schemas/message";
import { OFF_PLATFORM_WARNING } from "~/domain/off-platform";
import { createUser, type TestUser } from "../support/factories";
import { memberActor, orderTestContext, paidTestOrder, system, visitor } from "../support/orders";
import { words } from "../support/words";

const t = orderTestContext("messages_ops", { parties: { buyer: { name: "Nakato Buyer" }, seller: { name: "Okello Seller" } }, admin: true });
const db = () => ({ db: t.db });

async function conversationOf(a: TestUser, b: TestUser) {
  const started = await startConversation(memberActor(a), { userId: b.id }, db());
  if (!started.ok) throw new Error(JSON.stringify(started));
  return started.value.conversationId;
}

const counts = async (conversationId: string) => ({
  messages: Number((await t.db("messages").where({ conversation_id: conversationId }).count<{ n: string }[]>({ n: "*" }))[0]!.n),
  notifications: Number((await t.db("notifications").where({ conversation_id: conversationId }).count<{ n: string }[]>({ n: "*" }))[0]!.n),
  effects: Number(
    (await t.db("effects").where({ kind: "message_mail" }).whereRaw("payload->>'conversationId' = ?", [conversationId]).count<{ n: string }[]>({ n: "*" }))[0]!
      .n,
  ),
});

describe("startConversation", () => {
  it("opens one conversation per pair, from a gig, a profile or an order, and reuses it", async () => {
    const a = await createUser(t.db, { name: "Pair A" });
    const b = await createUser(t.db, { name: "Pair B", role: "freelancer" });
    const first = await startConversation(memberActor(a), { to: b.username }, db());
    expect(first).toMatchObject({ ok: true, value: { created: true } });
    const again = await startConversation(memberActor(b), { userId: a.id }, db());
    expect(again).toMatchObject({ ok: true, value: { created: false } });
    expect(again.ok && first.ok && again.value.conversationId).toBe(first.ok && first.value.conversationId);
    expect(first.ok && first.value.conversationId).toMatch(/^conv_[a-z0-9]+$/);
    expect(
      await t
        .db("conversation_participants")
        .where({ conversation_id: first.ok ? first.value.conversationId : "" })
        .pluck("user_id"),
    ).toHaveLength(2);
  });

  it("opens one conversation when both members start it at the same moment", async () => {
    const a = await createUser(t.db);
    const b = await createUser(t.db);
    const [one, two] = await Promise.all([
      startConversation(memberActor(a), { userId: b.id }, db()),
      startConversation(memberActor(b), { userId: a.id }, db()),
    ]);
    expect(one.ok && two.ok).toBe(true);
    expect(one.ok && one.value.conversationId).toBe(two.ok && two.value.conversationId);
    expect([one.ok && one.value.created, two.ok && two.value.created].sort()).toEqual([false, true]);
    expect(
      await t
        .db("conversation_participants")
        .where({ conversation_id: one.ok ? one.value.conversationId : "" })
        .pluck("user_id"),
    ).toHaveLength(2);
  });

  it("from a gig, writes to its seller and says what it is about", async () => {
    const result = await startConversation(memberActor(t.buyer), { gigId: t.gigId }, db());
    expect(result).toMatchObject({ ok: true });
    const row = await t
      .db("conversations")
      .where({ id: result.ok ? result.value.conversationId : "" })
      .first();
    expect(Number(row.gig_id)).toBe(t.gigId);
    const { conversations } = await listConversations(t.db, t.buyer.id);
    expect(conversations.find((c) => c.id === row.id)).toMatchObject({ other: { id: t.seller.id, name: "Okello Seller" }, gig: { id: t.gigId } });
  });

  it("refuses a visitor, oneself, an unknown member, an admin, and someone else's order", async () => {
    expect(await startConversation(visitor, { userId: t.seller.id }, db())).toMatchObject({ ok: false, error: "forbidden", code: "message.sign_in_required" });
    expect(await startConversation(memberActor(t.buyer), { userId: t.buyer.id }, db())).toEqual({
      ok: false,
      error: "invalid",
      issues: { to: [{ code: "message.to_yourself", params: {} }] },
    });
    expect(await startConversation(memberActor(t.buyer), { to: "nobody_here" }, db())).toMatchObject({ ok: false, error: "not_found" });
    expect(await startConversation(memberActor(t.buyer), { userId: t.admin.id }, db())).toMatchObject({ ok: false, error: "not_found" });
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    const stranger = await createUser(t.db, { name: "Stranger" });
    const before = await t.db("conversations").count<{ n: string }[]>({ n: "*" });
    expect(await startConversation(memberActor(stranger), { orderId }, db())).toMatchObject({ ok: false, error: "not_found" });
    expect(await t.db("conversations").count<{ n: string }[]>({ n: "*" })).toEqual(before);
    // The order's parties may: the conversation is now about the order.
    const fromOrder = await startConversation(memberActor(t.seller), { orderId }, db());
    expect(fromOrder).toMatchObject({ ok: true });
    expect(
      Number(
        (
          await t
            .db("conversations")
            .where({ id: fromOrder.ok ? fromOrder.value.conversationId : "" })
            .first()
        ).order_id,
      ),
    ).toBe(orderId);
  });
});

describe("sendMessage", () => {
  it("stores the message, moves the conversation along and tells the recipient (unread count, one notification, one mail round)", async () => {
    const a = await createUser(t.db, { name: "Sender Sarah" });
    const b = await createUser(t.db, { name: "Recipient Rita" });
    const id = await conversationOf(a, b);
    const first = await sendMessage(memberActor(a), { conversationId: id, body: "Hello Rita, is the logo still on offer?" }, db());
    expect(first).toMatchObject({
      ok: true,
      value: { duplicate: false, warning: null, message: { body: "Hello Rita, is the logo still on offer?", status: "sent", senderId: a.id } },
    });
    await sendMessage(memberActor(a), { conversationId: id, body: "I need it by Friday." }, db());
    expect(await counts(id)).toEqual({ messages: 2, notifications: 1, effects: 1 });
    const notification = await t.db("notifications").where({ user_id: b.id, conversation_id: id }).first();
    expect(notification).toMatchObject({ kind: "message", body: "New message from Sender Sarah", read_at: null });
    const [forB] = (await listConversations(t.db, b.id, { ids: [id] })).conversations;
    expect(forB).toMatchObject({ unreadCount: 2, lastMessage: { body: "I need it by Friday." }, other: { name: "Sender Sarah" } });
    const [forA] = (await listConversations(t.db, a.id, { ids: [id] })).conversations;
    expect(forA!.unreadCount).toBe(0);
    expect((await t.db("conversations").where({ id }).first()).message_count).toBe(2);
  });

  it("stores a retried send (same client id) once", async () => {
    const a = await createUser(t.db);
    const b = await createUser(t.db);
    const id = await conversationOf(a, b);
    const input = { conversationId: id, body: "Sent twice over a bad line", clientId: "c-123456" };
    const [one, two] = await Promise.all([sendMessage(memberActor(a), input, db()), sendMessage(memberActor(a), input, db())]);
    expect(one.ok && two.ok).toBe(true);
    expect(one.ok && two.ok && one.value.message.id).toBe(two.ok && two.value.message.id);
    expect([one.ok && one.value.duplicate, two.ok && two.value.duplicate].sort()).toEqual([false, true]);
    expect((await counts(id)).messages).toBe(1);
    expect((await listConversations(t.db, b.id, { ids: [id] })).conversations[0]!.unreadCount).toBe(1);
  });

  it("refuses an empty message, one over 5,000 characters, a visitor, and a conversation the sender is not in, storing nothing", async () => {
    const a = await createUser(t.db);
    const b = await createUser(t.db);
    const outsider = await createUser(t.db);
    const id = await conversationOf(a, b);
    expect(SendMessageSchema.safeParse({ conversationId: id, body: "   " }).data?.body).toBe("");
    expect(await sendMessage(memberActor(a), { conversationId: id, body: "" }, db())).toEqual({
      ok: false,
      error: "invalid",
      issues: { body: [{ code: "message.empty", params: {} }] },
    });
    const long = SendMessageSchema.safeParse({ conversationId: id, body: "x".repeat(5001) });
    expect(long.success).toBe(false);
    expect(words(long.error?.issues[0]?.message ?? "")).toBe("Keep a message to at most 5,000 characters");
    expect(SendMessageSchema.safeParse({ conversationId: "conv_../../etc", body: "hi" }).success).toBe(false);
    expect(await sendMessage(visitor, { conversationId: id, body: "hi" }, db())).toMatchObject({ ok: false, error: "forbidden" });
    expect(await sendMessage(memberActor(outsider), { conversationId: id, body: "let me in" }, db())).toMatchObject({ ok: false, error: "not_found" });
    expect(await counts(id)).toEqual({ messages: 0, notifications: 0, effects: 0 });
  });

  it("refuses to write to a member who was suspended, and stores nothing", async () => {
    const a = await createUser(t.db);
    const b = await createUser(t.db);
    const id = await conversationOf(a, b);
    expect((await setUserStatus(system, { userId: b.id, status: "suspended" }, db())).ok).toBe(true);
    expect(await sendMessage(memberActor(a), { conversationId: id, body: "Are you there?" }, db())).toMatchObject({
      ok: false,
      error: "conflict",
      code: "message.recipient_unavailable",
    });
    expect((await counts(id)).messages).toBe(0);
  });

  it("warns the sender and flags the conversation for payment talk before a paid order, and not after one", async () => {
    const a = await createUser(t.db);
    const b = await createUser(t.db);
    const id = await conversationOf(a, b);
    expect(await sendMessage(memberActor(a), { conversationId: id, body: "What is your price for a flyer?" }, db())).toMatchObject({
      ok: true,
      value: { warning: null },
    });
    expect((await t.db("conversations").where({ id }).first()).flagged_at).toBeNull();
    const phone = await sendMessage(memberActor(b), { conversationId: id, body: "Call me on 0772 123 456, we can do it cheaper" }, db());
    expect(phone).toMatchObject({ ok: true, value: { warning: OFF_PLATFORM_WARNING, message: { offPlatform: true } } });
    const flagged = await t.db("conversations").where({ id }).first();
    expect(flagged.flagged_at).not.toBeNull();
    expect(flagged.flag_reason).toBe("off_platform:phone_number");

    // Between a buyer and a seller with a paid order, the same words are about that order: no warning, no flag.
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    const started = await startConversation(memberActor(t.buyer), { orderId }, db());
    const orderConversation = started.ok ? started.value.conversationId : "";
    await t.db("conversations").where({ id: orderConversation }).update({ flagged_at: null, flag_reason: null });
    expect(
      await sendMessage(memberActor(t.seller), { conversationId: orderConversation, body: "My WhatsApp is on my profile if the upload fails" }, db()),
    ).toMatchObject({
      ok: true,
      value: { warning: null, message: { offPlatform: false } },
    });
    expect((await t.db("conversations").where({ id: orderConversation }).first()).flagged_at).toBeNull();
  });
});

describe("marks", () => {
  it("move sent → delivered → read for the recipient only, and reading resets the unread count and the notification", async () => {
    const a = await createUser(t.db);
    const b = await createUser(t.db);
    const outsider = await createUser(t.db);
    const id = await conversationOf(a, b);
    const sent = await sendMessage(memberActor(a), { conversationId: id, body: "one" }, db());
    await sendMessage(memberActor(a), { conversationId: id, body: "two" }, db());
    const firstId = sent.ok ? sent.value.message.id : 0;

    // The sender cannot mark their own messages, nor can a stranger.
    expect(await markDelivered(memberActor(a), { conversationId: id }, db())).toEqual({ ok: true, value: { marked: 0 } });
    expect(await markDelivered(memberActor(outsider), { conversationId: id }, db())).toMatchObject({ ok: false, error: "not_found" });
    expect(await markConversationRead(memberActor(outsider), { conversationId: id }, db())).toMatchObject({ ok: false, error: "not_found" });
    expect((await t.db("messages").where({ conversation_id: id }).pluck("status")).sort()).toEqual(["sent", "sent"]);

    expect(await markDelivered(memberActor(b), { conversationId: id, upTo: firstId }, db())).toEqual({ ok: true, value: { marked: 1 } });
    expect(await t.db("messages").where({ conversation_id: id }).orderBy("id").pluck("status")).toEqual(["delivered", "sent"]);

    expect(await markConversationRead(memberActor(b), { conversationId: id }, db())).toEqual({ ok: true, value: { marked: 2 } });
    expect(await t.db("messages").where({ conversation_id: id }).orderBy("id").pluck("status")).toEqual(["read", "read"]);
    expect((await listConversations(t.db, b.id, { ids: [id] })).conversations[0]!.unreadCount).toBe(0);
    expect((await t.db("notifications").where({ user_id: b.id, conversation_id: id }).first()).read_at).not.toBeNull();

    // A read message is never delivered again; a new message after reading starts a new notification.
    expect(await markDelivered(memberActor(b), {}, db())).toEqual({ ok: true, value: { marked: 0 } });
    await sendMessage(memberActor(a), { conversationId: id, body: "three" }, db());
    expect(await t.db("notifications").where({ user_id: b.id, conversation_id: id }).whereNull("read_at").pluck("id")).toHaveLength(1);
    expect((await listConversations(t.db, b.id, { ids: [id] })).conversations[0]!.unreadCount).toBe(1);
  });

  it("reading up to a message leaves the later ones unread", async () => {
    const a = await createUser(t.db);
    const b = await createUser(t.db);
    const id = await conversationOf(a, b);
    const ids: number[] = [];
    for (const body of ["a", "b", "c"]) {
      const r = await sendMessage(memberActor(a), { conversationId: id, body }, db());
      if (r.ok) ids.push(r.value.message.id);
    }
    await markConversationRead(memberActor(b), { conversationId: id, upTo: ids[1] }, db());
    expect(await t.db("messages").where({ conversation_id: id }).orderBy("id").pluck("status")).toEqual(["read", "read", "sent"]);
    expect((await listConversations(t.db, b.id, { ids: [id] })).conversations[0]!.unreadCount).toBe(1);
  });
});

describe("reading", () => {
  it("pages a thread oldest first within a page, finds what a reconnecting page missed, and shows nothing to an outsider", async () => {
    const a = await createUser(t.db);
    const b = await createUser(t.db);
    const outsider = await createUser(t.db);
    const id = await conversationOf(a, b);
    const ids: number[] = [];
    for (let i = 1; i <= 7; i++) {
      const r = await sendMessage(memberActor(i % 2 ? a : b), { conversationId: id, body: `message ${i}` }, db());
      if (r.ok) ids.push(r.value.message.id);
    }
    const newest = await threadPage(t.db, id, a.id, { limit: 3 });
    expect(newest?.messages.map((m) => m.body)).toEqual(["message 5", "message 6", "message 7"]);
    expect(newest?.older).toBe(true);
    const older = await threadPage(t.db, id, a.id, { limit: 3, before: newest!.messages[0]!.id });
    expect(older?.messages.map((m) => m.body)).toEqual(["message 2", "message 3", "message 4"]);
    expect(await threadPage(t.db, id, outsider.id)).toBeNull();

    const missed = await messagesSince(t.db, b.id, ids[4]!);
    expect(missed.messages.map((m) => m.body)).toEqual(["message 6", "message 7"]);
    expect((await messagesSince(t.db, outsider.id, 0)).messages).toEqual([]);
  });

  it("pages the conversation list by time and id, so conversations changed in the same millisecond are each listed once", async () => {
    const me = await createUser(t.db);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await conversationOf(me, await createUser(t.db)));
    await t
      .db("conversations")
      .whereIn("id", ids)
      .update({ updated_at: new Date("2026-11-20T10:00:00.123Z") });
    const seen: string[] = [];
    let before: string | undefined;
    for (let page = 0; page < 4; page++) {
      const { conversations, more } = await listConversations(t.db, me.id, { limit: 1, before });
      seen.push(...conversations.map((c) => c.id));
      if (!more) break;
      before = listCursor(conversations[0]!);
    }
    expect(seen).toEqual([...ids].sort().reverse());
  });

  it("searches the member's own conversations by name and message text", async () => {
    const a = await createUser(t.db, { name: "Searcher Sam" });
    const b = await createUser(t.db, { name: "Zziwa Designer" });
    const c = await createUser(t.db, { name: "Other Olivia" });
    const withB = await conversationOf(a, b);
    const withC = await conversationOf(a, c);
    await sendMessage(memberActor(c), { conversationId: withC, body: "The banner draft is ready" }, db());
    await sendMessage(memberActor(a), { conversationId: withB, body: "hello" }, db());
    const ids = async (q: string) => (await listConversations(t.db, a.id, { q })).conversations.map((x) => x.id);
    expect(await ids("zziwa")).toEqual([withB]);
    expect(await ids("BANNER")).toEqual([withC]);
    expect(await ids("100%_")).toEqual([]);
    // The outsider's search finds nothing of theirs.
    expect((await listConversations(t.db, (await createUser(t.db)).id, { q: "banner" })).conversations).toEqual([]);
  });
});

describe("off-platform payment talk without a phone number", () => {
  it("a WhatsApp or Telegram handle alone, and a mobile-money request alone, warn the sender and flag the conversation with their reason", async () => {
    for (const [body, reason] of [
      ["Find me at wa.me/nakatodesigns, it is quicker", "off_platform:chat_handle"],
      ["tg: @nakato_designs", "off_platform:chat_handle"],
      ["Just send it to my momo number, no need for the site", "off_platform:mobile_money"],
    ] as const) {
      const a = await createUser(t.db);
      const b = await createUser(t.db);
      const id = await conversationOf(a, b);
      const sent = await sendMessage(memberActor(a), { conversationId: id, body }, db());
      expect(sent, body).toMatchObject({ ok: true, value: { warning: OFF_PLATFORM_WARNING, message: { offPlatform: true } } });
      const row = await t.db("conversations").where({ id }).first("flagged_at", "flag_reason");
      expect(row.flagged_at, body).not.toBeNull();
      expect(row.flag_reason, body).toBe(reason);
    }
  });

  it("a price and an order number are not a phone number: no warning, no flag", async () => {
    const a = await createUser(t.db);
    const b = await createUser(t.db);
    const id = await conversationOf(a, b);
    expect(
      await sendMessage(memberActor(a), { conversationId: id, body: "UGX 1,500,000 for premium, like ORD-20260101-1234 by 2026-11-26 10:30" }, db()),
    ).toMatchObject({
      ok: true,
      value: { warning: null, message: { offPlatform: false } },
    });
    expect((await t.db("conversations").where({ id }).first()).flagged_at).toBeNull();
  });
});

describe("message mail while a round is being mailed", () => {
  it("a message sent while its round's mail is written waits for it and starts the next round", async () => {
    const a = await createUser(t.db);
    const b = await createUser(t.db);
    const id = await conversationOf(a, b);
    expect((await sendMessage(memberActor(a), { conversationId: id, body: "First, in round 0" }, db())).ok).toBe(true);
    const rounds = () => t.db("effects").where({ kind: "message_mail" }).whereRaw("payload->>'conversationId' = ?", [id]).orderBy("id").pluck("dedupe_key");
    expect(await rounds()).toEqual([`message_mail:${id}:${b.id}:0`]);

    // The worker's mailUnreadMessages, midway: it holds b's side, has listed the unread messages, and ends the round.
    const worker = await t.db.transaction();
    try {
      await worker("conversation_participants").where({ conversation_id: id, user_id: b.id }).forUpdate().first();
      const sending = sendMessage(memberActor(a), { conversationId: id, body: "Second, while round 0 is mailed" }, db());
      // Until the send waits on the lock the worker holds.
      await vi.waitFor(
        async () => {
          const { rows } = await t.db.raw("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
          expect(rows[0].n).toBeGreaterThan(0);
        },
        { timeout: 10_000, interval: 20 },
      );
      await worker("conversation_participants").where({ conversation_id: id, user_id: b.id }).update({ mail_round: 1 });
      await worker.commit();
      expect((await sending).ok).toBe(true);
    } finally {
      if (!worker.isCompleted()) await worker.rollback();
    }
    // Round 0's list was read before the second message was stored: it needs a round of its own.
    expect(await rounds()).toEqual([`message_mail:${id}:${b.id}:0`, `message_mail:${id}:${b.id}:1`]);
  });
});
