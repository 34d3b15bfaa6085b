/**
 * trackingFirst (app/analytics/router.server.ts, ADR 021): the HTTP listener that answers tracking posts
 * before Express. A post to the exact path is answered without Express and takes the client's address by
 * the app's own `trust proxy` setting; any other spelling, and every other request, goes to the app.
 * Against the real Redis, on a queue prefix of this file's own.
 */
import { randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const prefix = `t_trackfirst_${randomBytes(4).toString("hex")}`;
process.env.QUEUE_PREFIX = prefix;

const { streamEntries } = await import("~/analytics/ingest-stream.server");
const { closeIngest, getIngest } = await import("~/analytics/ingest.server");
const { analyticsRouter, trackingFirst } = await import("~/analytics/router.server");
const { getEnv } = await import("~/server/env.server");
const { createRedis } = await import("~/server/redis.server");

const ANDROID = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
const event = () => ({ event_id: randomUUID(), session_id: "1764000000000-k3j9x2", timestamp: Date.now(), action_type: "click", page: "/browse" });

describe("tracking posts answered before Express", () => {
  let redis: Redis;
  const servers: http.Server[] = [];
  /** Requests that reached Express, by path. */
  const seenByExpress: string[] = [];

  async function serve(trustProxy: string | boolean) {
    const app = express();
    app.set("trust proxy", trustProxy);
    app.use((req, _res, next) => {
      seenByExpress.push(`${req.method} ${req.originalUrl}`);
      next();
    });
    app.use(analyticsRouter());
    const server = http.createServer(trackingFirst(app));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const post = (base: string, path: string, body: unknown, forwardedFor?: string) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { "Content-Type": "text/plain", "User-Agent": ANDROID, ...(forwardedFor ? { "X-Forwarded-For": forwardedFor } : {}) },
      body: JSON.stringify(body),
    });

  const queued = async (eventId: string) => (await streamEntries(redis, prefix)).flatMap((entry) => entry.events).find((e) => e.event_id === eventId);

  beforeAll(async () => {
    redis = createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: null });
    await vi.waitFor(() => getIngest().limit("192.0.2.254"), { timeout: 5_000, interval: 20 }); // connected: its limiter reaches Redis
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    await closeIngest();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis?.quit();
  });

  it("answers a post to the exact path itself, with the address a trusted proxy forwarded", async () => {
    const base = await serve("loopback");
    const sent = event();
    const res = await post(base, "/api/v1/analytics/action", sent, "41.210.145.12");
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ success: true, accepted: 1 });
    expect(seenByExpress).toEqual([]);
    expect(await queued(sent.event_id)).toMatchObject({ ip: "41.210.145.0", page: "/browse" });
  });

  it("ignores X-Forwarded-For when the app trusts no proxy, as Express's req.ip does", async () => {
    const base = await serve(false);
    const sent = event();
    expect((await post(base, "/api/v1/analytics/action", sent, "41.210.145.12")).status).toBe(202);
    expect(await queued(sent.event_id)).toMatchObject({ ip: "127.0.0.0" });
  });

  it("leaves every other request to Express: a query string, another method, an unknown name the same way as before", async () => {
    seenByExpress.length = 0;
    const base = await serve("loopback");
    const sent = event();
    expect((await post(base, "/api/v1/analytics/action?from=test", sent, "41.210.145.12")).status).toBe(202);
    expect(await queued(sent.event_id)).toMatchObject({ ip: "41.210.145.0" });
    const get = await fetch(`${base}/api/v1/analytics/action`);
    expect(get.status).toBe(405);
    expect(seenByExpress).toEqual(["POST /api/v1/analytics/action?from=test", "GET /api/v1/analytics/action"]);
    // An unknown endpoint is answered before Express too, with the same JSON 404.
    const unknown = await post(base, "/api/v1/analytics/clicks", event());
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ success: false, error: expect.stringMatching(/Unknown analytics endpoint "clicks"/) });
    expect(seenByExpress).toHaveLength(2);
  });
});
