/**
 * App tokens' lookups held by the web process (ADR 042), against the built server with the cache on: a held
 * token stops working as soon as Postgres announces a change, whoever made it (here a hand edit in SQL, which
 * no operation saw), and a held lookup is what answers meanwhile (shown with the announcements switched off).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { closeRedis, createRedis } from "~/server/redis.server";
import { getEnv } from "~/server/env.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createUser } from "../support/factories";
import { startTestServer, type TestServer } from "../support/test-server";
import { apiClient, createAppToken } from "../support/api";

const asAdmin = (token: string) => ({ token, headers: { "X-Forwarded-For": "41.210.140.9" } });

const { prefix } = vi.hoisted(() => {
  const prefix = `t_apitokens_${process.pid}_${Date.now()}`;
  process.env.QUEUE_PREFIX = prefix;
  return { prefix };
});

let t: TestDatabase;
let server: TestServer;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  t = await createTestDatabase();
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: prefix, TOKEN_CACHE: "on" });
  api = apiClient(server.baseUrl);
});

afterAll(async () => {
  await server?.stop();
  const redis = createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await closeRedis();
  await t?.drop();
});

/**
 * A drop reaches the server as a Postgres notification, on its own connection: a request sent right after the
 * commit can arrive first, so each check asks again until the drop has landed (well within two seconds).
 */
const DROP_WAIT = { timeout: 2_000, interval: 20 };

const profile = (token: string) => api.send("get", "/users/profile", { token });

describe("held token lookups", () => {
  it("stop working at once when the session is deleted, the member suspended or the token shortened by hand in SQL", async () => {
    const [a, b, c] = await Promise.all([1, 2, 3].map((i) => createUser(t.db, { role: "client", name: `Held Member ${i}`, username: `held_${i}` })));
    const tokens = await Promise.all([a!, b!, c!].map((u) => createAppToken(t.db, u.id)));
    for (const token of tokens) expect((await profile(token)).status).toBe(200);

    await t.db("sessions").where({ user_id: a!.id }).delete();
    await t.db("users").where({ id: b!.id }).update({ status: "suspended" });
    await t
      .db("sessions")
      .where({ user_id: c!.id })
      .update({ expires_at: t.db.raw("now() - interval '1 second'") });

    for (const token of tokens) {
      await expect.poll(async () => (await profile(token)).status, DROP_WAIT).toBe(401);
      expect((await profile(token)).body.code).toBe("token.invalid");
    }
  });

  it("answers a renamed member's calls with the new name", async () => {
    const member = await createUser(t.db, { role: "freelancer", name: "Before Rename", username: "held_rename" });
    const token = await createAppToken(t.db, member.id);
    expect((await profile(token)).body.data.name).toBe("Before Rename");
    await t.db("users").where({ id: member.id }).update({ name: "After Rename" });
    await expect.poll(async () => (await profile(token)).body.data.name, DROP_WAIT).toBe("After Rename");
  });

  it("holds a lookup: with Postgres's announcements switched off, a deleted token still answers until it is dropped", async () => {
    const member = await createUser(t.db, { role: "client", name: "Held Without Drops", username: "held_nodrops" });
    const token = await createAppToken(t.db, member.id);
    expect((await profile(token)).status).toBe(200);
    await t.db.raw("ALTER TABLE sessions DISABLE TRIGGER sessions_drop");
    try {
      await t.db("sessions").where({ user_id: member.id }).delete();
      expect((await profile(token)).status).toBe(200);
    } finally {
      await t.db.raw("ALTER TABLE sessions ENABLE TRIGGER sessions_drop");
    }
    // Any announcement for the member (here a change of their time zone) drops what was held.
    await t.db("users").where({ id: member.id }).update({ time_zone: "UTC" });
    await expect.poll(async () => (await profile(token)).status, DROP_WAIT).toBe(401);
  });

  it("forgets a member an admin suspends through this process at once, without waiting for Postgres's announcement", async () => {
    const member = await createUser(t.db, { role: "client", name: "Suspended Now", username: "held_suspended" });
    const admin = await createUser(t.db, { role: "admin", name: "Held Admin", username: "held_admin" });
    const [token, adminToken] = await Promise.all([createAppToken(t.db, member.id), createAppToken(t.db, admin.id, { admin: true })]);
    expect((await profile(token)).status).toBe(200);
    // With no announcement at all, only the operation's own drop can end the held lookup.
    await t.db.raw("ALTER TABLE users DISABLE TRIGGER users_changed_drop");
    await t.db.raw("ALTER TABLE sessions DISABLE TRIGGER sessions_drop");
    try {
      const suspended = await api.send("patch", `/admin/users/${member.id}/suspend`, asAdmin(adminToken));
      expect(suspended.status).toBe(200);
      const refused = await profile(token);
      expect(refused.status).toBe(401);
      expect(refused.body.code).toBe("token.invalid");
    } finally {
      await t.db.raw("ALTER TABLE users ENABLE TRIGGER users_changed_drop");
      await t.db.raw("ALTER TABLE sessions ENABLE TRIGGER sessions_drop");
    }
  });
});
