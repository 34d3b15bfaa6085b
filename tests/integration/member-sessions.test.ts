/**
 * Where a member is signed in (ADR 041), through the built server: Settings › Security lists each browser (by
 * its browser and OS) and app (by platform and device), marks this device, and ends one session at a time: an
 * app's with every token of its sign-in and its open socket, the member's own by signing them out. Another
 * member's session (or an id that names none) is 404 and nothing ends. And an admin's suspension, through the
 * operation, makes the member's app token answer 401 and closes the socket opened with it.
 */
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSession, hashToken, rotateAppSession } from "~/models/session.server";
import { changeUserStatus } from "~/operations/admin-users.server";
import { closeRedis } from "~/server/redis.server";
import { apiClient, createAppToken } from "../support/api";
import { createUser } from "../support/factories";
import { memberActor, orderTestContext } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const t = orderTestContext("member_sessions", { admin: { name: "Sessions Admin" } });
let server: TestServer;
let api: ReturnType<typeof apiClient>;
const sockets: Socket[] = [];

const CHROME_ANDROID = "Mozilla/5.0 (Linux; Android 13; TECNO KI7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
const FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0";

beforeAll(async () => {
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, TRUST_PROXY: "loopback" });
  api = apiClient(server.baseUrl);
});
afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await server?.stop();
  await closeRedis();
});

/** Each test's requests come from their own address, so one test's rate limits never meet another's. */
let address = 0;
const from = () => ({ "X-Forwarded-For": `198.51.100.${++address}` });

/** A browser session of the member with this User-Agent: its cookie token and its row's id. */
async function browser(userId: number, userAgent: string) {
  const { token } = await createSession(t.db, { userId, persistent: false, userAgent });
  return { token, id: hashToken(token) };
}

/** An app's sign-in whose first token was refreshed once: the live token and its row, and the replaced row. */
async function refreshedApp(userId: number) {
  const first = await createAppToken(t.db, userId, { platform: "android" });
  await t
    .db("sessions")
    .where({ id: hashToken(first) })
    .update({ device_name: "Tecno Spark 10" });
  const rotated = (await t.db.transaction((trx) => rotateAppSession(trx, hashToken(first))))!;
  return { token: rotated.token, id: hashToken(rotated.token), replacedId: hashToken(first) };
}

function page(path: string, cookie: string) {
  return fetch(`${server.baseUrl}${path}`, { headers: { Cookie: `soko_session=${cookie}`, ...from() }, redirect: "manual" });
}

/** "Sign out" beside one session, as the row's form posts it (a browser on our page sends Origin). */
function endSession(cookie: string, sessionId: string) {
  return fetch(`${server.baseUrl}/settings?tab=security`, {
    method: "POST",
    redirect: "manual",
    body: new URLSearchParams({ intent: "end-session", sessionId }),
    headers: { Cookie: `soko_session=${cookie}`, Origin: server.baseUrl, "Content-Type": "application/x-www-form-urlencoded", ...from() },
  });
}

const sessionIds = (userId: number) => t.db("sessions").where({ user_id: userId }).orderBy("id").pluck("id");

/** A socket opened as an app opens one: its token in the handshake's `auth`, no cookie. */
async function appSocket(token: string): Promise<Socket> {
  const socket = connect(server.baseUrl, { transports: ["websocket"], reconnection: false, forceNew: true, auth: { token } });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("connect_error", reject);
  });
  return socket;
}

/** The reason the socket ends, or "still connected" after `ms`. */
const endsWithin = (socket: Socket, ms = 3_000) =>
  Promise.race([
    new Promise<string>((resolve) => socket.once("disconnect", resolve)),
    new Promise<string>((resolve) => setTimeout(() => resolve("still connected"), ms)),
  ]);

describe("Settings › Security lists where the member is signed in", () => {
  it("names each browser and app, marks this device, and shows no one else's", async () => {
    const member = await createUser(t.db, { name: "Many Places" });
    const stranger = await createUser(t.db, { name: "Someone Else" });
    const here = await browser(member.id, CHROME_ANDROID);
    const laptop = await browser(member.id, FIREFOX_WINDOWS);
    const app = await refreshedApp(member.id);
    const theirs = await browser(stranger.id, FIREFOX_WINDOWS);

    const res = await page("/settings?tab=security", here.token);
    expect(res.status).toBe(200);
    const html = await res.text();
    const list = /<ul class="session-list"[^>]*>(.*?)<\/ul>/s.exec(html)?.[1] ?? "";
    const rows = list.split("<li").slice(1);
    expect(rows).toHaveLength(3);
    // This device first, marked; the others by their platform and device.
    expect(rows[0]).toContain("Chrome on Android");
    expect(rows[0]).toContain("This device");
    expect(list).toContain("Firefox on Windows");
    expect(list).toContain("Android app");
    expect(list).toContain("Tecno Spark 10");
    expect(list.match(/This device/g)).toHaveLength(1);
    for (const id of [here.id, laptop.id, app.id]) expect(list).toContain(`value="${id}"`);
    // Neither another member's session nor the app's replaced token is listed.
    expect(html).not.toContain(theirs.id);
    expect(html).not.toContain(app.replacedId);
    // The form that ends every other session is still there.
    expect(html).toContain('name="intent" value="sign-out-others"');
  });
});

