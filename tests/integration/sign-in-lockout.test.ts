/**
 * Nobody can lock a named account out, and admins never hold long sessions (ADR 030), through the real
 * server. Failed sign-ins count per email and address, per address, and (for browsers new to the account) per
 * email; a browser that signed in to the account before carries a signed device cookie and is counted per
 * email and device only. An admin's session ends with the browser and after 12 hours idle, on both hosts,
 * whatever they asked for and whenever they became an admin.
 */
import { createHmac } from "node:crypto";
import http from "node:http";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSession, hashToken } from "~/models/session.server";
import { getEnv } from "~/server/env.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { DEFAULT_PASSWORD, createUser } from "../support/factories";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestDatabase;
let server: TestServer;
let redis: Redis;
const PASSWORD = DEFAULT_PASSWORD;
const QUEUE_PREFIX = `lock_${process.pid}_${Date.now()}`;
const rl = (limit: string, key: string) => `${QUEUE_PREFIX}:rl:${limit}:${key}`;

beforeAll(async () => {
  t = await createTestDatabase();
  redis = new Redis(getEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
  // TRUST_PROXY=1: X-Forwarded-For names the client, so each test speaks from the addresses it chooses.
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX, TRUST_PROXY: "1" });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await redis?.quit();
  await t?.drop();
});

type Answer = { status: number; headers: http.IncomingHttpHeaders; setCookies: string[]; text: string };

/** One request from `ip`, with the cookies given, on the main or the admin host. */
function request(
  urlPath: string,
  {
    body,
    ip = "192.0.2.1",
    cookies = {},
    host = "main",
  }: { body?: Record<string, string>; ip?: string; cookies?: Record<string, string>; host?: "main" | "admin" } = {},
): Promise<Answer> {
  const origin = host === "admin" ? server.adminUrl : server.baseUrl;
  const headers: Record<string, string> = { Host: new URL(origin).host, "X-Forwarded-For": ip };
  const cookie = Object.entries(cookies)
    .map(([k, v]) => `${k}=${v}`)
    .join("; ");
  if (cookie) headers.Cookie = cookie;
  let payload: Buffer | undefined;
  if (body) {
    payload = Buffer.from(new URLSearchParams(body).toString());
    headers.Origin = origin;
    headers["Content-Type"] = "application/x-www-form-urlencoded";
    headers["Content-Length"] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, path: urlPath, method: body ? "POST" : "GET", headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode!, headers: res.headers, setCookies: res.headers["set-cookie"] ?? [], text: Buffer.concat(chunks).toString("utf8") }),
      );
    });
    req.on("error", reject);
    req.setTimeout(60_000, () => req.destroy(new Error(`no answer to ${urlPath} within 60 s`)));
    req.end(payload);
  });
}

const signIn = (email: string, password: string, opts: { ip?: string; device?: string; remember?: boolean; host?: "main" | "admin" } = {}) =>
  request("/login", {
    body: { email, password, ...(opts.remember ? { remember: "on" } : {}) },
    ip: opts.ip,
    host: opts.host,
    cookies: opts.device ? { soko_device: opts.device } : {},
  });

/** A Set-Cookie header of that cookie, or undefined. */
const setCookie = (answer: Answer, name: string) => answer.setCookies.find((c) => c.startsWith(`${name}=`));
const valueOf = (header: string | undefined) => /^[^=]+=([^;]*)/.exec(header ?? "")?.[1] ?? "";

