/**
 * The JSON API's door and its auth calls (ADR 041), against the built server: tokens from login and register,
 * refresh that replaces a token and ends the family when a replaced one comes back, logout, admin tokens of 12
 * hours, suspension ending a member's tokens, and the contract's failures (malformed JSON, wrong type, unknown
 * fields, oversized bodies, unknown calls, wrong methods), each checked against the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { closeRedis } from "~/server/redis.server";
import { getEnv } from "~/server/env.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createSession, createUser, DEFAULT_PASSWORD } from "../support/factories";
import { startTestServer, type TestServer } from "../support/test-server";
import { apiClient, createAppToken } from "../support/api";

const { prefix } = vi.hoisted(() => {
  const prefix = `t_apiauth_${process.pid}_${Date.now()}`;
  process.env.QUEUE_PREFIX = prefix;
  return { prefix };
});

let t: TestDatabase;
let server: TestServer;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  expect(getEnv().QUEUE_PREFIX).toBe(prefix);
  t = await createTestDatabase();
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: prefix, TRUST_PROXY: "loopback" });
  api = apiClient(server.baseUrl);
});
afterAll(async () => {
  await server?.stop();
  await closeRedis();
  await t?.drop();
});

/** Each test's calls come from their own address, so the per-address limits of one test never meet another's. */
let address = 0;
const from = () => ({ "X-Forwarded-For": `198.51.100.${++address}` });

describe("register and login", () => {
  it("registers a client with a token that names them, stored hashed as an app's session", async () => {
    const answer = await api.call("post", "/auth/register", "/auth/register", {
      headers: from(),
      body: { name: "Apio Grace", email: "apio@example.ug", password: "long-enough-1", role: "client", platform: "android", deviceName: "Tecno Spark" },
    });
    expect(answer.status).toBe(201);
    expect(answer.body.data.user).toMatchObject({ name: "Apio Grace", email: "apio@example.ug", role: "client" });
    const token: string = answer.body.data.token;
    const row = await t.db("sessions").where({ user_id: answer.body.data.user.id }).first();
    expect(row).toMatchObject({ kind: "app", platform: "android", device_name: "Tecno Spark", persistent: true });
    expect(row.id).not.toBe(token);
    const me = await api.send("get", "/openapi.json");
    expect(me.status).toBe(200);
  });

  it("refuses a taken email beside the field, with 400 and nothing written", async () => {
    await createUser(t.db, { email: "taken@example.ug" });
    const before = await t.db("users").count({ n: "*" }).first();
    const answer = await api.call("post", "/auth/register", "/auth/register", {
      headers: from(),
      body: { name: "Someone Else", email: "taken@example.ug", password: "long-enough-1", role: "client" },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe("request.invalid");
    expect(answer.body.issues.email[0].code).toBe("account.email_taken");
    expect(await t.db("users").count({ n: "*" }).first()).toEqual(before);
  });

  it("refuses unknown fields, an admin role, and bad values, naming each field", async () => {
    const answer = await api.call("post", "/auth/register", "/auth/register", {
      headers: from(),
      body: { name: "X", email: "not-an-email", password: "short", role: "admin", isAdmin: true },
    });
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body.issues).sort()).toEqual(["email", "form", "name", "password", "role"].sort());
    expect(answer.body.issues.form[0].message).toMatch(/isAdmin/);
  });

  it("logs in with the right password; the wrong one is 400 with the form's words", async () => {
    const user = await createUser(t.db, { email: "kato@example.ug" });
    const wrong = await api.call("post", "/auth/login", "/auth/login", { headers: from(), body: { email: "kato@example.ug", password: "nope-nope" } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.issues.form[0].code).toBe("account.invalid_sign_in");
    const right = await api.call("post", "/auth/login", "/auth/login", { headers: from(), body: { email: "kato@example.ug", password: DEFAULT_PASSWORD } });
    expect(right.status).toBe(200);
    expect(right.body.data.user.id).toBe(user.id);
    const expires = new Date(right.body.data.expiresAt).getTime();
    expect(expires - Date.now()).toBeGreaterThan(29 * 24 * 3600_000);
  });

  it("gives an admin a token of 12 hours, not persistent", async () => {
    await createUser(t.db, { email: "boss@example.ug", role: "admin" });
    const answer = await api.call("post", "/auth/login", "/auth/login", { headers: from(), body: { email: "boss@example.ug", password: DEFAULT_PASSWORD } });
    expect(answer.status).toBe(200);
    const left = new Date(answer.body.data.expiresAt).getTime() - Date.now();
    expect(left).toBeLessThanOrEqual(12 * 3600_000 + 5_000);
    expect(left).toBeGreaterThan(11.9 * 3600_000);
  });

  it("tells a suspended member why, and gives no token", async () => {
    await createUser(t.db, { email: "held@example.ug", status: "suspended" });
    const answer = await api.call("post", "/auth/login", "/auth/login", { headers: from(), body: { email: "held@example.ug", password: DEFAULT_PASSWORD } });
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe("account.suspended");
  });
});

describe("tokens", () => {
  it("a browser's session cookie is not a token, and a token is not a page's session", async () => {
    const user = await createUser(t.db);
    const cookieToken = await createSession(t.db, user.id);
    const asBearer = await api.call("post", "/auth/refresh", "/auth/refresh", { headers: from(), token: cookieToken });
    expect(asBearer.status).toBe(401);
    expect(asBearer.body.code).toBe("token.invalid");
    const appToken = await createAppToken(t.db, user.id);
    const page = await fetch(`${server.baseUrl}/dashboard`, { headers: { Cookie: `soko_session=${appToken}` }, redirect: "manual" });
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toMatch(/^\/login/);
  });

  it("refresh replaces the token; the replaced one presented again ends every token of that sign-in", async () => {
    const user = await createUser(t.db);
    const first = await createAppToken(t.db, user.id);
    const refreshed = await api.call("post", "/auth/refresh", "/auth/refresh", { headers: from(), token: first });
    expect(refreshed.status).toBe(200);
    const second: string = refreshed.body.data.token;
    expect(second).not.toBe(first);
    const old = await api.call("post", "/auth/logout", "/auth/logout", { headers: from(), token: first });
    expect(old.status).toBe(401);
    expect(old.body.code).toBe("token.reused");
    // The thief's use ended the owner's token too.
    const owner = await api.call("post", "/auth/refresh", "/auth/refresh", { headers: from(), token: second });
    expect(owner.status).toBe(401);
    expect(await t.db("sessions").where({ user_id: user.id }).count({ n: "*" }).first()).toEqual({ n: 0 });
  });

  it("logout ends the token and nothing else of the member's", async () => {
    const user = await createUser(t.db);
    const phone = await createAppToken(t.db, user.id, { platform: "android" });
    const laptop = await createSession(t.db, user.id);
    const out = await api.call("post", "/auth/logout", "/auth/logout", { headers: from(), token: phone });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ data: null });
    expect((await api.send("post", "/auth/logout", { headers: from(), token: phone })).status).toBe(401);
    expect(await t.db("sessions").where({ user_id: user.id }).pluck("id")).toHaveLength(1);
    expect(laptop).toBeTruthy();
  });

  it("a member call without a token is 401 with WWW-Authenticate", async () => {
    const answer = await api.call("post", "/auth/logout", "/auth/logout", { headers: from() });
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe("token.missing");
    expect(answer.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });
});

