/**
 * A rolling restart under load (ADR 059): two web processes serve pages, tracking posts and a chat; SIGHUP to
 * the primary restarts them one at a time, each stopped only once its successor is ready, and each draining
 * (its connections closed as their requests end, its sockets told to reconnect elsewhere). Not one request
 * fails, and every chat message is acknowledged, stored once and reaches the other member.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { io as connect, type Socket } from "socket.io-client";
import { processTree } from "../../scripts/lib/bench";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeLimitRedis } from "~/server/rate-limit.server";
import { closeRedis, getRedis } from "~/server/redis.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createSession, createUser, type TestUser } from "../support/factories";
import { ownQueuePrefix } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const QUEUE_PREFIX = ownQueuePrefix("rolling");
const ANDROID = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";

/** The processes under a cluster primary (its children: they start none of their own). */
const childrenOf = (pid: number) => processTree(pid).slice(1);

/** A member's page socket as the app opens it (app/hooks/live-client.ts): it reconnects by itself. */
function pageSocket(server: TestServer, token: string): Socket {
  return connect(server.baseUrl, {
    transports: ["websocket", "polling"],
    tryAllTransports: true,
    forceNew: true,
    reconnectionDelay: 100,
    reconnectionDelayMax: 500,
    extraHeaders: { origin: server.baseUrl, cookie: `soko_session=${token}` },
  });
}

