/**
 * Account hardening, through the real server: rate-limit keys that an attacker cannot rotate (IPv6
 * /64), sign-in counted before the password is checked, TRUST_PROXY read as Express documents it, the
 * catalog and upload limits, 503 (not a hang) while Redis is away, the session cookie over https, the
 * admin host's sessions, reset links cancelled by a password change, and scrypt hashes upgraded at sign-in.
 */
import { scryptSync } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEnv } from "~/server/env.server";
import { hashPassword, passwordNeedsRehash, verifyPassword } from "~/server/password.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { DEFAULT_PASSWORD, createCategory, createSession, createUser } from "../support/factories";
import { inOneWindow } from "../support/one-window";
import { startPrivateRedis, type PrivateService } from "../support/private-services";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestDatabase;
let server: TestServer;
let redis: Redis;
let uploadDir: string;
const PASSWORD = DEFAULT_PASSWORD;
const QUEUE_PREFIX = `sec_${process.pid}_${Date.now()}`;
const ids: Record<string, number> = {};
const tokens: Record<string, string> = {};

/** A member named `name` (username `sec_client`, email `sec.client@example.ug`), with PASSWORD unless given a stored hash. */
async function addUser(role: "client" | "freelancer" | "admin", name: string, passwordHash?: string) {
  return (await createUser(t.db, { role, name, passwordHash })).id;
}

beforeAll(async () => {
  t = await createTestDatabase();
  uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-security-"));
  for (const role of ["client", "freelancer", "admin"] as const) {
    ids[role] = await addUser(role, `Sec ${role}`);
    tokens[role] = await createSession(t.db, ids[role]!);
  }
  await createCategory(t.db, { slug: "graphic-design", name: "Graphic Design" });
  redis = new Redis(getEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
  // TRUST_PROXY=1 (one proxy hop, as Express documents the number): X-Forwarded-For names the client.
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX, TRUST_PROXY: "1", UPLOAD_DIR: uploadDir });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await redis?.quit();
  await t?.drop();
  if (uploadDir) fs.rmSync(uploadDir, { recursive: true, force: true });
});

type Options = { method?: string; body?: Record<string, string> | FormData; ip?: string; session?: string; host?: string; base?: TestServer };

/** One request as a browser on our page would send it (Origin on POSTs), from `ip` (X-Forwarded-For). */
async function request(urlPath: string, { method, body, ip, session, host, base = server }: Options = {}): Promise<Response> {
  method ??= body ? "POST" : "GET";
  const headers: Record<string, string> = { Host: host ?? new URL(base.baseUrl).host };
  if (ip) headers["X-Forwarded-For"] = ip;
  if (session) headers.Cookie = `soko_session=${session}`;
  if (method !== "GET") headers.Origin = `http://${headers.Host}`;
  let payload: Buffer | undefined;
  if (body instanceof FormData) {
    const encoded = new Response(body);
    payload = Buffer.from(await encoded.arrayBuffer());
    headers["Content-Type"] = encoded.headers.get("content-type")!;
  } else if (body) {
    payload = Buffer.from(new URLSearchParams(body).toString());
    headers["Content-Type"] = "application/x-www-form-urlencoded";
  }
  if (payload) headers["Content-Length"] = String(payload.length);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: base.port, path: urlPath, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(", ") : v);
        resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, headers: h }));
      });
    });
    req.on("error", reject);
    req.setTimeout(60_000, () => req.destroy(new Error(`no answer to ${method} ${urlPath} within 60 s`)));
    req.end(payload);
  });
}

/** What a person reads: the page without its scripts, entities decoded. */
function visible(html: string) {
  return html
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "")
    .replace(/<!-- -->/g, "")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}

const count = async (table: string, where: Record<string, unknown> = {}) =>
  Number((await t.db(table).where(where).count<{ c: string }[]>({ c: "*" }).first())?.c);
const filesIn = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);