describe("the contract's failures", () => {
  it("malformed JSON is 400, a wrong content type 415, an oversized body 413; nothing is written", async () => {
    const before = await t.db("users").count({ n: "*" }).first();
    const malformed = await api.send("post", "/auth/register", { headers: { ...from(), "Content-Type": "application/json" }, raw: '{"name": "A' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe("request.malformed_json");
    const form = await api.send("post", "/auth/register", {
      headers: { ...from(), "Content-Type": "application/x-www-form-urlencoded" },
      raw: "name=A&email=a%40b.ug&password=long-enough-1",
    });
    expect(form.status).toBe(415);
    expect(form.body.code).toBe("request.unsupported_type");
    const huge = await api.send("post", "/auth/register", { headers: from(), body: { name: "x".repeat(2 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe("request.too_large");
    expect(await t.db("users").count({ n: "*" }).first()).toEqual(before);
  });

  it("an unknown call is 404 and a known path with another method 405 with Allow, both as JSON", async () => {
    const unknown = await api.send("get", "/no/such/call", { headers: from() });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("request.unknown_call");
    const method = await api.send("get", "/auth/login", { headers: from() });
    expect(method.status).toBe(405);
    expect(method.headers.get("allow")).toBe("POST");
    expect(method.body.code).toBe("request.method_not_allowed");
  });

  it("serves no CORS headers to an origin that is not listed", async () => {
    const answer = await api.send("get", "/openapi.json", { headers: { ...from(), Origin: "https://evil.example" } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("forgot-password answers the same for a member's email and a stranger's", async () => {
    await createUser(t.db, { email: "known@example.ug" });
    const known = await api.call("post", "/auth/forgot-password", "/auth/forgot-password", { headers: from(), body: { email: "known@example.ug" } });
    const unknown = await api.call("post", "/auth/forgot-password", "/auth/forgot-password", { headers: from(), body: { email: "nobody@example.ug" } });
    expect(known.status).toBe(200);
    expect(unknown.body).toEqual(known.body);
    expect(await t.db("password_resets").count({ n: "*" }).first()).toEqual({ n: 1 });
  });
});
