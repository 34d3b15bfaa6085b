/**
 * WEB_PROCESSES=2: the built app as `npm start` runs it with two web processes behind one port (ADR 059). The
 * primary hands each connection to a process; a long-polling socket.io session keeps reaching the process that
 * holds it; a request whose body arrives after its headers is read whole by the process it was given to; both
 * processes serve; a process that dies is started again while the other keeps serving.
 */
import net from "node:net";
import { randomBytes, randomUUID } from "node:crypto";
import { cpuSecondsOf, processTree } from "../../scripts/lib/bench";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeLimitRedis } from "~/server/rate-limit.server";
import { closeRedis, getRedis } from "~/server/redis.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createSession, createUser, type TestUser } from "../support/factories";
import { LiveClient } from "../support/live-client";
import { ownQueuePrefix } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const QUEUE_PREFIX = ownQueuePrefix("webprocs");
/** Tracking requests a minute per address, for the test of a limit held across the processes. */
const TRACKING_LIMIT = 6;
const ANDROID = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";

/** The processes under a cluster primary (its children: they start none of their own). */
const childrenOf = (pid: number) => processTree(pid).slice(1);

async function until<T>(check: () => T | null | undefined | false, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("two web processes behind one port (WEB_PROCESSES=2)", () => {
  let t: TestDatabase;
  let server: TestServer;
  let ann: TestUser;
  let ben: TestUser;
  const tokens: Record<string, string> = {};
  const sockets: LiveClient[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    ann = await createUser(t.db, { role: "client", name: "Ann Cluster" });
    ben = await createUser(t.db, { role: "freelancer", name: "Ben Cluster" });
    tokens.ann = await createSession(t.db, ann.id);
    tokens.ben = await createSession(t.db, ben.id);
    server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX, WEB_PROCESSES: "2", ANALYTICS_RATE_LIMIT: String(TRACKING_LIMIT) });
    await until(() => childrenOf(server.child.pid!).length === 2, "two web processes");
  }, 120_000);

  afterAll(async () => {
    for (const s of sockets) s.close();
    await server?.stop();
    const keys = await getRedis().keys(`${QUEUE_PREFIX}*`);
    if (keys.length) await getRedis().del(...keys);
    await Promise.all([closeRedis(), closeLimitRedis()]);
    await t?.drop();
  });

  it("serves from both processes: requests are spread over them", async () => {
    const [one, two] = childrenOf(server.child.pid!) as [number, number];
    const before = [cpuSecondsOf(one)!, cpuSecondsOf(two)!];
    // Each fetch below opens its own connection (no keep-alive agent shared between them): one per request.
    for (let i = 0; i < 40; i++) {
      const res = await fetch(`${server.baseUrl}/help`, { headers: { connection: "close" } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    const used = [cpuSecondsOf(one)! - before[0]!, cpuSecondsOf(two)! - before[1]!];
    // Rendering 20 pages costs each process well over 30 ms of CPU; an idle one uses about none.
    expect(Math.min(...used), `CPU seconds used: ${used.join(", ")}`).toBeGreaterThan(0.03);
  });

  it("keeps a long-polling session on its process: a chat over HTTP long-polling works both ways", async () => {
    const a = new LiveClient(server, tokens.ann!, { polling: true });
    const b = new LiveClient(server, tokens.ben!, { polling: true });
    sockets.push(a, b);
    await Promise.all([a.connect(), b.connect()]);
    const created = await a.ask<{ conversationId: string }>("create_conversation", { userId: ben.id });
    expect(created.ok).toBe(true);
    // Many round trips, each a request of its own: any that reached the other process would end the session.
    for (let i = 0; i < 8; i++) {
      const body = `Polling message ${i} ${randomBytes(3).toString("hex")}`;
      const sent = await (i % 2 ? b : a).ask("send_message", { conversationId: created.conversationId, body, clientId: randomBytes(9).toString("base64url") });
      expect(sent.ok).toBe(true);
      await (i % 2 ? a : b).next<{ message: { body: string } }>("new_message", (d) => d.message.body === body);
    }
    expect(a.socket.connected && b.socket.connected).toBe(true);
    const stored = await t.db("messages").where({ conversation_id: created.conversationId }).count<{ count: string }[]>("* as count");
    expect(Number(stored[0]!.count)).toBe(8);
  });

  it("reads a request whose body comes in a later packet than its headers", async () => {
    const email = `split-${randomBytes(3).toString("hex")}@example.com`;
    const body = `email=${encodeURIComponent(email)}&password=not-the-password`;
    const head =
      `POST /login HTTP/1.1\r\nHost: localhost:${server.port}\r\nOrigin: ${server.baseUrl}\r\n` +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(server.port, "127.0.0.1", () => {
        socket.write(head);
        // The body after the primary has handed the connection over: it must reach the process, not the primary.
        setTimeout(() => socket.write(body), 300);
      });
      let text = "";
      socket.on("data", (chunk) => (text += chunk.toString()));
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 (400|401|422) /);
    // The form comes back with the address typed: the whole body was read.
    expect(answer).toContain(email);
  });

  it("holds a rate limit across the processes: the count is in Redis, not in either process", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < TRACKING_LIMIT * 2; i++) {
      const event = { event_id: randomUUID(), session_id: "1764000000000-k3j9x2", timestamp: Date.now(), action_type: "click", page: "/help" };
      const res = await fetch(`${server.baseUrl}/api/v1/analytics/action`, {
        method: "POST",
        // A phone's browser (a bot's posts are answered 202 and dropped before any limit).
        headers: { "content-type": "text/plain", connection: "close", "user-agent": ANDROID },
        body: JSON.stringify(event),
      });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    // Alternate connections went to alternate processes; a limit per process would have let all twelve through.
    expect(statuses.filter((s) => s === 202)).toHaveLength(TRACKING_LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(TRACKING_LIMIT);
  });

  it("starts a process again that died, while the other keeps serving", async () => {
    const [victim] = childrenOf(server.child.pid!) as [number];
    process.kill(victim, "SIGKILL");
    // A connection handed over at the instant of the crash dies with the process; once the primary has seen
    // the exit (a moment later), every request goes to the process left, until the new one is up.
    await until(() => /was killed by SIGKILL/.test(server.output()), "the primary noticing");
    for (let i = 0; i < 10; i++) expect((await fetch(`${server.baseUrl}/healthz`, { headers: { connection: "close" } })).status).toBe(200);
    const replaced = await until(() => {
      const now = childrenOf(server.child.pid!);
      return now.length === 2 && !now.includes(victim) ? now : null;
    }, "replacement process");
    expect(replaced).toHaveLength(2);
    expect(server.output()).toMatch(/web 1 \(pid \d+\) was killed by SIGKILL; starting it again|web 2 \(pid \d+\) was killed by SIGKILL; starting it again/);
  });
});
