/**
 * The tracking endpoints of the built app (POST /api/v1/analytics/*): what they accept, what they refuse
 * and why, what they add to each event, and that a 202 means the entry is in Redis. The worker is not
 * running here: entries stay in the ingest stream (ADR 025), where the tests read them back.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES, type QueuedEvent } from "~/analytics/events";
import { streamEntries } from "~/analytics/ingest-stream.server";
import { getEnv } from "~/server/env.server";
import { createRedis } from "~/server/redis.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createSession, createUser } from "../support/factories";
import { createAppToken } from "../support/api";
import { inOneWindow } from "../support/one-window";
import { freePort, startTestServer, type TestServer } from "../support/test-server";

const ANDROID = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
const IPAD = "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

/** The per-address limit these servers run with (the default is 600 a minute). */
const RATE_LIMIT = 40;

type Answer = { status: number; headers: Headers; body: Record<string, unknown> & { issues?: { index: number; path: string; message: string }[] } };

function action(over: Record<string, unknown> = {}) {
  return { event_id: randomUUID(), session_id: "1764000000000-k3j9x2", timestamp: Date.now(), action_type: "click", page: "/browse", x: 12, y: 340, ...over };
}

/** Each test sends from addresses of its own, so the rate limit of one never touches another. */
let addressCounter = 0;
const privateAddress = () => `10.20.${Math.floor(++addressCounter / 250)}.${(addressCounter % 250) + 1}`;