describe("a rolling restart of two web processes under load", () => {
  let t: TestDatabase;
  let server: TestServer;
  let ann: TestUser;
  let ben: TestUser;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestDatabase();
    ann = await createUser(t.db, { role: "client", name: "Ann Rolling" });
    ben = await createUser(t.db, { role: "freelancer", name: "Ben Rolling" });
    tokens.ann = await createSession(t.db, ann.id);
    tokens.ben = await createSession(t.db, ben.id);
    server = await startTestServer({
      DATABASE_URL: t.url,
      QUEUE_PREFIX,
      WEB_PROCESSES: "2",
      // All the load comes from one address: the limits would refuse it, which is not what is measured here.
      ANALYTICS_RATE_LIMIT: "1000000",
      CATALOG_RATE_LIMIT: "1000000",
    });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    const keys = await getRedis().keys(`${QUEUE_PREFIX}*`);
    if (keys.length) await getRedis().del(...keys);
    await Promise.all([closeRedis(), closeLimitRedis()]);
    await t?.drop();
  });

  it("fails not one request and loses not one chat message", { timeout: 120_000 }, async () => {
    const before = childrenOf(server.child.pid!);
    expect(before).toHaveLength(2);
    const failures: string[] = [];
    const counts = { pages: 0, tracking: 0, sent: 0 };
    let running = true;

    // Pages, as a visitor's browser asks for them (keep-alive connections, reused).
    const pages = async () => {
      for (let i = 0; running; i++) {
        const path = i % 2 ? "/help" : "/browse";
        try {
          const res = await fetch(`${server.baseUrl}${path}`);
          await res.arrayBuffer();
          if (res.status !== 200) failures.push(`GET ${path}: ${res.status}`);
          counts.pages++;
        } catch (error) {
          failures.push(`GET ${path}: ${(error as Error).message} ${String((error as { cause?: unknown }).cause)}`);
        }
      }
    };
    // Tracking posts, as the page's tracker sends them.
    const tracking = async () => {
      while (running) {
        const event = { event_id: randomUUID(), session_id: "1764000000000-k3j9x2", timestamp: Date.now(), action_type: "click", page: "/browse" };
        try {
          const res = await fetch(`${server.baseUrl}/api/v1/analytics/action`, {
            method: "POST",
            // A phone's browser: a bot's posts are answered before the stream.
            headers: { "content-type": "text/plain", "user-agent": ANDROID },
            body: JSON.stringify(event),
          });
          await res.arrayBuffer();
          if (res.status !== 202) failures.push(`POST tracking: ${res.status}`);
          counts.tracking++;
        } catch (error) {
          failures.push(`POST tracking: ${(error as Error).message} ${String((error as { cause?: unknown }).cause)}`);
        }
      }
    };

    // The chat: Ann sends; a send not acknowledged (its connection was closed under it) is sent again with the
    // same client id once the socket is back, as the page's retry does; Ben's page collects what it is pushed.
    const a = pageSocket(server, tokens.ann!);
    const b = pageSocket(server, tokens.ben!);
    const received = new Set<string>();
    b.on("new_message", (data: { message: { body: string } }) => received.add(data.message.body));
    await Promise.all([a, b].map((s) => new Promise<void>((resolve) => s.once("connect", () => resolve()))));
    const created = (await a.timeout(5_000).emitWithAck("create_conversation", { userId: ben.id })) as { ok: boolean; conversationId: string };
    expect(created.ok).toBe(true);
    const sent: { body: string; clientId: string }[] = [];
    const chat = async () => {
      for (let i = 0; running; i++) {
        const message = { body: `Rolling ${i} ${randomBytes(3).toString("hex")}`, clientId: randomBytes(9).toString("base64url") };
        for (let attempt = 0; ; attempt++) {
          if (!a.connected) await new Promise<void>((resolve) => a.once("connect", () => resolve()));
          const ack = (await a
            .timeout(3_000)
            .emitWithAck("send_message", { conversationId: created.conversationId, ...message })
            .catch(() => null)) as { ok: boolean } | null;
          if (ack?.ok) break;
          if (attempt === 5) {
            failures.push(`chat: "${message.body}" never acknowledged`);
            break;
          }
        }
        sent.push(message);
        counts.sent++;
        await new Promise((r) => setTimeout(r, 50));
      }
    };

    // The primary's lines, kept apart: the request log would push them out of the output the child keeps.
    let primaryLines = "";
    let partial = "";
    server.child.stdout!.on("data", (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split("\n");
      partial = lines.pop()!;
      for (const line of lines) if (line.includes("[web primary]")) primaryLines += `${line}\n`;
    });
    const load = Promise.all([pages(), pages(), tracking(), chat()]);
    await new Promise((r) => setTimeout(r, 1_500));
    process.kill(server.child.pid!, "SIGHUP");
    const deadline = Date.now() + 90_000;
    while ((primaryLines.match(/web \d restarted/g) ?? []).length < 2) {
      if (Date.now() > deadline) throw new Error(`the rolling restart did not finish:\n${primaryLines}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 1_500));
    running = false;
    await load;

    const after = childrenOf(server.child.pid!);
    expect(after).toHaveLength(2);
    expect(
      after.filter((pid) => before.includes(pid)),
      "both processes were replaced",
    ).toEqual([]);
    expect(failures).toEqual([]);
    expect(counts.pages).toBeGreaterThan(20);
    expect(counts.tracking).toBeGreaterThan(10);
    expect(counts.sent).toBeGreaterThan(10);

    // Every message stored once…
    const rows = await t.db("messages").where({ conversation_id: created.conversationId }).select("body", "client_id");
    expect(rows.map((r: { body: string }) => r.body).sort()).toEqual(sent.map((m) => m.body).sort());
    // …and at Ben's page: pushed live, or (sent while his socket was moving to the other process) on the
    // conversation's page, which the page loads again when its socket reconnects.
    const missed = sent.filter((m) => !received.has(m.body)).map((m) => m.body);
    if (missed.length > 0) {
      const page = await (await fetch(`${server.baseUrl}/messages/${created.conversationId}`, { headers: { cookie: `soko_session=${tokens.ben}` } })).text();
      for (const body of missed) expect(page, body).toContain(body);
    }
    expect(missed.length, "pushed live to a connected page").toBeLessThan(sent.length / 2);
    a.close();
    b.close();
  });
});