describe("rate-limit keys an attacker cannot rotate", () => {
  it("counts an IPv6 client by its /64: rotating the last 64 bits does not buy more reset mails", async () => {
    // Five requests, each from another address of one /64, then a sixth from yet another: refused.
    for (let i = 1; i <= 5; i++) {
      const res = await request("/forgot-password", { body: { email: `nobody.${i}@example.ug` }, ip: `2001:db8:5:6::${i.toString(16)}` });
      expect(res.status, `request ${i}`).toBe(200);
    }
    const sixth = await request("/forgot-password", { body: { email: "nobody.6@example.ug" }, ip: "2001:db8:5:6:ffff:1:2:3" });
    expect(sixth.status).toBe(429);
    expect(visible(await sixth.text())).toContain("Too many reset requests. Please wait before asking again.");
    expect(Number(await redis.get(`${QUEUE_PREFIX}:rl:reset:ip:2001:db8:5:6::/64`))).toBeGreaterThanOrEqual(5);
    // Another /64 is another subscriber.
    expect((await request("/forgot-password", { body: { email: "nobody.7@example.ug" }, ip: "2001:db8:5:7::1" })).status).toBe(200);
  });

  it("counts sign-in failures of an IPv6 client by its /64, and an IPv4-mapped address as its IPv4 address", async () => {
    const res = await request("/login", { body: { email: "someone@example.ug", password: "wrong-password" }, ip: "2001:db8:9:9:1:2:3:4" });
    expect(res.status).toBe(400);
    expect(Number(await redis.get(`${QUEUE_PREFIX}:rl:signInAddress:2001:db8:9:9::/64`))).toBe(1);
    await request("/login", { body: { email: "someone@example.ug", password: "wrong-password" }, ip: "::ffff:198.51.100.20" });
    expect(Number(await redis.get(`${QUEUE_PREFIX}:rl:signInAddress:198.51.100.20`))).toBe(1);
  });

  it("reads TRUST_PROXY=1 as one proxy hop, so X-Forwarded-For names the client (it was read as the address 0.0.0.1)", async () => {
    await request("/forgot-password", { body: { email: "proxy.check@example.ug" }, ip: "203.0.113.77" });
    expect(Number(await redis.get(`${QUEUE_PREFIX}:rl:reset:ip:203.0.113.77`))).toBe(1);
    expect(await redis.exists(`${QUEUE_PREFIX}:rl:reset:ip:127.0.0.1`)).toBe(0);
  });

  it("starts with TRUST_PROXY=true (it crashed at start)", async () => {
    const other = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX, TRUST_PROXY: "true" });
    try {
      expect((await fetch(`${other.baseUrl}/healthz`)).status).toBe(200);
    } finally {
      await other.stop();
    }
  });
});

describe("sign-in counts every attempt before checking the password", () => {
  it("lets through at most 10 of 25 parallel wrong guesses for one email from one address", async () => {
    const email = "sec.client@example.ug";
    const ip = "198.51.100.1";
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => request("/login", { body: { email, password: `guess-number-${i}` }, ip })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 400)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    // The right password is refused too from that address until the minute ends; from another it is not (ADR 030).
    expect((await request("/login", { body: { email, password: PASSWORD }, ip })).status).toBe(429);
    expect((await request("/login", { body: { email, password: PASSWORD }, ip: "198.51.100.99" })).status).toBe(302);
    await redis.del(`${QUEUE_PREFIX}:rl:signIn:${email}|${ip}`);
  }, 120_000);

  it("gives a right password's attempt back: signing in does not use up the address's allowance", async () => {
    const ip = "198.51.100.200";
    for (let i = 0; i < 3; i++) {
      const res = await request("/login", { body: { email: "sec.freelancer@example.ug", password: PASSWORD }, ip });
      expect(res.status).toBe(302);
    }
    expect(Number((await redis.get(`${QUEUE_PREFIX}:rl:signInAddress:${ip}`)) ?? 0)).toBe(0);
    expect(Number((await redis.get(`${QUEUE_PREFIX}:rl:signInEmail:sec.freelancer@example.ug`)) ?? 0)).toBe(0);
    expect(await redis.exists(`${QUEUE_PREFIX}:rl:signIn:sec.freelancer@example.ug|${ip}`)).toBe(0);
  });
});

