/**
 * Live chat through the real built server's socket.io (ADR 016): the handshake admits members only, from
 * our own origin; every client event is answered by the operation behind it, so a member can neither join
 * another's room nor read, mark or write into a conversation they are not in (each event tried with a
 * stranger's ids); live events reach the right member only; signing out, suspending and banning end the
 * sockets at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signOut, setUserStatus } from "~/operations/accounts.server";
import { sendMessage, startConversation } from "~/operations/messages.server";
import { getSessionUser } from "~/models/session.server";
import { createSession, createUser, type TestUser } from "../support/factories";
import { memberActor, orderTestContext, paidTestOrder, system } from "../support/orders";
import { LiveClient } from "../support/live-client";
import { startTestServer, type TestServer } from "../support/test-server";

const t = orderTestContext("chat_socket", { parties: { buyer: { name: "Socket Buyer" }, seller: { name: "Socket Seller" } } });
let server: TestServer;
const sockets: LiveClient[] = [];

beforeAll(async () => {
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix });
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await server?.stop();
});

/** A member's socket (a new session's cookie unless `token` names one; our Origin unless `origin` says), closed after the file. */
async function socketOf(user: TestUser | null, { origin, token }: { origin?: string; token?: string } = {}): Promise<LiveClient> {
  const client = new LiveClient(server, user ? (token ?? (await createSession(t.db, user.id))) : null, { origin });
  sockets.push(client);
  return client;
}
const refusal = async (s: LiveClient) => {
  const result = await s.connected();
  return result.ok ? "connected" : result.reason;
};

async function conversation(a: TestUser, b: TestUser) {
  const r = await startConversation(memberActor(a), { userId: b.id }, { db: t.db });
  if (!r.ok) throw new Error(JSON.stringify(r));
  return r.value.conversationId;
}

describe("the handshake", () => {
  it("refuses a socket without a session, with an ended session, or from another origin", async () => {
    expect(await refusal(await socketOf(null))).toBe("unauthorized");
    const member = await createUser(t.db);
    const token = await createSession(t.db, member.id);
    const actor = memberActor(member);
    const session = (await getSessionUser(t.db, token))!;
    await signOut({ ...actor, user: session } as typeof actor, { db: t.db });
    expect(await refusal(await socketOf(member, { token }))).toBe("unauthorized");
    // A foreign page's socket fails at the HTTP upgrade, before any event.
    const foreign = await socketOf(member, { origin: "http://evil.example" });
    expect(await refusal(foreign)).toMatch(/websocket error|origin/i);
  });
});

describe("every event, tried on someone else's conversation", () => {
  let a: TestUser, b: TestUser, stranger: TestUser;
  let theirs: string;
  let strangerSocket: LiveClient;

  beforeAll(async () => {
    [a, b, stranger] = [
      await createUser(t.db, { name: "Alice A" }),
      await createUser(t.db, { name: "Bob B" }),
      await createUser(t.db, { name: "Eve Stranger" }),
    ];
    theirs = await conversation(a, b);
    const sent = await sendMessage(memberActor(a), { conversationId: theirs, body: "private: my shop's plans" }, { db: t.db });
    expect(sent.ok).toBe(true);
    strangerSocket = await (await socketOf(stranger)).connect();
  });

  const statuses = () => t.db("messages").where({ conversation_id: theirs }).orderBy("id").pluck("status");

  it("join: only one's own room", async () => {
    expect(await strangerSocket.ask("join", { userId: a.id })).toMatchObject({ ok: false, error: "forbidden" });
    expect(await strangerSocket.ask("join", { userId: stranger.id })).toEqual({ ok: true, userId: stranger.id });
  });

  it("get_conversations: neither their conversations nor their messages since any id", async () => {
    const answer = await strangerSocket.ask("get_conversations", { after: 0 });
    expect(answer).toMatchObject({ ok: true, conversations: [], missed: [] });
    expect(JSON.stringify(answer)).not.toContain("private");
    const search = await strangerSocket.ask("get_conversations", { q: "plans" });
    expect(search.conversations).toEqual([]);
  });

  it("send_message: not found, and nothing stored", async () => {
    expect(await strangerSocket.ask("send_message", { conversationId: theirs, body: "let me in", clientId: "x1" })).toMatchObject({
      ok: false,
      error: "not_found",
    });
    expect(await t.db("messages").where({ conversation_id: theirs }).pluck("body")).toEqual(["private: my shop's plans"]);
  });

  it("mark_read and mark_delivered: not found, and no mark moves", async () => {
    expect(await strangerSocket.ask("mark_read", { conversationId: theirs })).toMatchObject({ ok: false, error: "not_found" });
    expect(await strangerSocket.ask("mark_delivered", { conversationId: theirs, upTo: 2 ** 31 - 1 })).toMatchObject({ ok: false, error: "not_found" });
    // Without a conversation, only the stranger's own messages could move: there are none.
    expect(await strangerSocket.ask("mark_delivered", { upTo: 2 ** 31 - 1 })).toEqual({ ok: true, marked: 0 });
    expect(await statuses()).toEqual(["sent"]);
  });

  it("create_conversation: someone else's order is not found", async () => {
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    expect(await strangerSocket.ask("create_conversation", { orderId })).toMatchObject({ ok: false, error: "not_found" });
    expect(await t.db("conversation_participants").where({ user_id: stranger.id }).pluck("conversation_id")).toEqual([]);
  });

  it("bad payloads are refused as invalid and change nothing", async () => {
    expect(await strangerSocket.ask("send_message", { conversationId: "conv_'; drop table messages;--", body: "x" })).toMatchObject({
      ok: false,
      error: "invalid",
    });
    expect(await strangerSocket.ask("send_message", "just a string")).toMatchObject({ ok: false, error: "invalid" });
    expect(await strangerSocket.ask("mark_read", { conversationId: theirs, upTo: -1 })).toMatchObject({ ok: false, error: "invalid" });
    expect(await strangerSocket.ask("create_conversation", {})).toMatchObject({ ok: false, error: "invalid" });
    expect(await statuses()).toEqual(["sent"]);
  });
});