function client(baseUrl: () => string) {
  return async function post(
    endpoint: string,
    body: unknown,
    {
      ip = privateAddress(),
      userAgent = ANDROID,
      headers = {},
      raw = false,
    }: { ip?: string; userAgent?: string; headers?: Record<string, string>; raw?: boolean } = {},
  ): Promise<Answer> {
    const res = await fetch(`${baseUrl()}/api/v1/analytics/${endpoint}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "User-Agent": userAgent, "X-Forwarded-For": ip, ...headers },
      body: raw ? (body as string) : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: Answer["body"];
    try {
      parsed = JSON.parse(text) as Answer["body"];
    } catch {
      throw new Error(`${endpoint} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
}

function queueReader(prefix: string, redis: Redis) {
  return {
    /** The stream's entries: one per group of requests written together (here, one request at a time). */
    entries: () => streamEntries(redis, prefix),
    count: async () => (await streamEntries(redis, prefix)).length,
    async events(): Promise<QueuedEvent[]> {
      return (await streamEntries(redis, prefix)).flatMap((entry) => entry.events);
    },
    async find(eventId: string): Promise<QueuedEvent | undefined> {
      return (await this.events()).find((e) => e.event_id === eventId);
    },
  };
}

describe("tracking endpoints", () => {
  let t: TestDatabase;
  let server: TestServer;
  let redis: Redis;
  let reader: ReturnType<typeof queueReader>;
  let userId: number;
  let token: string;
  /** An app's token (ADR 041): a Bearer token names an app's session, the cookie a browser's. */
  let appToken: string;
  const prefix = `t_anaep_${randomBytes(4).toString("hex")}`;
  const post = client(() => server.baseUrl);

  beforeAll(async () => {
    t = await createTestDatabase();
    ({ id: userId } = await createUser(t.db, { name: "Ruth Achieng", username: "ruth_a", email: "ruth@example.ug" }));
    token = await createSession(t.db, userId);
    appToken = await createAppToken(t.db, userId);
    server = await startTestServer({
      DATABASE_URL: t.url,
      QUEUE_PREFIX: prefix,
      TRUST_PROXY: "loopback",
      ANALYTICS_RATE_LIMIT: String(RATE_LIMIT),
    });
    redis = createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: null });
    reader = queueReader(prefix, redis);
  });
  afterAll(async () => {
    await server?.stop();
    if (redis) {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    }
    await t?.drop();
  });

  /** Runs a request that must be refused and checks that the queue did not grow. */
  async function refused(send: () => Promise<Answer>): Promise<Answer> {
    const before = await reader.count();
    const answer = await send();
    expect(answer.status, JSON.stringify(answer.body)).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(answer.body.success).toBe(false);
    expect(typeof answer.body.error).toBe("string");
    expect(await reader.count()).toBe(before);
    return answer;
  }

  const counters = async () => redis.hgetall(`${prefix}:analytics:counters`);

  describe("accepts", () => {
    it("one event as JSON: 202 once the entry is in Redis, one entry per request", async () => {
      const before = await reader.count();
      const event = action();
      const res = await post("action", event);
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ success: true, accepted: 1 });
      // No waiting: the 202 came after Redis had the entry.
      expect(await reader.count()).toBe(before + 1);
      expect(await reader.find(event.event_id)).toMatchObject({ kind: "action", event_id: event.event_id, page: "/browse", x: 12, y: 340 });
    });

    it("an array of events as text/plain (sendBeacon), as one entry", async () => {
      const events = Array.from({ length: 20 }, (_, i) => action({ page: `/gig/${i}` }));
      const before = await reader.count();
      const res = await post("action", JSON.stringify(events), { raw: true, headers: { "Content-Type": "text/plain;charset=UTF-8" } });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ success: true, accepted: 20 });
      expect(await reader.count()).toBe(before + 1);
      const entry = (await reader.entries()).find((e) => e.events[0]?.event_id === events[0]!.event_id);
      expect(entry?.events.map((e) => e.event_id)).toEqual(events.map((e) => e.event_id));
    });

    it("a body without a Content-Type", async () => {
      const event = action();
      const res = await fetch(`${server.baseUrl}/api/v1/analytics/action`, {
        method: "POST",
        headers: { "User-Agent": ANDROID },
        body: new TextEncoder().encode(JSON.stringify(event)),
      });
      expect(res.status).toBe(202);
      expect(await reader.find(event.event_id)).toBeDefined();
    });

    it("exactly 100 events, and a body just under 64 KB", async () => {
      expect(
        (
          await post(
            "action",
            Array.from({ length: 100 }, () => action()),
          )
        ).status,
      ).toBe(202);
      const big = [action({ error_stack: "s".repeat(4000) })];
      while (JSON.stringify([...big, big[0]]).length <= MAX_BODY_BYTES) big.push(action({ error_stack: "s".repeat(4000) }));
      expect(JSON.stringify(big).length).toBeGreaterThan(MAX_BODY_BYTES - 4_500);
      const res = await post("action", big);
      expect(res.status).toBe(202);
      expect(res.body.accepted).toBe(big.length);
    });

    it("cuts a 10,000-character element text to 100 (cut, not refused)", async () => {
      const event = action({ element_text: "é".repeat(10_000) });
      const res = await post("action", event);
      expect(res.status).toBe(202);
      expect(await reader.find(event.event_id)).toMatchObject({ kind: "action", element_text: "é".repeat(100) });
    });

    it("an ISO timestamp inside the window, stored as the event time", async () => {
      const at = new Date(Date.now() - 3 * 60 * 60 * 1000);
      const event = action({ timestamp: at.toISOString().replace("Z", "+00:00") });
      expect((await post("action", event)).status).toBe(202);
      expect((await reader.find(event.event_id))?.event_time).toBe(at.toISOString());
    });

    it("an action of type pageview (an anonymous visitor's route change) as a page view of user 0", async () => {
      const event = {
        ...action({ action_type: "pageview", page: "/terms", element_id: "ignored", x: 5 }),
        title: "Terms of Service | Soko",
        url: `${server.baseUrl}/search?q=${"q".repeat(3000)}`,
        referrer: `${server.baseUrl}/help`,
      };
      const res = await post("action", event);
      expect(res.status).toBe(202);
      const queued = await reader.find(event.event_id);
      expect(queued).toMatchObject({
        kind: "pageview",
        user_id: 0,
        page: "/terms",
        title: "Terms of Service | Soko",
        url: event.url.slice(0, 2000),
        referrer: `${server.baseUrl}/help`,
        session_id: event.session_id,
        event_time: new Date(event.timestamp).toISOString(),
      });
      // Checked as a page view: nothing of an action's is kept.
      expect(queued).not.toHaveProperty("action_type");
      expect(queued).not.toHaveProperty("element_id");
      expect(queued).not.toHaveProperty("x");
    });

    it("an action of type error as an error event", async () => {
      const event = action({ action_type: "error", error_message: "TypeError: x is undefined", error_stack: "at app.js:1:2" });
      expect((await post("action", event)).status).toBe(202);
      expect(await reader.find(event.event_id)).toMatchObject({ kind: "error", error_message: "TypeError: x is undefined", error_stack: "at app.js:1:2" });
    });
  });

  describe("refuses bad input with a clear 4xx and queues nothing", () => {
    it("malformed JSON: 400", async () => {
      const res = await refused(() => post("action", '{"event_id": "', { raw: true }));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^Malformed JSON/);
    });

    it("wrong types: 400 naming each field", async () => {
      const res = await refused(() => post("action", action({ x: "12", page: 42, value: true })));
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("Invalid events");
      const paths = res.body.issues?.map((i) => `${i.index}:${i.path}`);
      expect(paths).toEqual(expect.arrayContaining(["0:x", "0:page", "0:value"]));
      expect(res.body.issues?.find((i) => i.path === "x")?.message).toMatch(/number/i);
    });

    it("missing session_id: 400", async () => {
      const { session_id: _, ...event } = action();
      const res = await refused(() => post("action", event));
      expect(res.body.issues).toEqual([{ index: 0, path: "session_id", message: "session_id is required" }]);
    });

    it("a session_id that is not time plus random: 400", async () => {
      const res = await refused(() => post("session", { ...action(), session_id: "abc" }));
      expect(res.body.issues?.[0]).toMatchObject({ path: "session_id", message: expect.stringMatching(/time plus random/) });
    });

    it("unknown action_type: 400", async () => {
      const res = await refused(() => post("action", action({ action_type: "hover" })));
      expect(res.body.issues?.[0]).toMatchObject({ path: "action_type", message: expect.stringMatching(/^action_type must be one of click/) });
    });

    it("an action of type pageview without its page, or with a title that is not text: 400", async () => {
      const { page: _, ...noPage } = action({ action_type: "pageview" });
      const res = await refused(() => post("action", [noPage, action({ action_type: "pageview", title: 42 })]));
      expect(res.body.issues?.map((i) => `${i.index}:${i.path}`)).toEqual(["0:page", "1:title"]);
    });

    it("x or y negative or outside the page: 400", async () => {
      const res = await refused(() => post("action", [action(), action({ x: -1 }), action({ y: 2_000_000 }), action({ x: 1.5 })]));
      expect(res.body.issues).toEqual([
        { index: 1, path: "x", message: "x cannot be negative" },
        { index: 2, path: "y", message: "y is outside the page" },
        { index: 3, path: "x", message: "x must be a whole number" },
      ]);
    });

    it("timestamps in the far past or future: 400, never stored", async () => {
      const past = await refused(() => post("action", action({ timestamp: Date.now() - 2 * 24 * 60 * 60 * 1000 })));
      expect(past.body.issues?.[0]).toMatchObject({ path: "timestamp", message: expect.stringMatching(/before the server's time/) });
      const future = await refused(() => post("action", action({ timestamp: Date.now() + 60 * 60 * 1000 })));
      expect(future.body.issues?.[0]).toMatchObject({ path: "timestamp", message: expect.stringMatching(/after the server's time/) });
      const ancient = await refused(() => post("action", action({ timestamp: "2001-01-01T00:00:00Z" })));
      expect(ancient.body.issues?.[0]?.path).toBe("timestamp");
      const huge = await refused(() => post("action", action({ timestamp: 1e20 })));
      expect(huge.body.issues?.[0]?.path).toBe("timestamp");
      const words = await refused(() => post("action", action({ timestamp: "yesterday" })));
      expect(words.body.issues?.[0]?.message).toMatch(/milliseconds since 1970 or an ISO 8601 date/);
    });

    it("one bad event refuses the whole request", async () => {
      const good = action();
      await refused(() => post("action", [good, action({ x: -5 })]));
      expect(await reader.find(good.event_id)).toBeUndefined();
    });

    it("101 events: 400", async () => {
      const res = await refused(() =>
        post(
          "action",
          Array.from({ length: 101 }, () => action()),
        ),
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/at most 100 per request, this one has 101/);
    });

    it("no events, or something that is not an event: 400", async () => {
      expect((await refused(() => post("action", []))).body.error).toMatch(/^No events/);
      const notObjects = await refused(() => post("action", [42, null, "x"]));
      expect(notObjects.body.issues?.map((i) => i.message)).toEqual(Array(3).fill("An event must be a JSON object"));
      expect((await refused(() => post("action", "null", { raw: true }))).status).toBe(400);
    });

    it("65 KB: 413, with a Content-Length and streamed without one", async () => {
      const body = JSON.stringify([action({ element_text: "a".repeat(65 * 1024) })]);
      const res = await refused(() => post("action", body, { raw: true }));
      expect(res.status).toBe(413);
      expect(res.body.error).toMatch(/larger than 64 KB/);
      // Chunked: the size is only known while reading; reading stops at the cap.
      const chunk = new TextEncoder().encode("a".repeat(16 * 1024));
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('[{"element_text":"'));
          for (let i = 0; i < 5; i++) controller.enqueue(chunk);
          controller.enqueue(new TextEncoder().encode('"}]'));
          controller.close();
        },
      });
      const before = await reader.count();
      const chunked = await fetch(`${server.baseUrl}/api/v1/analytics/action`, {
        method: "POST",
        headers: { "Content-Type": "text/plain", "User-Agent": ANDROID },
        body: stream,
        duplex: "half",
      } as RequestInit);
      expect(chunked.status).toBe(413);
      expect(await chunked.json()).toMatchObject({ success: false, error: expect.stringMatching(/larger than 64 KB/) });
      expect(await reader.count()).toBe(before);
    });

    it("a body that is neither JSON nor text: 415", async () => {
      const res = await refused(() => post("action", "event_id=1", { raw: true, headers: { "Content-Type": "application/x-www-form-urlencoded" } }));
      expect(res.status).toBe(415);
      expect(res.body.error).toMatch(/application\/json or text\/plain/);
    });

    it("pageview, conversion and user-action without a session or with a wrong Bearer token: 401", async () => {
      const pageview = { event_id: randomUUID(), session_id: "1764000000000-k3j9x2", timestamp: Date.now(), page: "/" };
      const conversion = { event_id: randomUUID(), session_id: "1764000000000-k3j9x2", timestamp: Date.now(), conversion_type: "signup" };
      const userAction = { event_id: randomUUID(), session_id: "1764000000000-k3j9x2", timestamp: Date.now(), action: "saved_gig" };
      for (const [endpoint, event] of [
        ["pageview", pageview],
        ["conversion", conversion],
        ["user-action", userAction],
      ] as const) {
        const attempts: Record<string, string>[] = [
          {},
          { Authorization: "Bearer not-a-real-token" },
          { Cookie: "soko_session=forged" },
          { Authorization: `Bearer ${appToken}x` },
        ];
        for (const headers of attempts) {
          const res = await refused(() => post(endpoint, event, { headers }));
          expect(res.status, `${endpoint} ${JSON.stringify(headers)}`).toBe(401);
          expect(res.body).toEqual({ success: false, error: "Authentication required" });
        }
      }
    });

    it("a bot without a valid session on an authenticated endpoint: 401 like anyone, not a bot's 202", async () => {
      const pageview = { event_id: randomUUID(), session_id: "1764000000000-k3j9x2", timestamp: Date.now(), page: "/" };
      for (const headers of [{}, { Authorization: "Bearer not-a-real-token" }] as Record<string, string>[]) {
        const res = await refused(() => post("pageview", pageview, { userAgent: GOOGLEBOT, headers }));
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ success: false, error: "Authentication required" });
      }
      // Signed in, it is a bot again: told all is well, and dropped.
      const signedIn = await post("pageview", pageview, { userAgent: GOOGLEBOT, headers: { Authorization: `Bearer ${appToken}` } });
      expect(signedIn.status).toBe(202);
      expect(signedIn.body).toEqual({ success: true, accepted: 0 });
      expect(await reader.find(pageview.event_id)).toBeUndefined();
    });

    it("a post from another site's page: 403, whatever it carries, counted as dropped", async () => {
      const before = Number((await counters())["dropped:cross_origin"] ?? 0);
      const event = { event_id: randomUUID(), session_id: "1764000000000-k3j9x2", timestamp: Date.now(), page: "/" };
      const attempts: [string, unknown, Record<string, string>][] = [
        // The visitor's own session cookie, sent along by their browser from the other site's page.
        ["pageview", event, { Cookie: `soko_session=${token}`, Origin: "https://evil.example" }],
        ["action", action(), { Origin: "https://evil.example" }],
        ["session", { ...event, page: undefined }, { Origin: `http://localhost.evil.example:${server.port}` }],
        // Our own host on another port, the admin host posting to the main host, a sandboxed page ("null").
        ["action", action(), { Origin: `http://localhost:${server.port + 1}` }],
        ["action", action(), { Origin: server.adminUrl }],
        ["action", action(), { Origin: "null" }],
        ["conversion", { ...event, conversion_type: "package_selected" }, { Authorization: `Bearer ${appToken}`, Origin: "https://evil.example" }],
      ];
      for (const [endpoint, body, headers] of attempts) {
        const res = await refused(() => post(endpoint, body, { headers }));
        expect(res.status, `${endpoint} ${headers.Origin}`).toBe(403);
        expect(res.body).toEqual({ success: false, error: "Tracking events are accepted only from Soko's own pages" });
      }
      await expect.poll(async () => Number((await counters())["dropped:cross_origin"] ?? 0)).toBe(before + attempts.length);
    });

    it("a post from our own pages, on either host, or with no Origin at all (old sendBeacon, a server with a Bearer token): accepted", async () => {
      const own = action();
      expect((await post("action", own, { headers: { Origin: server.baseUrl } })).status).toBe(202);
      // The admin host's pages post to the admin host: its Origin is the host the request was sent to.
      const admin = action();
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const body = JSON.stringify(admin);
        const headers = {
          "Content-Type": "text/plain",
          "Content-Length": Buffer.byteLength(body),
          "User-Agent": ANDROID,
          Host: new URL(server.adminUrl).host,
          Origin: server.adminUrl,
        };
        const req = http.request({ host: "127.0.0.1", port: server.port, path: "/api/v1/analytics/action", method: "POST", headers }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode));
        });
        req.on("error", reject);
        req.end(body);
      });
      expect(status).toBe(202);
      const none = action();
      expect((await post("action", none)).status).toBe(202);
      const bearer = { event_id: randomUUID(), session_id: "1764000000000-k3j9x2", timestamp: Date.now(), page: "/dashboard" };
      expect((await post("pageview", bearer, { headers: { Authorization: `Bearer ${appToken}` } })).status).toBe(202);
      for (const id of [own.event_id, admin.event_id, none.event_id, bearer.event_id]) expect(await reader.find(id)).toBeDefined();
    });

    it("a business conversion from a browser: 400 naming the types a browser may send, whatever its value", async () => {
      const signedIn = { Cookie: `soko_session=${token}`, Origin: server.baseUrl };
      for (const type of ["signup", "gig_published", "order_placed", "order_paid", "order_completed"]) {
        const conversion = { event_id: randomUUID(), session_id: "1764000000000-k3j9x2", timestamp: Date.now(), conversion_type: type, value: 9_999_999 };
        const res = await refused(() => post("conversion", conversion, { headers: signedIn }));
        expect(res.status).toBe(400);
        expect(res.body.issues).toEqual([
          {
            index: 0,
            path: "conversion_type",
            message: `conversion_type ${type} is recorded by the server, not sent from a browser: send one of search, package_selected, contact_seller`,
          },
        ]);
      }
      const unknown = await refused(() => post("conversion", { ...action(), conversion_type: "refund" }, { headers: signedIn }));
      expect(unknown.body.issues?.[0]?.message).toBe("conversion_type must be one of search, package_selected, contact_seller");
    });

    it("an unknown endpoint is a JSON 404, and GET a JSON 405", async () => {
      const res = await refused(() => post("clicks", action()));
      expect(res.status).toBe(404);
      expect(res.body.error).toMatch(/Unknown analytics endpoint "clicks"/);
      const get = await fetch(`${server.baseUrl}/api/v1/analytics/action`);
      expect(get.status).toBe(405);
      expect(get.headers.get("allow")).toBe("POST");
      expect(await get.json()).toMatchObject({ success: false });
    });

    it("a flood from one address: 429 with Retry-After once over the limit, other addresses unaffected", async () => {
      // The limit counts per minute of the server's clock (ADR 021): a flood that straddles two starts counting
      // afresh, so such a run is run again in the second minute, from other addresses.
      await inOneWindow(60_000, async (attempt) => {
        const ip = `41.210.150.${75 + 2 * attempt}`;
        const answers = await Promise.all(Array.from({ length: RATE_LIMIT + 10 }, () => post("action", action(), { ip })));
        const accepted = answers.filter((a) => a.status === 202);
        const limited = answers.filter((a) => a.status === 429);
        expect(accepted).toHaveLength(RATE_LIMIT);
        expect(limited).toHaveLength(10);
        expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        expect(limited[0]!.body).toEqual({ success: false, error: "Too many tracking requests from your network. Please slow down." });
        await refused(() => post("action", action(), { ip }));
        expect((await post("action", action(), { ip: `41.210.150.${76 + 2 * attempt}` })).status).toBe(202);
      });
      await expect.poll(async () => Number((await counters())["dropped:rate_limited"] ?? 0)).toBeGreaterThanOrEqual(11);
    });
  });

  // The place (country, city) is the worker's to add, from the truncated address (ADR 021, amended 2026-11-27):
  // tests/integration/analytics-places.test.ts reads it back from ClickHouse.
  describe("enrichment", () => {
    it("an IPv4 address: truncated to /24 and queued without a place; device, browser and OS from the User-Agent", async () => {
      const before = Date.now();
      const event = action();
      expect((await post("action", event, { ip: "41.210.145.12" })).status).toBe(202);
      const queued = await reader.find(event.event_id);
      expect(queued).toMatchObject({
        ip: "41.210.145.0",
        device: "mobile",
        browser: "Mobile Chrome",
        os: "Android",
        user_id: 0,
        event_time: new Date(event.timestamp).toISOString(),
      });
      expect(JSON.stringify(queued)).not.toContain("41.210.145.12");
      expect(queued).not.toHaveProperty("timestamp");
      // The web process looks no place up: the worker does, from the address above.
      expect(queued).not.toHaveProperty("country");
      expect(queued).not.toHaveProperty("city");
      const receivedAt = Date.parse(queued!.received_at);
      expect(receivedAt).toBeGreaterThanOrEqual(before);
      expect(receivedAt).toBeLessThanOrEqual(Date.now());
    });

    it("an IPv6 address: truncated to /48", async () => {
      const event = action();
      expect((await post("action", event, { ip: "2c0f:f6d0:12:3456:789a::1", userAgent: IPAD })).status).toBe(202);
      expect(await reader.find(event.event_id)).toMatchObject({
        ip: "2c0f:f6d0:12::",
        device: "tablet",
        browser: "Mobile Safari",
        os: "iOS",
      });
    });

    it("an IPv4-mapped IPv6 address counts as the IPv4 address", async () => {
      const event = action();
      expect((await post("action", event, { ip: "::ffff:41.210.145.12", userAgent: WINDOWS })).status).toBe(202);
      expect(await reader.find(event.event_id)).toMatchObject({
        ip: "41.210.145.0",
        device: "desktop",
        browser: "Chrome",
        os: "Windows",
      });
    });

    it("a private address and another network's: truncated alike", async () => {
      const privateEvent = action();
      const kenyan = action();
      expect((await post("action", privateEvent, { ip: "10.1.2.3" })).status).toBe(202);
      expect((await post("action", kenyan, { ip: "2c0f:fe38::1" })).status).toBe(202);
      expect(await reader.find(privateEvent.event_id)).toMatchObject({ ip: "10.1.2.0" });
      expect(await reader.find(kenyan.event_id)).toMatchObject({ ip: "2c0f:fe38::" });
    });

    it("a session event keeps the browser's user agent, or takes the request's", async () => {
      const stated = {
        event_id: randomUUID(),
        session_id: "1764000000000-k3j9x2",
        timestamp: Date.now(),
        user_agent: "Stated/1.0",
        screen_resolution: "1280x720",
        timezone: "Africa/Kampala",
        platform: "web",
      };
      const silent = { event_id: randomUUID(), session_id: "1764000000000-k3j9x2", timestamp: Date.now() };
      expect((await post("session", [stated, silent])).status).toBe(202);
      expect(await reader.find(stated.event_id)).toMatchObject({ kind: "session", user_agent: "Stated/1.0", screen_resolution: "1280x720", platform: "web" });
      expect(await reader.find(silent.event_id)).toMatchObject({ kind: "session", user_agent: ANDROID, screen_resolution: "", timezone: "" });
    });

    it("the signed-in user on authenticated endpoints (Bearer or cookie), and on action with a session cookie", async () => {
      const pageview = { event_id: randomUUID(), session_id: "1764000000000-k3j9x2", timestamp: Date.now(), page: "/dashboard", title: "Dashboard" };
      expect((await post("pageview", pageview, { headers: { Authorization: `Bearer ${appToken}` } })).status).toBe(202);
      expect(await reader.find(pageview.event_id)).toMatchObject({ kind: "pageview", user_id: userId, page: "/dashboard", title: "Dashboard" });

      const conversion = {
        event_id: randomUUID(),
        session_id: "1764000000000-k3j9x2",
        timestamp: Date.now(),
        conversion_type: "package_selected",
        value: 150000,
        metadata: { gig: 12 },
      };
      const cookie = { Cookie: `soko_consent=granted; soko_session=${token}`, Origin: server.baseUrl };
      expect((await post("conversion", conversion, { headers: cookie })).status).toBe(202);
      expect(await reader.find(conversion.event_id)).toMatchObject({
        kind: "conversion",
        user_id: userId,
        conversion_type: "package_selected",
        value: 150000,
        metadata: '{"gig":12}',
      });

      const userAction = { event_id: randomUUID(), session_id: "1764000000000-k3j9x2", timestamp: Date.now(), action: "saved_gig", details: { gig: 3 } };
      expect((await post("user-action", userAction, { headers: { Cookie: `soko_session=${token}` } })).status).toBe(202);
      expect(await reader.find(userAction.event_id)).toMatchObject({ kind: "user_action", user_id: userId, details: '{"gig":3}' });

      const signedIn = action();
      const anonymous = action();
      const forged = action();
      expect((await post("action", signedIn, { headers: { Cookie: `soko_session=${token}` } })).status).toBe(202);
      expect((await post("action", anonymous, { headers: { Cookie: "soko_consent=granted" } })).status).toBe(202);
      expect((await post("action", forged, { headers: { Cookie: "soko_session=forged" } })).status).toBe(202);
      expect((await reader.find(signedIn.event_id))?.user_id).toBe(userId);
      expect((await reader.find(anonymous.event_id))?.user_id).toBe(0);
      expect((await reader.find(forged.event_id))?.user_id).toBe(0);
    });

    it("bots: 202, dropped, counted", async () => {
      const before = Number((await counters())["dropped:bot"] ?? 0);
      const event = action();
      const res = await post("action", event, { userAgent: GOOGLEBOT });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ success: true, accepted: 0 });
      const curl = await post("action", action(), { userAgent: "curl/8.5.0" });
      expect(curl.status).toBe(202);
      expect(await reader.find(event.event_id)).toBeUndefined();
      await expect.poll(async () => Number((await counters())["dropped:bot"] ?? 0)).toBe(before + 2);
    });
  });

  it("counts each refusal as dropped under its reason: unauthorized, unsupported type, unknown endpoint", async () => {
    const before = await counters();
    const pageview = { event_id: randomUUID(), session_id: "1764000000000-k3j9x2", timestamp: Date.now(), page: "/" };
    await refused(() => post("pageview", pageview));
    await refused(() => post("conversion", { ...pageview, conversion_type: "signup" }, { headers: { Authorization: "Bearer not-a-real-token" } }));
    await refused(() => post("action", "event_id=1", { raw: true, headers: { "Content-Type": "application/x-www-form-urlencoded" } }));
    await refused(() => post("action", action(), { headers: { "Content-Encoding": "gzip" } }));
    await refused(() => post("clicks", action()));
    const grew = async () => {
      const now = await counters();
      const delta = (field: string) => Number(now[field] ?? 0) - Number(before[field] ?? 0);
      return { unauthorized: delta("dropped:unauthorized"), unsupported: delta("dropped:unsupported_type"), unknown: delta("dropped:unknown_endpoint") };
    };
    await expect.poll(grew).toEqual({ unauthorized: 2, unsupported: 2, unknown: 1 });
  });

  it("keeps the counters: accepted events and refused ones by reason", async () => {
    const queued = (await reader.events()).length;
    await expect.poll(async () => Number((await counters()).accepted ?? 0)).toBe(queued);
    const c = await counters();
    expect(Number(c["dropped:invalid"])).toBeGreaterThan(0);
    expect(Number(c["dropped:too_large"])).toBeGreaterThanOrEqual(2);
  });
});