describe("catalog and upload limits", () => {
  it("counts /search and /browse per address in leases from Redis, and refuses past 300 a minute with a 429 page and Retry-After", async () => {
    // The limit's windows are the server's minutes since 1970: a run that straddles two is run again in the second.
    await inOneWindow(60_000, async (attempt) => {
      const ip = `192.0.2.${40 + 10 * attempt}`;
      const key = `${QUEUE_PREFIX}:rl:catalog:${Math.floor(Date.now() / 60_000)}:${ip}`;
      expect((await request("/search?q=logo", { ip })).status).toBe(200);
      expect((await request("/browse", { ip })).status).toBe(200);
      // Both came out of one lease of 300 / 20 uses, taken from Redis by the first.
      expect(Number(await redis.get(key))).toBe(15);
      // The rest of the minute's uses are gone (other processes, as Redis counts): this one spends what it holds, then refuses.
      await redis.set(key, "300", "PX", 60_000);
      for (let i = 0; i < 13; i++) expect((await request("/browse", { ip })).status, `request ${i + 3}`).toBe(200);
      const refused = await request("/search?q=lgoo+desgin", { ip });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(visible(await refused.text())).toContain("Too many searches from your network in a short time.");
      expect((await request("/browse", { ip })).status).toBe(429);
      // Another address is not affected.
      expect((await request("/search?q=logo", { ip: `192.0.2.${41 + 10 * attempt}` })).status).toBe(200);
    });
  });

  const png = () =>
    sharp({ create: { width: 64, height: 64, channels: 3, background: "#2a7" } })
      .png()
      .toBuffer();

  it("counts a profile picture against the member's upload quota, refusing it beside the field and storing nothing", async () => {
    const key = `${QUEUE_PREFIX}:rl:uploadFilesHour:${ids.client}`;
    const form = () => {
      const fd = new FormData();
      fd.append("name", "Sec client");
      return fd;
    };
    const withAvatar = async () => {
      const fd = form();
      fd.append("avatar", new Blob([new Uint8Array(await png())], { type: "image/png" }), "me.png");
      return fd;
    };
    const ok = await request("/settings?tab=profile", { body: await withAvatar(), session: tokens.client });
    expect(ok.status).toBe(302);
    expect(Number(await redis.get(key))).toBe(1);
    await redis.set(key, "100", "EX", 3600);
    const before = await t.db("users").where({ id: ids.client }).first("avatar_key");
    const files = filesIn(uploadDir);
    const refused = await request("/settings?tab=profile", { body: await withAvatar(), session: tokens.client });
    expect(refused.status).toBe(429);
    expect(visible(await refused.text())).toContain(
      "You have uploaded many files in the last hour (at most 100 files or 200 MB an hour). Please try again later.",
    );
    expect(await t.db("users").where({ id: ids.client }).first("avatar_key")).toEqual(before);
    expect(filesIn(uploadDir)).toEqual(files);
  });

  it("counts each image of a gig form, not each request: of three images with two uses left, the third is refused", async () => {
    const key = `${QUEUE_PREFIX}:rl:uploadFilesHour:${ids.freelancer}`;
    await redis.set(key, "98", "EX", 3600);
    const fd = new FormData();
    for (const [k, v] of Object.entries({
      title: "I will design a logo for your shop",
      category: "graphic-design",
      description: "Three concepts and the files.",
      "basic.name": "Starter",
      "basic.price": "75000",
      "basic.delivery": "3",
      "basic.revisions": "1",
      intent: "publish",
    }))
      fd.append(k, v);
    for (let i = 0; i < 3; i++) fd.append("upload", new Blob([new Uint8Array(await png())], { type: "image/png" }), `cover-${i}.png`);
    const uploads = await count("uploads");
    const res = await request("/gig/create", { body: fd, session: tokens.freelancer });
    expect(res.status).toBe(429);
    expect(res.headers.get("Retry-After")).toMatch(/^[1-9][0-9]*$/);
    expect(visible(await res.text())).toContain("You have uploaded many files in the last hour (at most 100 files or 200 MB an hour). Please try again later.");
    // The two images within the limit are kept as the seller's uploads (shown back on the form); counted as
    // one request, all three would have been stored.
    expect(await count("uploads")).toBe(uploads + 2);
    expect(Number(await redis.get(key))).toBe(100); // the refused third was not counted
    expect(await count("gigs", { seller_id: ids.freelancer })).toBe(0);
  });
});

