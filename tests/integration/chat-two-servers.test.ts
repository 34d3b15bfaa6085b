/**
 * A chat across two servers. Two web processes of the built app share one
 * database and one Redis under one QUEUE_PREFIX; member A's socket is connected to the first, member B's to
 * the second, and everything one says reaches the other through the socket.io Redis adapter: new messages,
 * the sent → delivered → read marks, what a page missed while away, one message for a send retried with
 * the same client id, a third member's socket on the same server seeing none of it, and the end of a
 * suspended member's socket, pushed from a third process (this one).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversationSummary } from "~/models/conversation.server";
import type { Message } from "~/models/message.server";
import { setUserStatus } from "~/operations/accounts.server";
import { messageOf } from "~/content/operation-messages";
import { closeLimitRedis } from "~/server/rate-limit.server";
import { closeRedis, getRedis } from "~/server/redis.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createSession, createUser, type TestUser } from "../support/factories";
import { ownQueuePrefix, system } from "../support/orders";
import { LiveClient } from "../support/live-client";
import { startTestServer, type TestServer } from "../support/test-server";

// Before anything reads the environment: the servers and this process (which suspends B) share it.
const QUEUE_PREFIX = ownQueuePrefix("chat2");
type NewMessage = { message: Message; conversation: ConversationSummary };
type StatusUpdate = { conversationId: string; ids: number[]; status: "delivered" | "read" };
type SendAck = { ok: boolean; message: Message; duplicate: boolean; warning: string | null; error?: string };

const clientId = () => randomBytes(9).toString("base64url");

describe("chat across two web processes", () => {
  let t: TestDatabase;
  let one: TestServer;
  let two: TestServer;
  let ann: TestUser;
  let ben: TestUser;
  let cat: TestUser;
  const tokens: Record<string, string> = {};
  const sockets: LiveClient[] = [];
  let conversationId = "";

  /** A member's socket on a server, closed after the file. */
  const open = (server: TestServer, token: string | null, options?: { origin?: string }) => {
    const member = new LiveClient(server, token, options);
    sockets.push(member);
    return member;
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    ann = await createUser(t.db, { role: "client", name: "Ann Two Servers" });
    ben = await createUser(t.db, { role: "freelancer", name: "Ben Two Servers" });
    tokens.ann = await createSession(t.db, ann.id);
    tokens.ben = await createSession(t.db, ben.id);
    cat = await createUser(t.db, { role: "client", name: "Cat Two Servers" });
    tokens.cat = await createSession(t.db, cat.id);
    const env = { DATABASE_URL: t.url, QUEUE_PREFIX };
    [one, two] = await Promise.all([startTestServer(env), startTestServer(env)]);
  }, 120_000);

  afterAll(async () => {
    for (const s of sockets) s.close();
    await Promise.all([one?.stop(), two?.stop()]);
    const redis = getRedis();
    const keys = await redis.keys(`${QUEUE_PREFIX}*`);
    if (keys.length) await redis.del(...keys);
    await Promise.all([closeRedis(), closeLimitRedis()]);
    await t?.drop();
  });

  it("refuses a handshake without a session cookie, with a foreign Origin, or with an ended session", async () => {
    expect(await open(one, null).connected()).toEqual({ ok: false, reason: "unauthorized" });
    expect(await open(two, "not-a-session-token").connected()).toEqual({ ok: false, reason: "unauthorized" });
    // The Origin check answers the WebSocket upgrade 403 before socket.io sees it, cookie or not.
    const foreign = await open(one, tokens.ann!, { origin: "http://evil.example" }).connected();
    expect(foreign.ok).toBe(false);
    // Over HTTP long-polling the same refusal is visible as the status: 403, and no session id handed out.
    const polling = await fetch(`${two.baseUrl}/socket.io/?EIO=4&transport=polling`, {
      headers: { origin: "http://evil.example", cookie: `soko_session=${tokens.ben}` },
    });
    expect(polling.status).toBe(403);
    expect(await polling.text()).not.toContain('"sid"');
  });

  it("opens a conversation on one server and tells the other member on the other", async () => {
    const a = await open(one, tokens.ann!).connect();
    const b = await open(two, tokens.ben!).connect();
    const created = await a.ask<{ conversationId: string; created: boolean }>("create_conversation", { userId: ben.id });
    expect(created).toMatchObject({ ok: true, created: true });
    conversationId = created.conversationId;
    const seenByBen = await b.next<{ conversation: ConversationSummary }>("conversation_created");
    expect(seenByBen.conversation).toMatchObject({ id: conversationId, other: { id: ann.id, name: "Ann Two Servers" }, unreadCount: 0 });
    const seenByAnn = await a.next<{ conversation: ConversationSummary }>("conversation_created");
    expect(seenByAnn.conversation).toMatchObject({ id: conversationId, other: { id: ben.id } });

    // Asking again reuses the pair's conversation and announces nothing new.
    expect(await b.ask("create_conversation", { userId: ann.id })).toMatchObject({ ok: true, conversationId, created: false });
    a.close();
    b.close();
  });

  it("carries messages both ways, with sent → delivered → read marks, between the two servers", async () => {
    const a = await open(one, tokens.ann!).connect();
    const b = await open(two, tokens.ben!).connect();

    const sent = await a.ask<SendAck>("send_message", { conversationId, body: "Hello from server one", clientId: clientId() });
    expect(sent).toMatchObject({ ok: true, duplicate: false, warning: null, message: { body: "Hello from server one", senderId: ann.id, status: "sent" } });
    const id = sent.message.id;
    const atBen = await b.next<NewMessage>("new_message", (d) => d.message.id === id);
    expect(atBen.message).toMatchObject({ body: "Hello from server one", senderId: ann.id, conversationId, status: "sent" });
    expect(atBen.conversation).toMatchObject({ id: conversationId, unreadCount: 1, other: { id: ann.id } });

    // Ben's page has it: delivered, and Ann (on the other server) sees the mark.
    expect(await b.ask("mark_delivered", { conversationId, upTo: id })).toMatchObject({ ok: true, marked: 1 });
    expect(await a.next<StatusUpdate>("message_status_update", (d) => d.status === "delivered")).toEqual({ conversationId, ids: [id], status: "delivered" });
    expect((await t.db("messages").where({ id }).first("status")).status).toBe("delivered");

    // Ben opens the thread: read, Ann sees it, and Ben's unread count for it goes back to 0.
    expect(await b.ask("mark_read", { conversationId })).toMatchObject({ ok: true, marked: 1 });
    expect(await a.next<StatusUpdate>("message_status_update", (d) => d.status === "read")).toEqual({ conversationId, ids: [id], status: "read" });
    expect(await b.next("conversation_updated")).toEqual({ conversationId, unreadCount: 0 });
    expect((await t.db("messages").where({ id }).first("status")).status).toBe("read");

    // And back: Ben writes on server two, Ann reads it on server one.
    const reply = await b.ask<SendAck>("send_message", { conversationId, body: "Hello back from server two", clientId: clientId() });
    expect(reply.ok).toBe(true);
    const atAnn = await a.next<NewMessage>("new_message", (d) => d.message.id === reply.message.id);
    expect(atAnn.message).toMatchObject({ body: "Hello back from server two", senderId: ben.id });
    expect(atAnn.conversation.unreadCount).toBe(1);
    expect(await a.ask("mark_delivered", { conversationId, upTo: reply.message.id })).toMatchObject({ ok: true, marked: 1 });
    expect(await b.next<StatusUpdate>("message_status_update", (d) => d.ids.includes(reply.message.id) && d.status === "delivered")).toMatchObject({
      status: "delivered",
    });
    expect(await a.ask("mark_read", { conversationId, upTo: reply.message.id })).toMatchObject({ ok: true, marked: 1 });
    expect(await b.next<StatusUpdate>("message_status_update", (d) => d.ids.includes(reply.message.id) && d.status === "read")).toMatchObject({
      status: "read",
    });
    a.close();
    b.close();
  });

  it("stores one message for two sends with the same client id, and pushes it once", async () => {
    const a = await open(one, tokens.ann!).connect();
    const b = await open(two, tokens.ben!).connect();
    const retried = clientId();
    const first = await a.ask<SendAck>("send_message", { conversationId, body: "Sent twice over a bad line", clientId: retried });
    const again = await a.ask<SendAck>("send_message", { conversationId, body: "Sent twice over a bad line", clientId: retried });
    expect(first).toMatchObject({ ok: true, duplicate: false });
    expect(again).toMatchObject({ ok: true, duplicate: true, message: { id: first.message.id } });
    // A message after them: everything pushed before it has arrived (one emitter, one Redis channel, in order).
    const marker = await a.ask<SendAck>("send_message", { conversationId, body: "After the retry", clientId: clientId() });
    await b.next<NewMessage>("new_message", (d) => d.message.id === marker.message.id);
    expect(b.all<NewMessage>("new_message").filter((d) => d.message.clientId === retried)).toHaveLength(1);
    const stored = await t.db("messages").where({ sender_id: ann.id, client_id: retried }).select("id");
    expect(stored.map((r) => Number(r.id))).toEqual([first.message.id]);
    a.close();
    b.close();
  });

  it("keeps a third member on the other server out of the pair's rooms and conversation", async () => {
    const a = await open(one, tokens.ann!).connect();
    const b = await open(two, tokens.ben!).connect();
    const c = await open(two, tokens.cat!).connect();
    expect(await c.ask("join", { userId: ann.id })).toMatchObject({ ok: false, error: "forbidden" });
    const sent = await a.ask<SendAck>("send_message", { conversationId, body: "Only for Ben", clientId: clientId() });
    await b.next<NewMessage>("new_message", (d) => d.message.id === sent.message.id);
    // Cat's socket shares server two with Ben's, yet nothing of theirs reached it.
    for (const [event, payload] of [
      ["send_message", { conversationId, body: "Let me in", clientId: clientId() }],
      ["mark_read", { conversationId }],
      ["mark_delivered", { conversationId, upTo: sent.message.id }],
    ] as const) {
      expect(await c.ask(event, payload), event).toMatchObject({ ok: false, error: "not_found" });
    }
    const list = await c.ask<{ conversations: ConversationSummary[]; missed: Message[] }>("get_conversations", { after: 0 });
    expect(list).toMatchObject({ ok: true, conversations: [], missed: [] });
    expect(c.events.map((e) => e.event)).toEqual([]);
    expect((await t.db("messages").where({ id: sent.message.id }).first("status")).status).toBe("sent");
    a.close();
    b.close();
    c.close();
  });

  it("gives a member who reconnects what was sent while they were away", async () => {
    const a = await open(one, tokens.ann!).connect();
    const b = await open(two, tokens.ben!).connect();
    const before = await a.ask<SendAck>("send_message", { conversationId, body: "Before you left", clientId: clientId() });
    const lastSeen = (await b.next<NewMessage>("new_message", (d) => d.message.id === before.message.id)).message.id;
    b.close();
    await new Promise<void>((resolve) => (b.socket.disconnected ? resolve() : b.socket.once("disconnect", () => resolve())));

    const missed = await a.ask<SendAck>("send_message", { conversationId, body: "While you were away", clientId: clientId() });
    expect(missed.ok).toBe(true);

    const back = await open(two, tokens.ben!).connect();
    const answer = await back.ask<{ conversations: ConversationSummary[]; missed: Message[]; moreMissed: boolean }>("get_conversations", { after: lastSeen });
    expect(answer.ok).toBe(true);
    expect(answer.missed.map((m) => m.body)).toEqual(["While you were away"]);
    expect(answer.missed[0]).toMatchObject({ id: missed.message.id, senderId: ann.id, conversationId, status: "sent" });
    expect(answer.moreMissed).toBe(false);
    expect(answer.conversations.find((c) => c.id === conversationId)).toMatchObject({ lastMessage: { id: missed.message.id, body: "While you were away" } });
    a.close();
    back.close();
  });

  it("disconnects a suspended member's socket on the other server at once, and refuses it back", async () => {
    const a = await open(one, tokens.ann!).connect();
    const b = await open(two, tokens.ben!).connect();
    const gone = new Promise<string>((resolve) => b.socket.once("disconnect", (reason) => resolve(reason)));
    // Suspended from this process (as the admin portal's form would, through the operation): the push
    // reaches server two through Redis.
    const started = Date.now();
    expect(await setUserStatus(system, { userId: ben.id, status: "suspended" }, { db: t.db })).toMatchObject({ ok: true });
    expect(await gone).toBe("io server disconnect");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(a.socket.connected).toBe(true);

    // The same cookie no longer opens a socket, on either server; and Ann cannot write to Ben any more.
    expect(await open(two, tokens.ben!).connected()).toEqual({ ok: false, reason: "unauthorized" });
    expect(await open(one, tokens.ben!).connected()).toEqual({ ok: false, reason: "unauthorized" });
    expect(await a.ask("send_message", { conversationId, body: "Are you there?", clientId: clientId() })).toMatchObject({
      ok: false,
      code: "message.recipient_unavailable",
      message: messageOf({ code: "message.recipient_unavailable", params: {} }),
    });
    a.close();
  });
});