/** What a person reads on the page: tags out, entities decoded. */
const visible = (html: string) =>
  html
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "")
    .replace(/<!-- -->/g, "")
    .replace(/&#x27;|&#39;/g, "'");

let n = 0;
/** A member of that role with DEFAULT_PASSWORD, and their email. */
async function member(role: "client" | "freelancer" | "admin") {
  n += 1;
  const email = `lock.${role}.${n}@example.ug`;
  const { id } = await createUser(t.db, { role, name: `Lock ${role} ${n}`, username: `lock_${role}_${n}`, email });
  return { id, email };
}

/** `count` wrong passwords for `email` from `ip`, each answered 400 (counted, refused beside the form). */
async function fail(email: string, ip: string, count: number, device?: string) {
  for (let i = 1; i <= count; i++) expect((await signIn(email, `wrong-guess-${i}`, { ip, device })).status, `wrong password ${i} from ${ip}`).toBe(400);
}

/**
 * The rest of a limit's allowance spent, as if by that many more failures in this window (each real attempt
 * costs a full scrypt hash: seconds on a loaded machine, and a minute's window would end under a long loop).
 */
const spent = (limit: string, key: string, points: number, seconds = 60) => redis.set(rl(limit, key.toLowerCase()), String(points), "EX", seconds);

describe("failed sign-ins cannot lock a named account out", () => {
  it("after 10 wrong passwords from address A: refused from A (saying when to try again), signed in from B, and from A by a browser that signed in before", async () => {
    const admin = await member("admin");
    // The admin's own browser signed in once before, from A, and keeps its device cookie.
    const earlier = await signIn(admin.email, PASSWORD, { ip: "198.51.100.10" });
    expect(earlier.status).toBe(302);
    const device = valueOf(setCookie(earlier, "soko_device"));

    // Someone else at A tries ten wrong passwords, then an eleventh: refused.
    await fail(admin.email, "198.51.100.10", 10);
    const eleventh = await signIn(admin.email, "wrong-guess-11", { ip: "198.51.100.10" });
    expect(eleventh.status).toBe(429);
    // From A without the device cookie, even the right password waits, and the answer says until when.
    const refused = await signIn(admin.email, PASSWORD, { ip: "198.51.100.10" });
    expect(refused.status).toBe(429);

    // From another address the right password signs in (it was refused for the whole minute before).
    const fromB = await signIn(admin.email, PASSWORD, { ip: "203.0.113.20" });
    expect(fromB.status).toBe(302);
    expect(setCookie(fromB, "soko_session")).toBeDefined();

    // The refusal at A said when to try again.
    const retryAfter = Number(refused.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(visible(refused.text)).toMatch(/Too many sign-in attempts for this account from your network\. Please try again in \d+ (seconds?|minute)\./);
    expect(refused.setCookies).toEqual([]);

    // From A, the browser that signed in before signs in, and keeps its device id.
    expect(device).toMatch(/^v1\.[\w-]{22}\.[\w-]{22}$/);
    const known = await signIn(admin.email, PASSWORD, { ip: "198.51.100.10", device });
    expect(known.status).toBe(302);
    expect(known.headers.location).toBe("/dashboard");
    expect(valueOf(setCookie(known, "soko_device")).split(".")[1]).toBe(device.split(".")[1]);
  }, 120_000);

  it("counts a known browser's own failures per email and device: its 11th is refused, while the address's other browsers are not counted with it", async () => {
    const client = await member("client");
    const device = valueOf(setCookie(await signIn(client.email, PASSWORD, { ip: "198.51.100.30" }), "soko_device"));
    await fail(client.email, "198.51.100.30", 2, device);
    const deviceKey = `${client.email}|${device.split(".")[1]}`;
    // Keys are kept lower-cased (as emails are).
    expect(Number(await redis.get(rl("signInDevice", deviceKey.toLowerCase())))).toBe(2);
    // Not counted against the address nor the account's ceiling for new browsers.
    for (const [limit, key] of [
      ["signInAddress", "198.51.100.30"],
      ["signIn", `${client.email}|198.51.100.30`],
      ["signInEmail", client.email],
    ]) {
      expect(Number((await redis.get(rl(limit!, key!))) ?? 0), limit).toBe(0);
    }
    await spent("signInDevice", deviceKey, 10);
    const refused = await signIn(client.email, PASSWORD, { ip: "198.51.100.30", device });
    expect(refused.status).toBe(429);
    expect(visible(refused.text)).toContain("Too many sign-in attempts for this account from this browser.");
    // Another browser at the same address is not locked out by them.
    expect((await signIn(client.email, PASSWORD, { ip: "198.51.100.30" })).status).toBe(302);
  }, 120_000);

  it("a forged device cookie, or one made for another account, does not help", async () => {
    const admin = await member("admin");
    const other = await member("client");
    const otherDevice = valueOf(setCookie(await signIn(other.email, PASSWORD, { ip: "198.51.100.40" }), "soko_device"));
    await spent("signIn", `${admin.email}|198.51.100.40`, 10);
    // The other account's cookie names that account, not this one.
    expect((await signIn(admin.email, PASSWORD, { ip: "198.51.100.40", device: otherDevice })).status).toBe(429);
    // A cookie of the right shape, signed with a key that is not the server's.
    const deviceId = "AAAAAAAAAAAAAAAAAAAAAA";
    const forgedTag = createHmac("sha256", "not-the-server-key")
      .update(`soko-device-v1\n${deviceId}\n${admin.email}`)
      .digest()
      .subarray(0, 16)
      .toString("base64url");
    expect((await signIn(admin.email, PASSWORD, { ip: "198.51.100.40", device: `v1.${deviceId}.${forgedTag}` })).status).toBe(429);
    // Nor garbage.
    expect((await signIn(admin.email, PASSWORD, { ip: "198.51.100.40", device: "v1.x.y" })).status).toBe(429);
    // The failures of the forged cookies were counted as a new browser's, not as a device's.
    expect(await redis.keys(rl("signInDevice", `${admin.email}|*`))).toEqual([]);
  }, 120_000);

  it("sets the device cookie long-lived, httpOnly, SameSite=Lax on the path /, on joining too", async () => {
    const client = await member("client");
    const header = setCookie(await signIn(client.email, PASSWORD, { ip: "198.51.100.50" }), "soko_device")!;
    expect(header).toMatch(/; Max-Age=31536000(;|$)/);
    expect(header).toContain("; Path=/");
    expect(header).toContain("; HttpOnly");
    expect(header).toContain("; SameSite=Lax");
    // Joining signs the new member in: that browser is theirs too.
    const joined = await request("/register", {
      body: {
        name: "Lock Joiner",
        email: "lock.joiner@example.ug",
        password: "a-long-password-1",
        confirmPassword: "a-long-password-1",
        role: "client",
        terms: "on",
      },
      ip: "198.51.100.51",
    });
    expect(joined.status, joined.text.slice(0, 500)).toBe(302);
    const joinedDevice = valueOf(setCookie(joined, "soko_device"));
    await spent("signIn", "lock.joiner@example.ug|198.51.100.51", 10);
    expect((await signIn("lock.joiner@example.ug", "a-long-password-1", { ip: "198.51.100.51" })).status).toBe(429);
    expect((await signIn("lock.joiner@example.ug", "a-long-password-1", { ip: "198.51.100.51", device: joinedDevice })).status).toBe(302);
  }, 120_000);

  it("limits one address across many emails (30 a minute), except for a browser signing in to an account it knows", async () => {
    const ip = "198.51.100.60";
    const admin = await member("admin");
    const device = valueOf(setCookie(await signIn(admin.email, PASSWORD, { ip }), "soko_device"));
    // A spray across accounts from one address: each email counted once at this address, all of them by the address.
    for (let i = 1; i <= 3; i++) expect((await signIn(`spray.${i}@example.ug`, "wrong-password", { ip })).status, `email ${i}`).toBe(400);
    expect(Number(await redis.get(rl("signInAddress", ip)))).toBe(3);
    // …and 27 more emails this minute.
    await spent("signInAddress", ip, 30);
    const next = await signIn("spray.31@example.ug", "wrong-password", { ip });
    expect(next.status).toBe(429);
    expect(visible(next.text)).toMatch(/Too many sign-in attempts from your network\. Please try again in \d+ (seconds?|minute)\./);
    // A new browser at that address waits too, even with the right password…
    expect((await signIn(admin.email, PASSWORD, { ip })).status).toBe(429);
    // …but the admin's own browser does not.
    expect((await signIn(admin.email, PASSWORD, { ip, device })).status).toBe(302);
  }, 180_000);

  it("has a ceiling per email for browsers new to the account (guesses from many addresses), which a known browser does not meet", async () => {
    const admin = await member("admin");
    const device = valueOf(setCookie(await signIn(admin.email, PASSWORD, { ip: "198.51.100.70" }), "soko_device"));
    await fail(admin.email, "203.0.113.71", 2);
    await fail(admin.email, "203.0.113.72", 2);
    const key = rl("signInEmail", admin.email);
    expect(Number(await redis.get(key))).toBe(4);
    // The rest of the hour's 50 were spent from many other addresses.
    await redis.set(key, "50", "EX", 3000);
    const refused = await signIn(admin.email, PASSWORD, { ip: "203.0.113.73" });
    expect(refused.status).toBe(429);
    expect(visible(refused.text)).toMatch(
      /for this account from new browsers\. A browser you have signed in with before can still sign in\. Please try again in \d+ minutes\./,
    );
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(2900);
    expect((await signIn(admin.email, PASSWORD, { ip: "203.0.113.73", device })).status).toBe(302);
  }, 120_000);

  it("normalises the email of every key: letter case and spaces do not buy more attempts", async () => {
    const client = await member("client");
    await fail(client.email, "198.51.100.80", 1);
    await fail(` ${client.email.toUpperCase()} `, "198.51.100.80", 1);
    expect(Number(await redis.get(rl("signIn", `${client.email}|198.51.100.80`)))).toBe(2);
    expect(Number(await redis.get(rl("signInEmail", client.email)))).toBe(2);
  }, 120_000);
});

describe("an admin's session ends with the browser and after 12 hours idle", () => {
  const sessionOf = async (answer: Answer) => {
    const token = valueOf(setCookie(answer, "soko_session"));
    const row = await t
      .db("sessions")
      .where({ id: hashToken(token) })
      .first("persistent", "expires_at");
    return { token, row: row as { persistent: boolean; expires_at: Date } };
  };
  const hoursLeft = (row: { expires_at: Date }) => (new Date(row.expires_at).getTime() - Date.now()) / 3_600_000;
  /** The admin's users page on either host, with this session: 200, or where it sends them. */
  const usersPage = async (token: string, host: "main" | "admin") => {
    const res = await request(host === "admin" ? "/users" : "/admin/users", { cookies: { soko_session: token }, host });
    return res.status === 200 ? 200 : `${res.status} ${res.headers.location ?? ""}`;
  };

  it("an admin who asks to be remembered on the main host gets a browser session: no Max-Age or Expires, a row ending within 12 hours", async () => {
    const admin = await member("admin");
    const answer = await signIn(admin.email, PASSWORD, { remember: true, ip: "198.51.100.90" });
    expect(answer.status).toBe(302);
    const header = setCookie(answer, "soko_session")!;
    expect(header).not.toMatch(/Max-Age|Expires/i);
    const { token, row } = await sessionOf(answer);
    expect(row.persistent).toBe(false);
    expect(hoursLeft(row)).toBeLessThanOrEqual(12);
    expect(hoursLeft(row)).toBeGreaterThan(11.9);
    expect(await usersPage(token, "main")).toBe(200);
    expect(await usersPage(token, "admin")).toBe(200);
  }, 60_000);

  it("a client who asks to be remembered still gets 30 days", async () => {
    const client = await member("client");
    const answer = await signIn(client.email, PASSWORD, { remember: true, ip: "198.51.100.91" });
    const expires = /Expires=([^;]+)/.exec(setCookie(answer, "soko_session") ?? "")?.[1];
    expect((new Date(expires!).getTime() - Date.now()) / 86_400_000).toBeGreaterThan(29.9);
    const { row } = await sessionOf(answer);
    expect(row.persistent).toBe(true);
    expect(hoursLeft(row) / 24).toBeGreaterThan(29.9);
  }, 60_000);

  for (const host of ["main", "admin"] as const) {
    it(`refuses an admin's session after 12 hours without activity, and renews it on activity (${host} host)`, async () => {
      const admin = await member("admin");
      const answer = await signIn(admin.email, PASSWORD, { remember: true, host, ip: "198.51.100.92" });
      const { token } = await sessionOf(answer);
      const id = hashToken(token);
      // Eleven hours idle: still signed in, and the request moves the end 12 hours ahead.
      await t
        .db("sessions")
        .where({ id })
        .update({ expires_at: t.db.raw("expires_at - interval '11 hours'") });
      expect(await usersPage(token, host)).toBe(200);
      expect(hoursLeft(await t.db("sessions").where({ id }).first("expires_at"))).toBeGreaterThan(11.9);
      // Twelve hours and a minute idle: signed out, on both hosts.
      await t
        .db("sessions")
        .where({ id })
        .update({ expires_at: t.db.raw("expires_at - interval '12 hours 1 minute'") });
      expect(await usersPage(token, "main")).toBe("302 /login?redirectTo=%2Fadmin%2Fusers");
      expect(await usersPage(token, "admin")).toBe("302 /login?redirectTo=%2Fusers");
    }, 60_000);
  }

  it("refuses a persistent session of an admin: one from before this rule, or a member's from before they became an admin", async () => {
    const admin = await member("admin");
    const { token: old } = await createSession(t.db, { userId: admin.id, persistent: true });
    expect(await usersPage(old, "main")).toBe("302 /login?redirectTo=%2Fadmin%2Fusers");
    expect(await usersPage(old, "admin")).toBe("302 /login?redirectTo=%2Fusers");

    const promoted = await member("client");
    const { token } = await createSession(t.db, { userId: promoted.id, persistent: true });
    expect((await request("/dashboard", { cookies: { soko_session: token } })).status).toBe(200);
    await t.db("users").where({ id: promoted.id }).update({ role: "admin" });
    expect(await usersPage(token, "main")).toBe("302 /login?redirectTo=%2Fadmin%2Fusers");
    expect(await usersPage(token, "admin")).toBe("302 /login?redirectTo=%2Fusers");
    // Signing in again gives them a browser session, which works.
    const again = await signIn(promoted.email, PASSWORD, { remember: true, ip: "198.51.100.93" });
    expect((await sessionOf(again)).row.persistent).toBe(false);
    expect(await usersPage(valueOf(setCookie(again, "soko_session")), "main")).toBe(200);
  }, 60_000);

  it("does not renew a client's 30-day session (its end stays fixed)", async () => {
    const client = await member("client");
    const { token } = await createSession(t.db, { userId: client.id, persistent: true });
    const id = hashToken(token);
    await t
      .db("sessions")
      .where({ id })
      .update({ expires_at: t.db.raw("now() + interval '1 hour'") });
    expect((await request("/dashboard", { cookies: { soko_session: token } })).status).toBe(200);
    expect(hoursLeft(await t.db("sessions").where({ id }).first("expires_at"))).toBeLessThan(1.01);
  }, 60_000);
});
