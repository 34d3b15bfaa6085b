/**
 * The JSON API's notification calls (ADR 041) against the built server, each answer checked against the
 * OpenAPI document: the member's notifications newest first, a page at a time by cursor, with the unread
 * count; one marked read, and all of them; bad input (400 beside the field) and another member's
 * notification (404, left unread, never shown).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { closeRedis } from "~/server/redis.server";
import { getEnv } from "~/server/env.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createUser, type TestUser } from "../support/factories";
import { startTestServer, type TestServer } from "../support/test-server";
import { apiClient, createAppToken, type ApiAnswer } from "../support/api";

const { prefix } = vi.hoisted(() => {
  const prefix = `t_apinotes_${process.pid}_${Date.now()}`;
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

/** A member with a token and `n` notifications, the i-th `i` minutes old (the first `read` of them read); their ids, newest first. */
async function memberWith(name: string, n: number, read = 0) {
  const user = await createUser(t.db, { name });
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const [row] = await t
      .db("notifications")
      .insert({
        user_id: user.id,
        kind: "order_paid",
        body: `${name}: note ${i}`,
        created_at: t.db.raw("now() - make_interval(mins => ?)", [i]),
        read_at: i < read ? t.db.fn.now() : null,
      })
      .returning("id");
    ids.push(Number(row.id));
  }
  return { user, token: await createAppToken(t.db, user.id), ids };
}

const unreadOf = async (user: TestUser) => Number((await t.db("notifications").where({ user_id: user.id }).whereNull("read_at").count({ c: "*" }).first())?.c);

describe("GET /notifications", () => {
  it("pages the member's own notifications newest first by cursor, with the unread count", async () => {
    const me = await memberWith("Listing Member", 5, 2);
    await memberWith("Other Lister", 3);
    const seen: number[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const answer: ApiAnswer = await api.call("get", "/notifications", `/notifications?limit=2${cursor ? `&cursor=${cursor}` : ""}`, {
        headers: from(),
        token: me.token,
      });
      expect(answer.status).toBe(200);
      expect(answer.body.data.unread).toBe(3);
      seen.push(...answer.body.data.items.map((n: { id: number }) => n.id));
      cursor = answer.body.data.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(me.ids);
    const first = await api.call("get", "/notifications", "/notifications?limit=1", { headers: from(), token: me.token });
    expect(first.body.data.items).toEqual([
      {
        id: me.ids[0],
        kind: "order_paid",
        orderId: null,
        conversationId: null,
        body: "Listing Member: note 0",
        read: true,
        createdAt: expect.stringMatching(/Z$/),
      },
    ]);
  });

  it("answers 400 beside a malformed cursor or limit, and 401 without a token", async () => {
    const me = await memberWith("Careless Lister", 1);
    for (const [query, field] of [
      ["cursor=abc", "query.cursor"],
      ["cursor=0", "query.cursor"],
      ["limit=101", "query.limit"],
      ["limit=two", "query.limit"],
    ] as const) {
      const answer = await api.call("get", "/notifications", `/notifications?${query}`, { headers: from(), token: me.token });
      expect(answer.status, query).toBe(400);
      expect(Object.keys(answer.body.issues), query).toEqual([field]);
    }
    const anonymous = await api.call("get", "/notifications", "/notifications", { headers: from() });
    expect(anonymous.status).toBe(401);
  });

  it("another member's notification as the cursor shows nothing of theirs", async () => {
    const me = await memberWith("Cursor Member", 2);
    const other = await memberWith("Cursor Other", 2);
    const answer = await api.call("get", "/notifications", `/notifications?cursor=${other.ids[0]}`, { headers: from(), token: me.token });
    expect(answer.status).toBe(200);
    expect(answer.body.data.items).toEqual([]);
  });
});

describe("POST /notifications/{id}/read", () => {
  it("marks one of the member's notifications read and answers the unread count; again changes nothing", async () => {
    const me = await memberWith("Reading Member", 3);
    const answer = await api.call("post", "/notifications/{id}/read", `/notifications/${me.ids[1]}/read`, { headers: from(), token: me.token });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ id: me.ids[1], unread: 2 });
    const readAt = (await t.db("notifications").where({ id: me.ids[1] }).first("read_at")).read_at;
    expect(readAt).toBeInstanceOf(Date);
    const again = await api.call("post", "/notifications/{id}/read", `/notifications/${me.ids[1]}/read`, { headers: from(), token: me.token });
    expect(again.body.data).toEqual({ id: me.ids[1], unread: 2 });
    expect((await t.db("notifications").where({ id: me.ids[1] }).first("read_at")).read_at).toEqual(readAt);
  });

  it("another member's notification is 404 and stays unread; a malformed id is 400", async () => {
    const me = await memberWith("Nosy Reader", 1);
    const other = await memberWith("Private Reader", 2);
    const answer = await api.call("post", "/notifications/{id}/read", `/notifications/${other.ids[0]}/read`, { headers: from(), token: me.token });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ code: "notification.not_found", message: "We could not find that notification." });
    expect(await unreadOf(other.user)).toBe(2);
    const bad = await api.call("post", "/notifications/{id}/read", "/notifications/x/read", { headers: from(), token: me.token });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.issues)).toEqual(["path.id"]);
    expect(await unreadOf(me.user)).toBe(1);
  });
});

describe("POST /notifications/read-all", () => {
  it("marks every notification of the member read, and only theirs", async () => {
    const me = await memberWith("Tidy Member", 4, 1);
    const other = await memberWith("Busy Other", 3);
    const answer = await api.call("post", "/notifications/read-all", "/notifications/read-all", { headers: from(), token: me.token });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ marked: 3, unread: 0 });
    expect(await unreadOf(me.user)).toBe(0);
    expect(await unreadOf(other.user)).toBe(3);
    const again = await api.call("post", "/notifications/read-all", "/notifications/read-all", { headers: from(), token: me.token });
    expect(again.body.data).toEqual({ marked: 0, unread: 0 });
    const anonymous = await api.call("post", "/notifications/read-all", "/notifications/read-all", { headers: from() });
    expect(anonymous.status).toBe(401);
  });
});