describe("while Redis is away", () => {
  let privateRedis: PrivateService;
  let other: TestServer;
  beforeAll(async () => {
    privateRedis = await startPrivateRedis(fs.mkdtempSync(path.join(os.tmpdir(), "soko-sec-redis-")));
    other = await startTestServer({ DATABASE_URL: t.url, REDIS_URL: privateRedis.url, QUEUE_PREFIX, TRUST_PROXY: "1" });
    await privateRedis.stop("SIGKILL");
  }, 90_000);
  afterAll(async () => {
    await other?.stop();
    await privateRedis?.stop("SIGKILL");
  });

  it("answers sign-in, join and reset with 503 and Retry-After within seconds, and stores nothing", async () => {
    const users = await count("users");
    const sessions = await count("sessions");
    const outbox = await count("outbox");
    for (const [urlPath, body] of [
      ["/login", { email: "sec.client@example.ug", password: PASSWORD }],
      ["/register", { name: "Redis Down", email: "redis.down@example.ug", password: "redis-down-1", confirmPassword: "redis-down-1" }],
      ["/forgot-password", { email: "sec.client@example.ug" }],
    ] as const) {
      const started = Date.now();
      const res = await request(urlPath, { body, base: other, ip: "192.0.2.99" });
      expect(res.status, urlPath).toBe(503);
      expect(Date.now() - started, urlPath).toBeLessThan(8_000);
      expect(Number(res.headers.get("retry-after")), urlPath).toBeGreaterThan(0);
      expect(visible(await res.text()), urlPath).toContain("unavailable for a moment");
    }
    expect(await count("users")).toBe(users);
    expect(await count("sessions")).toBe(sessions);
    expect(await count("outbox")).toBe(outbox);
  });

  it("answers a catalog page 503 with Retry-After within seconds: its limit cannot be counted", async () => {
    const started = Date.now();
    const res = await request("/search?q=logo", { base: other, ip: "192.0.2.98" });
    expect(res.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(visible(await res.text())).toContain("unavailable for a moment");
  });
});

describe("sessions and passwords", () => {
  it("names the session cookie __Host-soko_session over https, and reads only that name there", async () => {
    const https = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX, ALLOW_HTTP: "0", TRUST_PROXY: "1" });
    try {
      const res = await request("/login", { body: { email: "sec.admin@example.ug", password: PASSWORD }, base: https, ip: "192.0.2.120" });
      expect(res.status).toBe(302);
      // Two cookies: the session's, and the browser's device cookie (ADR 030), each with the prefix and Secure.
      const [cookie = "", device = ""] = (res.headers.get("set-cookie") ?? "").split(", ");
      expect(cookie).toMatch(/^__Host-soko_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
      expect(device).toMatch(/^__Host-soko_device=v1\.[^;]+; Max-Age=31536000; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
      const token = /^__Host-soko_session=([^;]+)/.exec(cookie)![1]!;
      const dashboard = (name: string) =>
        fetch(`${https.baseUrl}/dashboard`, { redirect: "manual", headers: { Cookie: `${name}=${token}` } }).then((r) => r.status);
      expect(await dashboard("__Host-soko_session")).toBe(200);
      // A cookie without the prefix could have been planted by a neighbouring subdomain: it signs nobody in.
      expect(await dashboard("soko_session")).toBe(302);
    } finally {
      await https.stop();
    }
  });

  it("does not honour 'remember me' on the admin host, nor for an admin on the main site", async () => {
    const adminHost = `admin.localhost:${server.port}`;
    const res = await request("/login", { body: { email: "sec.admin@example.ug", password: PASSWORD, remember: "on" }, host: adminHost, ip: "192.0.2.121" });
    expect(res.status).toBe(302);
    expect(res.headers.get("set-cookie")).not.toContain("Expires");
    const [row] = await t.db("sessions").where({ user_id: ids.admin }).orderBy("created_at", "desc").limit(1).select("persistent");
    expect(row.persistent).toBe(false);
    // An admin's session ends with the browser on the main site too (ADR 030); a client's is remembered.
    const admin = await request("/login", { body: { email: "sec.admin@example.ug", password: PASSWORD, remember: "on" }, ip: "192.0.2.121" });
    expect(admin.status).toBe(302);
    expect(admin.headers.get("set-cookie")).not.toContain("Expires");
    const client = await request("/login", { body: { email: "sec.client@example.ug", password: PASSWORD, remember: "on" }, ip: "192.0.2.121" });
    expect(client.headers.get("set-cookie")).toContain("Expires");
  });

  it("cancels unused reset links when the password is changed in Security settings", async () => {
    const userId = await addUser("client", "Reset Changer");
    const session = await createSession(t.db, userId);
    await request("/forgot-password", { body: { email: "reset.changer@example.ug" }, ip: "192.0.2.130" });
    const mail = await t.db("outbox").where({ to_address: "reset.changer@example.ug" }).orderBy("id", "desc").first("body");
    const link = /\/reset-password\?token=([\w-]+)/.exec(mail.body)!;
    expect((await request(`/reset-password?token=${link[1]}`)).status).toBe(200);
    const changed = await request("/settings?tab=security", {
      body: { currentPassword: PASSWORD, password: "a-new-password-1", confirmPassword: "a-new-password-1" },
      session,
    });
    expect(changed.status).toBe(302);
    expect(await count("password_resets", { user_id: userId, used_at: null })).toBe(0);
    // The old link no longer opens, nor sets a password.
    expect((await request(`/reset-password?token=${link[1]}`)).status).toBe(410);
    const used = await request(`/reset-password?token=${link[1]}`, {
      body: { token: link[1]!, password: "attacker-pass-1", confirmPassword: "attacker-pass-1" },
    });
    expect(used.status).toBe(410);
    const stored = await t.db("users").where({ id: userId }).first("password_hash");
    expect(await verifyPassword("a-new-password-1", stored.password_hash)).toBe(true);
  });

  it("hashes with scrypt N=2^17, and upgrades an older hash at the next sign-in", async () => {
    const fresh = await hashPassword("any-password-1");
    expect(fresh.split("$").slice(0, 4)).toEqual(["scrypt", "131072", "8", "1"]);
    expect(passwordNeedsRehash(fresh)).toBe(false);
    // A hash as stored before this change: N=2^15.
    const salt = Buffer.from("0123456789abcdef");
    const key = scryptSync(PASSWORD.normalize("NFKC"), salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const old = `scrypt$32768$8$1$${salt.toString("base64")}$${key.toString("base64")}`;
    expect(passwordNeedsRehash(old)).toBe(true);
    const userId = await addUser("client", "Old Hash", old);
    const res = await request("/login", { body: { email: "old.hash@example.ug", password: PASSWORD }, ip: "192.0.2.140" });
    expect(res.status).toBe(302);
    const stored = (await t.db("users").where({ id: userId }).first("password_hash")).password_hash as string;
    expect(stored.split("$")[1]).toBe("131072");
    expect(await verifyPassword(PASSWORD, stored)).toBe(true);
  });
});
