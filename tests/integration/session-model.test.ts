import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createSession,
  deleteSession,
  deleteUserSessions,
  getSessionUser,
  hashToken,
} from "~/models/session.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createUser } from "../support/factories";

describe("sessions", () => {
  let t: TestDatabase;
  let userId: number;
  beforeAll(async () => {
    t = await createTestDatabase();
    ({ id: userId } = await createUser(t.db, { name: "Grace N", email: "grace@example.test" }));
  });
  afterAll(() => t.drop());

  it("stores only the token's hash and finds the user by the token", async () => {
    const { token, expiresAt } = await createSession(t.db, { userId, persistent: true });
    const row = await t.db("sessions").where({ user_id: userId }).first();
    expect(row.id).toBe(hashToken(token));
    expect(row.id).not.toContain(token);
    expect(expiresAt.getTime() - Date.now()).toBeGreaterThan(29 * 86_400_000);
    expect(await getSessionUser(t.db, token)).toMatchObject({ id: userId, username: "grace_n", role: "client" });
    expect(await getSessionUser(t.db, `${token}x`)).toBeNull();
    expect(await getSessionUser(t.db, "")).toBeNull();
  });

  it("ignores expired sessions and sessions of suspended users", async () => {
    const { token } = await createSession(t.db, { userId, persistent: false });
    await t.db("sessions").where({ id: hashToken(token) }).update({ expires_at: new Date(Date.now() - 1000) });
    expect(await getSessionUser(t.db, token)).toBeNull();
    const { token: live } = await createSession(t.db, { userId, persistent: false });
    await t.db("users").where({ id: userId }).update({ status: "suspended" });
    expect(await getSessionUser(t.db, live)).toBeNull();
    await t.db("users").where({ id: userId }).update({ status: "active" });
    expect(await getSessionUser(t.db, live)).not.toBeNull();
  });

  it("ends one session, or all of a user's but the current one", async () => {
    const a = await createSession(t.db, { userId, persistent: false });
    const b = await createSession(t.db, { userId, persistent: false });
    await deleteSession(t.db, a.token);
    expect(await getSessionUser(t.db, a.token)).toBeNull();
    const current = await getSessionUser(t.db, b.token);
    await deleteUserSessions(t.db, userId, { exceptSessionId: current!.sessionId });
    expect(await t.db("sessions").where({ user_id: userId }).pluck("id")).toEqual([current!.sessionId]);
  });
});
