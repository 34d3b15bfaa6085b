/**
 * Live chat for an app (ADR 016, ADR 041): a socket.io client with no cookie and no Origin, as a phone app
 * holds one, names its member by an app's token (`auth: { token }`). It is admitted, answers every chat event
 * (join, get_conversations, send_message, mark_read, create_conversation), hears new_message,
 * message_status_update and conversation_created beside a browser's cookie socket, and hears what the JSON
 * API's calls change; a socket with an invalid, a revoked or a browser's token is refused, and POST
 * /auth/logout ends the token's sockets at once.
 */
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConversation } from "~/operations/messages.server";
import { createSession, createUser, type TestUser } from "../support/factories";
import { LiveClient } from "../support/live-client";
import { memberActor, orderTestContext } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";
import { apiClient, createAppToken } from "../support/api";

const t = orderTestContext("api_chat_socket");
let server: TestServer;
let api: ReturnType<typeof apiClient>;
const closers: { close(): void }[] = [];

beforeAll(async () => {
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, TRUST_PROXY: "loopback" });
  api = apiClient(server.baseUrl);
});
afterAll(async () => {
  for (const c of closers) c.close();
  await server?.stop();
});

let address = 0;
const from = () => ({ "X-Forwarded-For": `198.51.100.${++address}` });

const WAIT_MS = 5_000;

