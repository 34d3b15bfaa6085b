/**
 * Page views without JavaScript: the built server records one anonymous page view for each HTML page it
 * serves (docs/product.md, Analytics), hands its id and time to Remix through the load
 * context (the root renders them in <meta name="soko-pageview">), and records nothing for assets, data
 * requests, the API, media, errors, redirects and bots. The worker is not running: the page views stay in
 * the ingest stream (ADR 025), where the tests read them back.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { QueuedEvent } from "~/analytics/events";
import { streamEntries } from "~/analytics/ingest-stream.server";
import { getEnv } from "~/server/env.server";
import { createRedis } from "~/server/redis.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createSession, createUser } from "../support/factories";
import { startTestServer, type TestServer } from "../support/test-server";

const ANDROID = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const HTML = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/** The session id of a page view the server records (docs/product.md): `<UTC day start ms>-<12 hex of sha256(ip/24 + user agent + day)>`. */
function expectedSessionId(ip24: string, userAgent: string, timeMs: number) {
  const dayStart = Math.floor(timeMs / 86_400_000) * 86_400_000;
  const day = new Date(dayStart).toISOString().slice(0, 10);
  return `${dayStart}-${createHash("sha256").update(`${ip24}\n${userAgent}\n${day}`).digest("hex").slice(0, 12)}`;
}

describe("page views recorded by the server", () => {
  let t: TestDatabase;
  let server: TestServer;
  let redis: Redis;
  let token: string;
  const prefix = `t_anapv_${randomBytes(4).toString("hex")}`;

  beforeAll(async () => {
    t = await createTestDatabase();
    const { id: userId } = await createUser(t.db, { name: "Moses Okello", username: "moses_o", email: "moses@example.ug" });
    token = await createSession(t.db, userId);
    server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: prefix, TRUST_PROXY: "loopback" });
    redis = createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: null });
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

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.baseUrl}${path}`, { redirect: "manual", headers: { Accept: HTML, "User-Agent": ANDROID, ...headers } });

  const queued = async (): Promise<QueuedEvent[]> => (await streamEntries(redis, prefix)).flatMap((entry) => entry.events);

  /** The page view of a given id, once it is queued (the server queues it after the page has been sent). */
  async function pageviewOf(eventId: string): Promise<QueuedEvent> {
    let found: QueuedEvent | undefined;
    await expect.poll(async () => (found = (await queued()).find((e) => e.event_id === eventId)), { timeout: 5_000 }).toBeDefined();
    return found!;
  }

  function metaOf(html: string): { eventId: string; time: number } | null {
    const content = /<meta name="soko-pageview" content="([^"]+)"/.exec(html)?.[1];
    if (!content) return null;
    const [eventId = "", time = ""] = content.split(" ");
    return { eventId, time: Number(time) };
  }

  it("queues one anonymous page view for an HTML page, with the id and time the page carries", async () => {
    const before = Date.now();
    const res = await get("/?ref=whatsapp", { "X-Forwarded-For": "41.210.145.12", Referer: "https://www.google.com/" });
    expect(res.status).toBe(200);
    const html = await res.text();
    const meta = metaOf(html);
    expect(meta?.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(meta!.time).toBeGreaterThanOrEqual(before);
    expect(meta!.time).toBeLessThanOrEqual(Date.now());

    const view = await pageviewOf(meta!.eventId);
    expect(view).toEqual({
      kind: "pageview",
      event_id: meta!.eventId,
      session_id: expectedSessionId("41.210.145.0", ANDROID, meta!.time),
      platform: "web-nojs",
      page: "/",
      title: "",
      // Cleaned (app/analytics/urls.ts): the home page takes no query, and another site is its origin only.
      url: "/",
      referrer: "https://www.google.com",
      user_id: 0,
      event_time: new Date(meta!.time).toISOString(),
      received_at: expect.any(String),
      // No country or city: the worker adds them from this address (ADR 021, amended 2026-11-27).
      ip: "41.210.145.0",
      device: "mobile",
      browser: "Mobile Chrome",
      os: "Android",
    });
    expect((await streamEntries(redis, prefix)).filter((entry) => entry.events.some((e) => e.event_id === meta!.eventId))).toHaveLength(1);
  });

  it("one session per address, browser and day; a signed-in visitor's page view is still anonymous", async () => {
    const a = metaOf(await (await get("/help", { "X-Forwarded-For": "41.210.146.20" })).text())!;
    const b = metaOf(await (await get("/help", { "X-Forwarded-For": "41.210.146.99", Cookie: `soko_session=${token}` })).text())!;
    const c = metaOf(await (await get("/help", { "X-Forwarded-For": "41.210.146.20", "User-Agent": FIREFOX })).text())!;
    const [va, vb, vc] = [await pageviewOf(a.eventId), await pageviewOf(b.eventId), await pageviewOf(c.eventId)];
    expect(va.session_id).toBe(vb.session_id); // same /24, same browser, same day
    expect(vc.session_id).not.toBe(va.session_id);
    expect(vb.user_id).toBe(0);
    expect(va).toMatchObject({ page: "/help", platform: "web-nojs" });
    expect(vc).toMatchObject({ device: "desktop", browser: "Firefox", os: "Linux" });
  });

  it("records nothing for assets, data requests, the API, media, health, errors, redirects, bots and non-HTML requests", async () => {
    const home = await (await get("/")).text();
    const homeView = metaOf(home)!;
    await pageviewOf(homeView.eventId);
    const asset = /(\/assets\/[^"]+\.js)/.exec(home)?.[1];
    expect(asset).toBeTruthy();
    const idsBefore = new Set((await queued()).map((e) => e.event_id));

    const notPages: [string, Record<string, string>, number[]][] = [
      [asset!, {}, [200]],
      ["/favicon.ico", {}, [200, 404]],
      ["/_root.data", {}, [200]],
      ["/help.data", {}, [200]],
      ["/?_data=root", {}, [200, 400, 404]],
      ["/api/v1/analytics/action", {}, [405]],
      ["/api/v1/gigs", {}, [200, 401, 404]],
      ["/media/nothing.webp", {}, [404]],
      ["/healthz", {}, [200]],
      ["/definitely/not/here", {}, [404]],
      ["/dashboard", {}, [302]],
      ["/", { "User-Agent": GOOGLEBOT }, [200]],
      ["/help", { Accept: "application/json" }, [200, 404, 406]],
      ["/help", { "Sec-Purpose": "prefetch" }, [200]],
    ];
    for (const [path, headers, statuses] of notPages) {
      const res = await get(path, headers);
      expect(statuses, `${path} ${JSON.stringify(headers)} → ${res.status}`).toContain(res.status);
      const body = await res.text();
      if (headers["User-Agent"] === GOOGLEBOT) expect(metaOf(body)).toBeNull();
    }
    const head = await fetch(`${server.baseUrl}/help`, { method: "HEAD", headers: { Accept: HTML, "User-Agent": ANDROID } });
    expect(head.status).toBe(200);

    // A page afterwards is queued; by then anything the requests above had queued would be there too.
    const sentinel = metaOf(await (await get("/help")).text())!;
    await pageviewOf(sentinel.eventId);
    await new Promise((r) => setTimeout(r, 300)); // a late extra page view is a non-event: nothing to wait for
    const added = (await queued()).filter((e) => !idsBefore.has(e.event_id));
    expect(added.map((e) => e.kind === "pageview" && e.page)).toEqual(["/help"]);
  });
});
