import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findOrCreateConversation } from "~/models/conversation.server";
import { insertNotification } from "~/models/notification.server";
import { createSession, deleteSession, deleteUserSessions, getSessionUser, getSessionUserWithCounts, hashToken, renewSession } from "~/models/session.server";
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
    await t
      .db("sessions")
      .where({ id: hashToken(token) })
      .update({ expires_at: new Date(Date.now() - 1000) });
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

  it("never lets an admin hold a persistent session, whenever it was made (ADR 030)", async () => {
    const { id: admin } = await createUser(t.db, { name: "Admin Ruth", role: "admin" });
    const browser = await createSession(t.db, { userId: admin, persistent: false });
    const remembered = await createSession(t.db, { userId: admin, persistent: true });
    expect(await getSessionUser(t.db, browser.token)).toMatchObject({ id: admin, role: "admin" });
    expect(await getSessionUser(t.db, remembered.token)).toBeNull();
    // A member's 30-day session stops working the moment they become an admin.
    const { id: member } = await createUser(t.db, { name: "Promoted Paul" });
    const theirs = await createSession(t.db, { userId: member, persistent: true });
    expect(await getSessionUser(t.db, theirs.token)).toMatchObject({ id: member });
    await t.db("users").where({ id: member }).update({ role: "admin" });
    expect(await getSessionUserWithCounts(t.db, theirs.token)).toBeNull();
  });

  it("says when a browser session is due to be renewed, and renewing moves its end 12 hours from now", async () => {
    const { token } = await createSession(t.db, { userId, persistent: false });
    const id = hashToken(token);
    await t.db("users").where({ id: userId }).update({ last_active_at: t.db.fn.now() }); // active just now: not due for that
    expect((await getSessionUser(t.db, token))?.renewalDue).toBeUndefined();
    expect(await renewSession(t.db, id)).toBe(false);
    await t
      .db("sessions")
      .where({ id })
      .update({ expires_at: t.db.raw("now() + interval '2 hours'") });
    expect((await getSessionUser(t.db, token))?.renewalDue).toBe(true);
    expect(await renewSession(t.db, id)).toBe(true);
    const row = await t.db("sessions").where({ id }).first("expires_at");
    expect(new Date(row.expires_at).getTime() - Date.now()).toBeGreaterThan(11.9 * 3_600_000);
    expect((await getSessionUser(t.db, token))?.renewalDue).toBeUndefined();
    // A remembered session keeps its fixed end.
    const kept = await createSession(t.db, { userId, persistent: true });
    await t
      .db("sessions")
      .where({ id: hashToken(kept.token) })
      .update({ expires_at: t.db.raw("now() + interval '2 hours'") });
    expect((await getSessionUser(t.db, kept.token))?.renewalDue).toBeUndefined();
    expect(await renewSession(t.db, hashToken(kept.token))).toBe(false);
  });

  it("notes the member's last activity (the directory's recently active) when a session is used, at most once every five minutes", async () => {
    const { id: member } = await createUser(t.db, { role: "freelancer", name: "Active Seller" });
    const kept = await createSession(t.db, { userId: member, persistent: true });
    const lastActive = async () => (await t.db("users").where({ id: member }).first("last_active_at")).last_active_at as Date | null;
    // Never active: the first lookup is due, even for a remembered session that has nothing to renew.
    expect(await lastActive()).toBeNull();
    expect((await getSessionUser(t.db, kept.token))?.renewalDue).toBe(true);
    expect(await renewSession(t.db, hashToken(kept.token))).toBe(false);
    const first = await lastActive();
    expect(Math.abs(first!.getTime() - Date.now())).toBeLessThan(60_000);
    // Within five minutes: not due, and a renewal asked for anyway writes nothing.
    expect((await getSessionUser(t.db, kept.token))?.renewalDue).toBeUndefined();
    await renewSession(t.db, hashToken(kept.token));
    expect(await lastActive()).toEqual(first);
    // Six minutes on, due again.
    await t
      .db("users")
      .where({ id: member })
      .update({ last_active_at: t.db.raw("now() - interval '6 minutes'") });
    expect((await getSessionUser(t.db, kept.token))?.renewalDue).toBe(true);
    await renewSession(t.db, hashToken(kept.token));
    expect((await lastActive())!.getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  describe("lookups of one page", () => {
    /** The statements `run` sends to Postgres. */
    async function statements(run: () => Promise<unknown>) {
      const seen: string[] = [];
      const record = (q: { sql: string }) => seen.push(q.sql);
      t.db.on("query", record);
      try {
        await run();
      } finally {
        t.db.off("query", record);
      }
      return seen;
    }

    it("reads the header's counts with the session, and a lookup started meanwhile shares that one statement", async () => {
      const { id: other } = await createUser(t.db, { name: "Hassan K" });
      const { token } = await createSession(t.db, { userId, persistent: false });
      await insertNotification(t.db, { userId, kind: "order_placed", body: "Unread one" });
      await insertNotification(t.db, { userId, kind: "order_placed", body: "Unread two" });
      await insertNotification(t.db, { userId: other, kind: "order_placed", body: "Someone else's" });
      const { id: conversation } = await findOrCreateConversation(t.db, { a: userId, b: other, createdBy: other });
      await t.db("conversation_participants").where({ conversation_id: conversation, user_id: userId }).update({ unread_count: 3 });
      await t.db("conversation_participants").where({ conversation_id: conversation, user_id: other }).update({ unread_count: 7 });

      let both: [Awaited<ReturnType<typeof getSessionUserWithCounts>>, Awaited<ReturnType<typeof getSessionUser>>] | undefined;
      // As Remix starts a page's loaders: the root's (with counts) and then the route's, before either answers.
      const seen = await statements(async () => {
        both = await Promise.all([getSessionUserWithCounts(t.db, token), getSessionUser(t.db, token)]);
      });
      expect(seen).toHaveLength(1);
      expect(both![0]).toMatchObject({ user: { id: userId, username: "grace_n" }, counts: { notifications: 2, messages: 3 } });
      expect(both![1]).toMatchObject({ id: userId, username: "grace_n" });

      // The other order: the counts are read after the plain lookup, still right.
      const reversed = await Promise.all([getSessionUser(t.db, token), getSessionUserWithCounts(t.db, token)]);
      expect(reversed[1]).toMatchObject({ user: { id: userId }, counts: { notifications: 2, messages: 3 } });
      expect(reversed[0]).toMatchObject({ id: userId });

      // Nothing is kept once a lookup has answered: the next one sees the session gone.
      const ended = getSessionUser(t.db, token);
      expect(await ended).not.toBeNull();
      await deleteSession(t.db, token);
      expect(await getSessionUserWithCounts(t.db, token)).toBeNull();
      expect(await getSessionUser(t.db, token)).toBeNull();
    });

    it("shares a lookup only for the same token", async () => {
      const { id: other } = await createUser(t.db, { name: "Irene A" });
      const mine = await createSession(t.db, { userId, persistent: false });
      const theirs = await createSession(t.db, { userId: other, persistent: false });
      const [a, b, c] = await Promise.all([
        getSessionUserWithCounts(t.db, mine.token),
        getSessionUser(t.db, theirs.token),
        getSessionUser(t.db, `${mine.token}x`),
      ]);
      expect(a?.user.id).toBe(userId);
      expect(b?.id).toBe(other);
      expect(c).toBeNull();
    });
  });
});
