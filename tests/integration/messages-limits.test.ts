/**
 * The Redis rate limits on messaging, per sender (ADR 010, LIMITS in
 * app/server/rate-limit.server.ts), through two real web processes that share one Redis: a member's 120
 * messages a minute are counted together whether they come by the no-JS form on one process or by the socket
 * on the other, and the 121st is refused either way (the form: 429, Retry-After, the limit's words on the
 * page; the socket: `limited` with the same words) with nothing stored; the same for the 60 conversations an
 * hour that Contact and `create_conversation` may start.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "~/server/rate-limit.server";
import { startConversation } from "~/operations/messages.server";
import { createSession, createUser, type TestUser } from "../support/factories";
import { decode } from "../support/html";
import { LiveClient } from "../support/live-client";
import { memberActor, orderTestContext } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const t = orderTestContext("msglimits");
let one: TestServer;
let two: TestServer;
const sockets: LiveClient[] = [];

beforeAll(async () => {
  const env = { DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix };
  [one, two] = await Promise.all([startTestServer(env), startTestServer(env)]);
}, 120_000);
afterAll(async () => {
  for (const s of sockets) s.close();
  await Promise.all([one?.stop(), two?.stop()]);
});

async function socketOn(server: TestServer, token: string) {
  const client = new LiveClient(server, token);
  sockets.push(client);
  return client.connect();
}

function post(server: TestServer, urlPath: string, token: string, body: Record<string, string>) {
  return fetch(`${server.baseUrl}${urlPath}`, {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: `soko_session=${token}`, Origin: server.baseUrl },
    body: new URLSearchParams(body),
  });
}

/** `count` requests, `width` at a time (a script's pace, well inside a minute). */
async function inBatches<T>(count: number, width: number, send: (i: number) => Promise<T>): Promise<T[]> {
  const answers: T[] = [];
  for (let i = 0; i < count; i += width) answers.push(...(await Promise.all(Array.from({ length: Math.min(width, count - i) }, (_, j) => send(i + j)))));
  return answers;
}

/** What a person reads on the page: no scripts, no tags. */
const text = (html: string) =>
  decode(html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, ""))
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ");

const rows = async (table: string, where: Record<string, unknown>) => Number((await t.db(table).where(where).count<{ n: string }[]>({ n: "*" }))[0]!.n);

describe("messages: 120 a minute per sender, in Redis", () => {
  let sender: TestUser;
  let token: string;
  let conversationId: string;

  beforeAll(async () => {
    sender = await createUser(t.db, { role: "client", name: "Script Sender" });
    const seller = await createUser(t.db, { role: "freelancer" });
    token = await createSession(t.db, sender.id);
    const started = await startConversation(memberActor(sender), { userId: seller.id }, { db: t.db });
    if (!started.ok) throw new Error(JSON.stringify(started));
    conversationId = started.value.conversationId;
  });

  it("counts the form on one web process and the socket on the other together, and refuses the 121st either way, storing nothing", async () => {
    const socket = await socketOn(two, token);
    // 100 by the form on the first process: every one stored (303 back to the thread).
    const posted = await inBatches(100, 10, async (i) => {
      const res = await post(one, `/messages/${conversationId}`, token, { body: `Form message ${i}`, clientId: `form-${i}` });
      await res.arrayBuffer();
      return res.status;
    });
    expect(posted).toEqual(new Array(100).fill(303));
    // 20 more by the socket on the second: the same count, so these are the last it allows.
    const sent = await inBatches(20, 5, (i) => socket.ask("send_message", { conversationId, body: `Socket message ${i}`, clientId: `sock-${i}` }));
    expect(sent.map((a) => a.ok)).toEqual(new Array(20).fill(true));
    expect(await rows("messages", { conversation_id: conversationId })).toBe(120);

    // The 121st by the socket: refused with the Redis limit's words (not the per-process event allowance's).
    expect(await socket.ask("send_message", { conversationId, body: "One too many", clientId: "sock-121" })).toEqual({
      ok: false,
      error: "limited",
      code: "limit.exceeded",
      message: LIMITS.message.message,
    });
    // And by the form on the other process: 429, when to come back, and the words beside the send box.
    const refused = await post(one, `/messages/${conversationId}`, token, { body: "One too many by form", clientId: "form-121" });
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(text(await refused.text())).toContain(LIMITS.message.message);
    expect(await rows("messages", { conversation_id: conversationId })).toBe(120);
    expect(await t.db("messages").where({ conversation_id: conversationId }).whereILike("body", "One too many%").pluck("id")).toEqual([]);
  });
});

describe("conversations: 60 started an hour per member, in Redis", () => {
  it("counts Contact (the form) and create_conversation (the socket) together, and refuses the 61st, creating nothing", async () => {
    const buyer = await createUser(t.db, { role: "client", name: "Contact Script" });
    const token = await createSession(t.db, buyer.id);
    const sellers = await Promise.all(Array.from({ length: 61 }, () => createUser(t.db, { role: "freelancer" })));
    const socket = await socketOn(two, token);

    // 30 Contacts by the form on one process, 30 by the socket on the other: each a new conversation.
    const contacted = await inBatches(30, 10, async (i) => {
      const res = await post(one, "/messages", token, { intent: "start", to: sellers[i]!.username });
      await res.arrayBuffer();
      return res.status;
    });
    expect(contacted).toEqual(new Array(30).fill(303));
    const created = await inBatches(30, 5, (i) => socket.ask("create_conversation", { userId: sellers[30 + i]!.id }));
    expect(created.map((a) => a.ok && a.created)).toEqual(new Array(30).fill(true));
    expect(await rows("conversation_participants", { user_id: buyer.id })).toBe(60);

    const last = sellers[60]!;
    expect(await socket.ask("create_conversation", { userId: last.id })).toEqual({
      ok: false,
      error: "limited",
      code: "limit.exceeded",
      message: LIMITS.conversation.message,
    });
    const refused = await post(one, "/messages", token, { intent: "start", to: last.username });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(60);
    expect(text(await refused.text())).toContain(LIMITS.conversation.message);
    expect(await rows("conversation_participants", { user_id: buyer.id })).toBe(60);
    expect(await rows("conversation_participants", { user_id: last.id })).toBe(0);
  });
});