describe("a script on a socket", () => {
  it("is cut off for a payload over 64 KB, and nothing is stored", async () => {
    const [a, b] = [await createUser(t.db), await createUser(t.db)];
    const id = await conversation(a, b);
    const client = await (await socketOf(a)).connect();
    const gone = client.disconnection();
    client.socket.emit("send_message", { conversationId: id, body: "x".repeat(100 * 1024), clientId: "huge-1" });
    expect(await gone).toBe("transport close");
    expect(await t.db("messages").where({ conversation_id: id }).pluck("id")).toEqual([]);
  });

  it("meets the member's event allowance (a burst of 60, then 20 a second) and is told so, across all their sockets", async () => {
    const member = await createUser(t.db);
    const [one, two] = await Promise.all([socketOf(member), socketOf(member)]);
    await Promise.all([one.connect(), two.connect()]);
    const answers = await Promise.all(Array.from({ length: 80 }, (_, i) => (i % 2 ? one : two).ask("get_conversations", {})));
    const limited = answers.filter((a) => a.error === "limited");
    expect(limited.length).toBeGreaterThanOrEqual(15);
    expect(limited[0]!.message).toBe("You are doing that very fast. Please wait a moment and try again.");
    expect(answers.filter((a) => a.ok).length).toBeGreaterThanOrEqual(60);
  });
});

describe("live chat on one server", () => {
  it("a message reaches the recipient (and the sender's other tab), and its marks reach the sender; a stranger hears nothing", async () => {
    const [a, b, stranger] = [await createUser(t.db, { name: "Live A" }), await createUser(t.db, { name: "Live B" }), await createUser(t.db)];
    const [sa, sa2, sb, ss] = await Promise.all([socketOf(a), socketOf(a), socketOf(b), socketOf(stranger)]);
    await Promise.all([sa, sa2, sb, ss].map((s) => s.connect()));

    const created = sb.next<{ conversation: { id: string; other: { name: string } } }>("conversation_created");
    const opened = await sa.ask("create_conversation", { userId: b.id });
    expect(opened).toMatchObject({ ok: true, created: true });
    expect((await created).conversation).toMatchObject({ id: opened.conversationId, other: { name: "Live A" } });

    const arrives = sb.next<{ message: { id: number; body: string; status: string }; conversation: { unreadCount: number } }>("new_message");
    const otherTab = sa2.next<{ message: { clientId: string } }>("new_message");
    const sent = await sa.ask("send_message", { conversationId: opened.conversationId, body: "Hello <b>Bob</b>", clientId: "live-1" });
    expect(sent).toMatchObject({ ok: true, duplicate: false, warning: null, message: { status: "sent" } });
    const received = await arrives;
    expect(received.message).toMatchObject({ body: "Hello <b>Bob</b>", status: "sent" });
    expect(received.conversation.unreadCount).toBe(1);
    expect((await otherTab).message.clientId).toBe("live-1");

    const delivered = sa.next<{ ids: number[]; status: string }>("message_status_update", (u) => u.status === "delivered");
    expect(await sb.ask("mark_delivered", { conversationId: opened.conversationId, upTo: received.message.id })).toEqual({ ok: true, marked: 1 });
    expect(await delivered).toMatchObject({ ids: [received.message.id], status: "delivered" });
    const read = sa.next<{ ids: number[]; status: string }>("message_status_update", (u) => u.status === "read");
    const cleared = sb.next<{ unreadCount: number }>("conversation_updated");
    expect(await sb.ask("mark_read", { conversationId: opened.conversationId })).toEqual({ ok: true, marked: 1 });
    expect(await read).toMatchObject({ ids: [received.message.id], status: "read" });
    expect((await cleared).unreadCount).toBe(0);

    // The same client id again (a resend after a dropped ack) is the same message.
    expect(await sa.ask("send_message", { conversationId: opened.conversationId, body: "Hello <b>Bob</b>", clientId: "live-1" })).toMatchObject({
      ok: true,
      duplicate: true,
      message: { id: received.message.id },
    });
    expect(ss.events).toEqual([]);
  });

  it("suspending, banning or signing out ends the member's sockets at once", async () => {
    const [x, y] = [await createUser(t.db), await createUser(t.db)];
    const [sx, sy1, sy2] = await Promise.all([socketOf(x), socketOf(y), socketOf(y)]);
    await Promise.all([sx, sy1, sy2].map((s) => s.connect()));

    const gone = sx.disconnection();
    expect((await setUserStatus(system, { userId: x.id, status: "suspended" }, { db: t.db })).ok).toBe(true);
    expect(await gone).toBe("io server disconnect");

    // Signing out ends that session's sockets only.
    const token = await createSession(t.db, y.id);
    const sy3 = await (await socketOf(y, { token })).connect();
    const ended = sy3.disconnection();
    const session = (await getSessionUser(t.db, token))!;
    const actor = memberActor(y);
    await signOut({ ...actor, user: session } as typeof actor, { db: t.db });
    expect(await ended).toBe("io server disconnect");
    expect(sy1.socket.connected && sy2.socket.connected).toBe(true);

    const bothGone = Promise.all([sy1.disconnection(), sy2.disconnection()]);
    expect((await setUserStatus(system, { userId: y.id, status: "banned" }, { db: t.db })).ok).toBe(true);
    expect(await bothGone).toEqual(["io server disconnect", "io server disconnect"]);
  });
});