/** A private redis-server on a free port, so the test can stop it without touching anyone else's. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  const probe = createRedis(`redis://127.0.0.1:${port}`, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  probe.on("error", () => undefined); // refused until it listens: expected
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return child;
    } catch {
      probe.disconnect();
      if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

function stopRedis(child: ChildProcess) {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

describe("tracking endpoints while Redis is unreachable", () => {
  let t: TestDatabase;
  let server: TestServer;
  let redisServer: ChildProcess | undefined;
  let redisPort: number;
  const prefix = `t_anaep_down_${randomBytes(4).toString("hex")}`;
  const post = client(() => server.baseUrl);

  beforeAll(async () => {
    t = await createTestDatabase();
    redisPort = await freePort();
    redisServer = await startRedis(redisPort);
    server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: prefix, REDIS_URL: `redis://127.0.0.1:${redisPort}` });
  });
  afterAll(async () => {
    await server?.stop();
    if (redisServer) await stopRedis(redisServer);
    await t?.drop();
  });

  it("answers 503 with Retry-After at once, the page still renders, and takes events again when Redis is back", async () => {
    expect((await post("action", action())).status).toBe(202);

    await stopRedis(redisServer!);
    const started = Date.now();
    const down = await post("action", action());
    expect(down.status).toBe(503);
    expect(down.headers.get("retry-after")).toBe("5");
    expect(down.body).toEqual({ success: false, error: "Tracking is unavailable for a moment: please retry" });
    expect(Date.now() - started).toBeLessThan(2_500);
    const batch = await post("action", [action(), action()]);
    expect(batch.status).toBe(503);

    // Recording the page view fails too, but the page does not.
    const page = await fetch(`${server.baseUrl}/help`, { headers: { Accept: "text/html", "User-Agent": ANDROID } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("</html>");

    redisServer = await startRedis(redisPort);
    await expect.poll(async () => (await post("action", action())).status, { timeout: 10_000, interval: 200 }).toBe(202);
    const check = createRedis(`redis://127.0.0.1:${redisPort}`, { maxRetriesPerRequest: null });
    try {
      expect(await queueReader(prefix, check).count()).toBeGreaterThanOrEqual(1);
    } finally {
      await check.quit();
    }
  });
});