/** An app's socket: the token in the handshake's `auth`, no cookie, no Origin header; every server event kept. */
class AppSocket {
  readonly events: { event: string; data: unknown }[] = [];
  readonly socket: Socket;
  constructor(token: string) {
    this.socket = connect(server.baseUrl, { transports: ["websocket"], reconnection: false, forceNew: true, auth: { token } });
    this.socket.onAny((event: string, data: unknown) => void this.events.push({ event, data }));
    closers.push(this);
  }
  connected(): Promise<{ ok: true } | { ok: false; reason: string }> {
    if (this.socket.connected) return Promise.resolve({ ok: true });
    return new Promise((resolve) => {
      this.socket.once("connect", () => resolve({ ok: true }));
      this.socket.once("connect_error", (error) => resolve({ ok: false, reason: error.message }));
    });
  }
  async connect() {
    const result = await this.connected();
    if (!result.ok) throw new Error(`the socket was refused: ${result.reason}`);
    return this;
  }
  disconnection(): Promise<string> {
    return new Promise((resolve) => this.socket.once("disconnect", resolve));
  }
  ask<T = Record<string, any>>(event: string, payload?: unknown): Promise<T & { ok: boolean; error?: string }> {
    return this.socket.timeout(WAIT_MS).emitWithAck(event, payload);
  }
  async next<T>(event: string, match: (data: T) => boolean = () => true): Promise<T> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const found = this.events.find((e) => e.event === event && match(e.data as T));
      if (found) return found.data as T;
      if (Date.now() > deadline) throw new Error(`no ${event} within ${WAIT_MS} ms; received: ${JSON.stringify(this.events.map((e) => e.event))}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  close() {
    this.socket.disconnect();
  }
}

async function browserSocket(user: TestUser) {
  const client = new LiveClient(server, await createSession(t.db, user.id));
  closers.push(client);
  return client.connect();
}
const refusal = async (s: AppSocket) => {
  const result = await s.connected();
  return result.ok ? "connected" : result.reason;
};

describe("the handshake with an app's token", () => {
  it("admits a valid token without cookie or Origin, and refuses an invalid one, a browser session's, and a revoked one", async () => {
    const member = await createUser(t.db);
    const token = await createAppToken(t.db, member.id, { platform: "android" });
    const app = await new AppSocket(token).connect();
    expect(await app.ask("join", { userId: member.id })).toEqual({ ok: true, userId: member.id });

    expect(await refusal(new AppSocket("not-a-token"))).toBe("unauthorized");
    expect(await refusal(new AppSocket(await createSession(t.db, member.id)))).toBe("unauthorized");

    const revoked = await createAppToken(t.db, member.id);
    const out = await api.call("post", "/auth/logout", "/auth/logout", { token: revoked, headers: from() });
    expect(out.status).toBe(200);
    expect(await refusal(new AppSocket(revoked))).toBe("unauthorized");
  });

  it("POST /auth/logout ends that token's sockets at once, and no other session's", async () => {
    const member = await createUser(t.db);
    const token = await createAppToken(t.db, member.id);
    const [app, otherApp, page] = await Promise.all([
      new AppSocket(token).connect(),
      new AppSocket(await createAppToken(t.db, member.id)).connect(),
      browserSocket(member),
    ]);
    const gone = app.disconnection();
    const out = await api.call("post", "/auth/logout", "/auth/logout", { token, headers: from() });
    expect(out.status).toBe(200);
    expect(await gone).toBe("io server disconnect");
    expect(otherApp.socket.connected).toBe(true);
    expect(page.socket.connected).toBe(true);
    expect(await otherApp.ask("join", {})).toMatchObject({ ok: true });
  });
});

describe("chat between an app's socket and a browser's", () => {
  it("every event works with the token: create_conversation, send_message, get_conversations, mark_read; the other side hears them", async () => {
    const [appUser, pageUser] = [await createUser(t.db, { name: "App Akello" }), await createUser(t.db, { name: "Page Mukasa" })];
    const app = await new AppSocket(await createAppToken(t.db, appUser.id)).connect();
    const page = await browserSocket(pageUser);

    expect(await app.ask("join", { userId: appUser.id })).toEqual({ ok: true, userId: appUser.id });
    expect(await app.ask("join", { userId: pageUser.id })).toMatchObject({ ok: false, error: "forbidden" });

    const created = page.next<{ conversation: { id: string; other: { name: string } } }>("conversation_created");
    const opened = await app.ask<{ conversationId: string; created: boolean }>("create_conversation", { userId: pageUser.id });
    expect(opened).toMatchObject({ ok: true, created: true });
    expect((await created).conversation).toMatchObject({ id: opened.conversationId, other: { name: "App Akello" } });
    expect((await app.next<{ conversation: { id: string } }>("conversation_created")).conversation.id).toBe(opened.conversationId);

    const arrives = page.next<{ message: { id: number; body: string } }>("new_message");
    const sent = await app.ask("send_message", { conversationId: opened.conversationId, body: "Habari from the app", clientId: "app-1" });
    expect(sent).toMatchObject({ ok: true, duplicate: false, message: { body: "Habari from the app", senderId: appUser.id } });
    expect((await arrives).message).toMatchObject({ id: sent.message.id, body: "Habari from the app" });

    const resent = await app.ask("send_message", { conversationId: opened.conversationId, body: "Habari from the app", clientId: "app-1" });
    expect(resent).toMatchObject({ ok: true, duplicate: true, message: { id: sent.message.id } });
    expect(await t.db("messages").where({ conversation_id: opened.conversationId }).pluck("id")).toEqual([sent.message.id]);

    const list = await app.ask<{ conversations: { id: string; other: { id: number } }[] }>("get_conversations", {});
    expect(list.ok).toBe(true);
    expect(list.conversations.map((c) => [c.id, c.other.id])).toEqual([[opened.conversationId, pageUser.id]]);

    // The page replies; the app hears it, reads it, and the page hears the mark.
    const reply = app.next<{ message: { id: number; body: string } }>("new_message", (d) => d.message.body === "Karibu");
    expect(await page.ask("send_message", { conversationId: opened.conversationId, body: "Karibu", clientId: "page-1" })).toMatchObject({ ok: true });
    const heard = await reply;
    const marked = page.next<{ ids: number[]; status: string }>("message_status_update", (u) => u.status === "read");
    expect(await app.ask("mark_read", { conversationId: opened.conversationId })).toEqual({ ok: true, marked: 1 });
    expect(await marked).toMatchObject({ ids: [heard.message.id], status: "read" });
  });

  it("what the JSON API changes reaches both sides' sockets", async () => {
    const [appUser, pageUser] = [await createUser(t.db), await createUser(t.db)];
    const token = await createAppToken(t.db, appUser.id);
    const app = await new AppSocket(token).connect();
    const page = await browserSocket(pageUser);
    const r = await startConversation(memberActor(appUser), { userId: pageUser.id }, { db: t.db });
    if (!r.ok) throw new Error(JSON.stringify(r));
    const id = r.value.conversationId;

    const arrives = page.next<{ message: { id: number; body: string } }>("new_message");
    const echoed = app.next<{ message: { clientId: string } }>("new_message");
    const sent = await api.call("post", "/messages/send", "/messages/send", {
      token,
      headers: from(),
      body: { conversationId: id, body: "From the API", clientId: "api-1" },
    });
    expect(sent.status).toBe(201);
    expect((await arrives).message).toMatchObject({ id: sent.body.data.message.id, body: "From the API" });
    expect((await echoed).message.clientId).toBe("api-1");

    const read = app.next<{ ids: number[]; status: string }>("message_status_update", (u) => u.status === "read");
    expect(await page.ask("mark_read", { conversationId: id })).toEqual({ ok: true, marked: 1 });
    expect(await read).toMatchObject({ ids: [sent.body.data.message.id], status: "read" });
  });

  it("a token socket's events are refused once its token has ended, and it is closed", async () => {
    const member = await createUser(t.db);
    const token = await createAppToken(t.db, member.id);
    const app = await new AppSocket(token).connect();
    // The session ends without its push (as if the push were lost): the next event finds it gone.
    await t.db("sessions").where({ user_id: member.id }).delete();
    const gone = app.disconnection();
    expect(await app.ask("get_conversations", {})).toMatchObject({ ok: false, error: "unauthorized" });
    expect(await gone).toBe("io server disconnect");
  });
});