describe("ending one session", () => {
  it("another member's session, an id that names none, or a malformed one: refused, and nothing ends", async () => {
    const member = await createUser(t.db, { name: "Careful Member" });
    const stranger = await createUser(t.db, { name: "Other Member" });
    const here = await browser(member.id, CHROME_ANDROID);
    await refreshedApp(member.id);
    const theirs = await browser(stranger.id, FIREFOX_WINDOWS);
    const theirApp = await refreshedApp(stranger.id);
    const [mine, others] = [await sessionIds(member.id), await sessionIds(stranger.id)];

    for (const id of [theirs.id, theirApp.id, theirApp.replacedId, "0".repeat(64)]) {
      const res = await endSession(here.token, id);
      expect(res.status, id).toBe(404);
      const html = await res.text();
      expect(html).toContain("That session has already ended, or it is not one of yours.");
      // The page still lists the member's own sessions, and not the one asked for.
      expect(html).toContain(`value="${here.id}"`);
      expect(html).not.toContain(`value="${id}"`);
    }
    const malformed = await endSession(here.token, "not-a-session");
    expect(malformed.status).toBe(400);
    expect(await sessionIds(member.id)).toEqual(mine);
    expect(await sessionIds(stranger.id)).toEqual(others);
    // The stranger is still signed in, on the web and in their app.
    expect((await page("/dashboard", theirs.token)).status).toBe(200);
    expect((await api.call("post", "/auth/refresh", "/auth/refresh", { headers: from(), token: theirApp.token })).status).toBe(200);
  });

  it("an app's: every token of its sign-in ends, its socket closes, and nothing else ends", async () => {
    const member = await createUser(t.db, { name: "Phone Owner" });
    const here = await browser(member.id, CHROME_ANDROID);
    const laptop = await browser(member.id, FIREFOX_WINDOWS);
    const app = await refreshedApp(member.id);
    const other = await createAppToken(t.db, member.id, { platform: "ios" });
    const socket = await appSocket(app.token);
    const closed = endsWithin(socket);

    const res = await endSession(here.token, app.id);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/settings?tab=security&saved=ended");
    expect(await closed).toBe("io server disconnect");
    expect(await sessionIds(member.id)).toEqual([here.id, laptop.id, hashToken(other)].sort());
    const refused = await api.call("post", "/auth/refresh", "/auth/refresh", { headers: from(), token: app.token });
    expect(refused.status).toBe(401);
    const confirmed = await (await page("/settings?tab=security&saved=ended", here.token)).text();
    expect(confirmed).toContain("That session is signed out.");
    expect(confirmed).not.toContain(app.id);
  });

  it("a browser's: that browser is signed out, this one is not", async () => {
    const member = await createUser(t.db, { name: "Two Browsers" });
    const here = await browser(member.id, CHROME_ANDROID);
    const laptop = await browser(member.id, FIREFOX_WINDOWS);
    const res = await endSession(here.token, laptop.id);
    expect(res.headers.get("location")).toBe("/settings?tab=security&saved=ended");
    expect((await page("/dashboard", laptop.token)).headers.get("location")).toMatch(/^\/login/);
    expect((await page("/dashboard", here.token)).status).toBe(200);
    expect(await sessionIds(member.id)).toEqual([here.id]);
  });

  it("this device's: the member is signed out, the cookie cleared, and the other sessions stay", async () => {
    const member = await createUser(t.db, { name: "Leaving Now" });
    const here = await browser(member.id, CHROME_ANDROID);
    const laptop = await browser(member.id, FIREFOX_WINDOWS);
    const res = await endSession(here.token, here.id);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/login");
    expect(res.headers.get("set-cookie")).toMatch(/^soko_session=;/);
    expect(res.headers.get("set-cookie")).toContain("Expires=Thu, 01 Jan 1970");
    expect((await page("/dashboard", here.token)).headers.get("location")).toMatch(/^\/login/);
    expect(await sessionIds(member.id)).toEqual([laptop.id]);
  });
});

describe("suspension through the operation", () => {
  it("makes the member's app token answer 401 and closes the socket opened with it", async () => {
    const member = await createUser(t.db, { name: "Suspended Phone" });
    const token = await createAppToken(t.db, member.id, { platform: "android" });
    const socket = await appSocket(token);
    const closed = endsWithin(socket);

    const suspended = await changeUserStatus(memberActor(t.admin), { userId: member.id, action: "suspend" }, { db: t.db });
    expect(suspended).toMatchObject({ ok: true });
    expect(await closed).toBe("io server disconnect");
    const refused = await api.call("post", "/auth/refresh", "/auth/refresh", { headers: from(), token });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe("token.invalid");
    // A new socket with the same token is refused at its handshake.
    await expect(appSocket(token)).rejects.toThrow("unauthorized");
  });
});
