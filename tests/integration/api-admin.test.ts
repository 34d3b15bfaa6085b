/**
 * The JSON API's admin calls on members and conversations (ADR 017, ADR 041), against the built server:
 * admins' tokens only (a member's is 403 on every admin call, analytics included); the member list with its
 * search, filters and cursor; suspend, ban, activate and delete, which end the member's tokens and sockets;
 * the bulk action, all or nothing; message monitoring: the list, a conversation's messages (each reading
 * audited), flag and delete. Every answer is checked against the served OpenAPI document, every change
 * against the rows and the audit log.
 */
import { io, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendMessage, startConversation } from "~/operations/messages.server";
import { apiClient, createAppToken } from "../support/api";
import { createSession, createUser, type TestUser } from "../support/factories";
import { rowCount } from "../support/order-checks";
import { memberActor, orderTestContext } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const t = orderTestContext("api_admin", { admin: { name: "Api Admin" } });

let server: TestServer;
let api: ReturnType<typeof apiClient>;
let adminToken: string;
let memberToken: string;
let someone: TestUser;

/** Each test's calls come from their own address, so the per-address limits of one test never meet another's. */
let address = 0;
const from = () => ({ "X-Forwarded-For": `198.51.100.${++address}` });

beforeAll(async () => {
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, TRUST_PROXY: "loopback" });
  api = apiClient(server.baseUrl);
  adminToken = await createAppToken(t.db, t.admin.id, { admin: true });
  someone = await createUser(t.db, { name: "Plain Member" });
  memberToken = await createAppToken(t.db, someone.id);
});
afterAll(async () => {
  await server?.stop();
});

const audits = (action: string, targetId: string | number) =>
  t
    .db("admin_audit_log")
    .where({ action, target_id: String(targetId) })
    .orderBy("id");
const asAdmin = (method: string, template: string, path: string, body?: unknown) =>
  api.call(method, template, path, { headers: from(), token: adminToken, body });

/** A socket opened with an app token, connected. */
async function socketOf(token: string): Promise<Socket> {
  const socket = io(server.baseUrl, {
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
    auth: { token },
    extraHeaders: { origin: server.baseUrl },
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", reject);
  });
  return socket;
}

/** Every admin call: method, path template, a path to call, a body (ids of rows that exist where one is needed). */
function adminCalls(): [string, string, string, unknown?][] {
  return [
    ["get", "/admin/users", "/admin/users"],
    ["patch", "/admin/users/{id}/suspend", `/admin/users/${t.admin.id}/suspend`],
    ["patch", "/admin/users/{id}/ban", `/admin/users/${t.admin.id}/ban`],
    ["patch", "/admin/users/{id}/activate", `/admin/users/${t.admin.id}/activate`],
    ["patch", "/admin/users/{id}/delete", `/admin/users/${t.admin.id}/delete`],
    ["post", "/admin/users/bulk-action", "/admin/users/bulk-action", { user_ids: [t.admin.id], action: "ban" }],
    ["get", "/admin/conversations", "/admin/conversations"],
    ["get", "/admin/conversations/{id}/messages", "/admin/conversations/conv_abcdefghij12/messages"],
    ["delete", "/admin/conversations/{id}", "/admin/conversations/conv_abcdefghij12"],
    ["patch", "/admin/conversations/{id}/flag", "/admin/conversations/conv_abcdefghij12/flag", { flagged: true }],
    ["get", "/admin/dashboard", "/admin/dashboard"],
    ["get", "/admin/stats", "/admin/stats"],
    ["get", "/admin/realtime-metrics", "/admin/realtime-metrics"],
    ["get", "/admin/analytics", "/admin/analytics"],
    ["get", "/admin/analytics/realtime", "/admin/analytics/realtime"],
    ["get", "/admin/heatmap", "/admin/heatmap"],
    ["get", "/admin/analytics/conversion-funnel", "/admin/analytics/conversion-funnel"],
    ["get", "/admin/analytics/user-journey/{id}", `/admin/analytics/user-journey/${someone.id}`],
    ["get", "/admin/users/{id}/analytics", `/admin/users/${someone.id}/analytics`],
    ["get", "/admin/analytics/export", "/admin/analytics/export"],
  ];
}

describe("who may call", () => {
  it("a member's token is 403 token.admins_only on every admin call, and nothing is written", async () => {
    const calls = adminCalls();
    for (const [method, template, path, body] of calls) {
      const answer = await api.call(method, template, path, { headers: from(), token: memberToken, body });
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body.code).toBe("token.admins_only");
      const anonymous = await api.call(method, template, path, { headers: from(), body });
      expect(anonymous.status, `${method} ${path} without a token`).toBe(401);
    }
    expect(await t.db("users").where({ id: t.admin.id }).first("status", "deleted_at")).toEqual({ status: "active", deleted_at: null });
    expect(await rowCount(t.db("admin_audit_log"))).toBe(0);
  });

  it("every admin call is in the document under the Admin tag, with a bearer token required", async () => {
    const { document } = await api.contract();
    for (const [method, template] of adminCalls()) {
      const operation = document.paths[template]?.[method] as unknown as { tags: string[]; security: object[] } | undefined;
      expect(operation, `${method} ${template}`).toBeDefined();
      expect(operation!.tags, template).toEqual(["Admin"]);
      expect(operation!.security, template).toEqual([{ bearer: [] }]);
    }
    const csv = (document.paths["/admin/analytics/export"]!.get!.responses["200"]!.content ?? {}) as Record<string, unknown>;
    expect(Object.keys(csv)).toEqual(["text/csv"]);
  });
});

describe("GET /admin/users", () => {
  let found: TestUser[];
  beforeAll(async () => {
    found = [
      await createUser(t.db, { name: "Nakimuli Sarah", role: "freelancer", email: "nakimuli@example.ug" }),
      await createUser(t.db, { name: "Kato Nakimuli", role: "client", email: "kato.n@example.ug" }),
      await createUser(t.db, { name: "Other Nakimuli", role: "client", status: "suspended", email: "other.n@example.ug" }),
    ];
  });

  it("finds members by name, email or username, newest first, filtered by role and status", async () => {
    const all = await asAdmin("get", "/admin/users", "/admin/users?search=nakimuli");
    expect(all.status).toBe(200);
    expect(all.body.data.items.map((u: { id: number }) => u.id)).toEqual([found[2]!.id, found[1]!.id, found[0]!.id]);
    expect(all.body.data).toMatchObject({ total: 3, nextCursor: null });
    expect(all.body.data.items[0]).toMatchObject({
      name: "Other Nakimuli",
      email: "other.n@example.ug",
      role: "client",
      status: "suspended",
      lastActiveAt: null,
    });
    const clients = await asAdmin("get", "/admin/users", "/admin/users?search=NAKIMULI&role=client&status=active");
    expect(clients.body.data.items.map((u: { id: number }) => u.id)).toEqual([found[1]!.id]);
    const byEmail = await asAdmin("get", "/admin/users", "/admin/users?search=kato.n%40example");
    expect(byEmail.body.data.items.map((u: { id: number }) => u.id)).toEqual([found[1]!.id]);
  });

  it("pages by cursor until the last page, whose nextCursor is null", async () => {
    const first = await asAdmin("get", "/admin/users", "/admin/users?search=nakimuli&limit=2");
    expect(first.body.data.items).toHaveLength(2);
    expect(first.body.data.nextCursor).toEqual(expect.any(String));
    const second = await asAdmin("get", "/admin/users", `/admin/users?search=nakimuli&limit=2&cursor=${encodeURIComponent(first.body.data.nextCursor)}`);
    expect(second.body.data.items.map((u: { id: number }) => u.id)).toEqual([found[0]!.id]);
    expect(second.body.data.nextCursor).toBeNull();
  });

  it("refuses a bad role, status, limit or cursor beside its field", async () => {
    const answer = await asAdmin("get", "/admin/users", "/admin/users?role=owner&status=gone&limit=0&cursor=not-a-cursor");
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe("request.invalid");
    expect(Object.keys(answer.body.issues).sort()).toEqual(["query.cursor", "query.limit", "query.role", "query.status"]);
  });
});

describe("PATCH /admin/users/{id}/suspend, ban, activate", () => {
  it("suspends a member: their status, an audit row, and their app tokens and sockets end", async () => {
    const member = await createUser(t.db, { name: "Suspended Soon" });
    const phone = await createAppToken(t.db, member.id, { platform: "android" });
    await createSession(t.db, member.id);
    const socket = await socketOf(phone);
    const closed = new Promise<string>((resolve) => socket.once("disconnect", resolve));
    try {
      const answer = await asAdmin("patch", "/admin/users/{id}/suspend", `/admin/users/${member.id}/suspend`);
      expect(answer.status).toBe(200);
      expect(answer.body.data).toMatchObject({ id: member.id, status: "suspended" });
      expect(answer.body.message).toBe("Suspended Soon was suspended.");
      expect(await closed).toBe("io server disconnect");
    } finally {
      socket.close();
    }
    const after = await api.call("post", "/auth/refresh", "/auth/refresh", { headers: from(), token: phone });
    expect(after.status).toBe(401);
    expect(await rowCount(t.db("sessions").where({ user_id: member.id }))).toBe(0);
    const [audit] = await audits("user.suspend", member.id);
    expect(audit).toMatchObject({ admin_id: t.admin.id, target_type: "user", details: { from: "active", to: "suspended" } });
  });

  it("bans and activates; a transition that does not apply is 409 with nothing written", async () => {
    const member = await createUser(t.db, { name: "Banned Soon" });
    const token = await createAppToken(t.db, member.id);
    const banned = await asAdmin("patch", "/admin/users/{id}/ban", `/admin/users/${member.id}/ban`);
    expect(banned.status).toBe(200);
    expect(banned.body.data.status).toBe("banned");
    expect((await api.send("post", "/auth/refresh", { headers: from(), token })).status).toBe(401);
    const suspend = await asAdmin("patch", "/admin/users/{id}/suspend", `/admin/users/${member.id}/suspend`);
    expect(suspend.status).toBe(409);
    expect(suspend.body.code).toBe("member.not_active");
    expect(await audits("user.suspend", member.id)).toHaveLength(0);
    const active = await asAdmin("patch", "/admin/users/{id}/activate", `/admin/users/${member.id}/activate`);
    expect(active.status).toBe(200);
    expect(active.body.data.status).toBe("active");
    const again = await asAdmin("patch", "/admin/users/{id}/activate", `/admin/users/${member.id}/activate`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("member.already_active");
    expect((await audits("user.ban", member.id)).length + (await audits("user.activate", member.id)).length).toBe(2);
  });

  it("an unknown member is 404, a bad id 400 beside path.id, the admin's own account 409", async () => {
    const unknown = await asAdmin("patch", "/admin/users/{id}/ban", "/admin/users/987654321/ban");
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("member.not_found");
    const bad = await asAdmin("patch", "/admin/users/{id}/ban", "/admin/users/abc/ban");
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.issues)).toEqual(["path.id"]);
    const own = await asAdmin("patch", "/admin/users/{id}/suspend", `/admin/users/${t.admin.id}/suspend`);
    expect(own.status).toBe(409);
    expect(own.body.code).toBe("admin.own_account");
    expect(await t.db("users").where({ id: t.admin.id }).first("status")).toEqual({ status: "active" });
  });
});

describe("PATCH /admin/users/{id}/delete", () => {
  it("deletes a member: nothing of the person stays, their tokens end, it is audited; then 404", async () => {
    const member = await createUser(t.db, { name: "Gone Member", email: "gone@example.ug" });
    const token = await createAppToken(t.db, member.id);
    const answer = await asAdmin("patch", "/admin/users/{id}/delete", `/admin/users/${member.id}/delete`);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ id: member.id, status: "deleted", name: "Deleted member" });
    expect(JSON.stringify(answer.body)).not.toContain("gone@example.ug");
    expect((await api.send("post", "/auth/refresh", { headers: from(), token })).status).toBe(401);
    expect(await audits("user.delete", member.id)).toHaveLength(1);
    const again = await asAdmin("patch", "/admin/users/{id}/delete", `/admin/users/${member.id}/delete`);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe("member.not_found");
  });
});

describe("POST /admin/users/bulk-action", () => {
  it("suspends a selection, skipping those already so, each audited", async () => {
    const a = await createUser(t.db);
    const b = await createUser(t.db);
    const held = await createUser(t.db, { status: "suspended" });
    const tokenA = await createAppToken(t.db, a.id);
    const answer = await asAdmin("post", "/admin/users/bulk-action", "/admin/users/bulk-action", { user_ids: [a.id, b.id, held.id], action: "suspend" });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ changed: 2, skipped: 1 });
    expect(answer.body.message).toBe("2 members suspended. 1 member left as they were (already so).");
    expect(await t.db("users").whereIn("id", [a.id, b.id]).pluck("status")).toEqual(["suspended", "suspended"]);
    expect((await api.send("post", "/auth/refresh", { headers: from(), token: tokenA })).status).toBe(401);
    const [audit] = await audits("user.suspend", a.id);
    expect(audit.details).toMatchObject({ bulk: true });
  });

  it("an unknown id refuses the whole batch (409, naming it) and changes nothing", async () => {
    const a = await createUser(t.db);
    const answer = await asAdmin("post", "/admin/users/bulk-action", "/admin/users/bulk-action", { user_ids: [a.id, 987654321], action: "ban" });
    expect(answer.status).toBe(409);
    expect(answer.body.code).toBe("member.unknown");
    expect(answer.body.message).toContain("#987654321");
    expect(await t.db("users").where({ id: a.id }).first("status")).toEqual({ status: "active" });
    expect(await audits("user.ban", a.id)).toHaveLength(0);
  });

  it("refuses an empty selection, a bad action, bad ids and unknown fields beside each field", async () => {
    const empty = await asAdmin("post", "/admin/users/bulk-action", "/admin/users/bulk-action", { user_ids: [], action: "suspend" });
    expect(empty.status).toBe(400);
    expect(empty.body.issues.user_ids[0].message).toBe("Bulk user action requires at least one selected user");
    const bad = await asAdmin("post", "/admin/users/bulk-action", "/admin/users/bulk-action", { user_ids: ["x", -1], action: "nuke", userIds: [1] });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.issues).sort()).toEqual(["action", "form", "user_ids.0", "user_ids.1"]);
  });
});

describe("message monitoring", () => {
  let people: Record<"akello" | "okello" | "nakato" | "mugisha", TestUser>;
  let offPlatform: string;
  let ordinary: string;

  async function conversation(a: TestUser, b: TestUser, bodies: string[]) {
    const started = await startConversation(memberActor(a), { userId: b.id }, { db: t.db });
    if (!started.ok) throw new Error(JSON.stringify(started));
    let sender = a;
    for (const body of bodies) {
      const sent = await sendMessage(memberActor(sender), { conversationId: started.value.conversationId, body }, { db: t.db });
      if (!sent.ok) throw new Error(JSON.stringify(sent));
      sender = sender === a ? b : a;
    }
    return started.value.conversationId;
  }

  beforeAll(async () => {
    people = {
      akello: await createUser(t.db, { name: "Akello Joan", email: "akello@example.ug" }),
      okello: await createUser(t.db, { name: "Okello Peter", role: "freelancer", email: "okello@example.ug" }),
      nakato: await createUser(t.db, { name: "Nakato Grace", email: "nakato@example.ug" }),
      mugisha: await createUser(t.db, { name: "Mugisha Paul", role: "freelancer", email: "mugisha@example.ug" }),
    };
    ordinary = await conversation(people.nakato, people.mugisha, ["Can you design an invoice template?", "Sure", "How many pages?", "Two"]);
    offPlatform = await conversation(people.akello, people.okello, ["I need a logo", "Call me on 0772 123456 to agree the price"]);
  });

  it("GET /admin/conversations: flagged first, searched, filtered and paged", async () => {
    const all = await asAdmin("get", "/admin/conversations", "/admin/conversations");
    expect(all.status).toBe(200);
    expect(all.body.data.items.map((c: { id: string }) => c.id)).toEqual([offPlatform, ordinary]);
    expect(all.body.data.items[0]).toMatchObject({
      flagged: true,
      flagReason: expect.stringMatching(/^off_platform:/),
      messageCount: 2,
      participants: [
        { id: people.akello.id, name: "Akello Joan", email: "akello@example.ug", avatarUrl: null },
        { id: people.okello.id, name: "Okello Peter" },
      ],
    });
    const flagged = await asAdmin("get", "/admin/conversations", "/admin/conversations?filter=flagged");
    expect(flagged.body.data.items.map((c: { id: string }) => c.id)).toEqual([offPlatform]);
    const searched = await asAdmin("get", "/admin/conversations", "/admin/conversations?search=invoice");
    expect(searched.body.data.items.map((c: { id: string }) => c.id)).toEqual([ordinary]);
    const busy = await asAdmin("get", "/admin/conversations", "/admin/conversations?filter=high_volume&limit=1");
    expect(busy.body.data.items.map((c: { id: string }) => c.id)).toEqual([ordinary]);
    const next = await asAdmin("get", "/admin/conversations", `/admin/conversations?filter=high_volume&limit=1&cursor=${busy.body.data.nextCursor}`);
    expect(next.body.data).toEqual({ items: [expect.objectContaining({ id: offPlatform })], nextCursor: null });
    // A list of summaries reads nobody's thread: not audited.
    expect(await rowCount(t.db("admin_audit_log").where({ action: "conversation.read" }))).toBe(0);
  });

  it("GET /admin/conversations refuses an unknown filter beside it", async () => {
    const answer = await asAdmin("get", "/admin/conversations", "/admin/conversations?filter=loud");
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body.issues)).toEqual(["query.filter"]);
  });

  it("GET /admin/conversations/{id}/messages: pages back from the newest, each reading audited", async () => {
    const newest = await asAdmin("get", "/admin/conversations/{id}/messages", `/admin/conversations/${ordinary}/messages?limit=3`);
    expect(newest.status).toBe(200);
    expect(newest.body.data.conversation.id).toBe(ordinary);
    expect(newest.body.data.items.map((m: { body: string }) => m.body)).toEqual(["Sure", "How many pages?", "Two"]);
    expect(newest.body.data.items[0].sender).toEqual({ id: people.mugisha.id, name: "Mugisha Paul", avatarUrl: null });
    const older = await asAdmin(
      "get",
      "/admin/conversations/{id}/messages",
      `/admin/conversations/${ordinary}/messages?limit=3&cursor=${newest.body.data.nextCursor}`,
    );
    expect(older.body.data.items.map((m: { body: string }) => m.body)).toEqual(["Can you design an invoice template?"]);
    expect(older.body.data.nextCursor).toBeNull();
    const read = await audits("conversation.read", ordinary);
    expect(read).toHaveLength(2);
    expect(read[0]).toMatchObject({ admin_id: t.admin.id, details: { participants: [people.nakato.id, people.mugisha.id], messages: 3 } });
    expect(read[1].details).toMatchObject({ messages: 1, before: expect.any(Number) });
  });

  it("GET /admin/conversations/{id}/messages: an unknown conversation is 404 and unaudited, a malformed id 400", async () => {
    const unknown = await asAdmin("get", "/admin/conversations/{id}/messages", "/admin/conversations/conv_zzzzzzzzzzzz/messages");
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("conversation.not_found");
    expect(await audits("conversation.read", "conv_zzzzzzzzzzzz")).toHaveLength(0);
    const bad = await asAdmin("get", "/admin/conversations/{id}/messages", "/admin/conversations/1%3B%20drop/messages?cursor=zz");
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.issues).sort()).toEqual(["path.id", "query.cursor"]);
  });

  it("PATCH /admin/conversations/{id}/flag flags and clears, audited; bad bodies and unknown ids change nothing", async () => {
    const flagged = await asAdmin("patch", "/admin/conversations/{id}/flag", `/admin/conversations/${ordinary}/flag`, { flagged: true });
    expect(flagged.status).toBe(200);
    expect(flagged.body.data).toMatchObject({ changed: true, conversation: { id: ordinary, flagged: true, flagReason: "admin" } });
    const again = await asAdmin("patch", "/admin/conversations/{id}/flag", `/admin/conversations/${ordinary}/flag`, { flagged: true });
    expect(again.body.data.changed).toBe(false);
    const cleared = await asAdmin("patch", "/admin/conversations/{id}/flag", `/admin/conversations/${ordinary}/flag`, { flagged: false });
    expect(cleared.body.data).toMatchObject({ changed: true, conversation: { flagged: false, flaggedAt: null } });
    expect((await audits("conversation.flag", ordinary)).length).toBe(2);
    expect((await audits("conversation.unflag", ordinary)).length).toBe(1);

    const bad = await asAdmin("patch", "/admin/conversations/{id}/flag", `/admin/conversations/${ordinary}/flag`, { flagged: "yes", reason: "spam" });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.issues).sort()).toEqual(["flagged", "form"]);
    const missing = await asAdmin("patch", "/admin/conversations/{id}/flag", `/admin/conversations/${ordinary}/flag`, {});
    expect(missing.body.issues.flagged[0].message).toBe("Say whether to flag or unflag");
    const unknown = await asAdmin("patch", "/admin/conversations/{id}/flag", "/admin/conversations/conv_zzzzzzzzzzzz/flag", { flagged: true });
    expect(unknown.status).toBe(404);
    expect(await t.db("conversations").where({ id: ordinary }).first("flagged_at")).toEqual({ flagged_at: null });
    expect(await audits("conversation.flag", "conv_zzzzzzzzzzzz")).toHaveLength(0);
  });

  it("DELETE /admin/conversations/{id} deletes it with its messages, audited; then 404", async () => {
    const doomed = await conversation(people.okello, people.nakato, ["Spam spam", "Stop"]);
    const answer = await asAdmin("delete", "/admin/conversations/{id}", `/admin/conversations/${doomed}`);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ participants: [people.okello.id, people.nakato.id].sort((x, y) => x - y), messageCount: 2, files: 0 });
    expect(await rowCount(t.db("messages").where({ conversation_id: doomed }))).toBe(0);
    expect(await rowCount(t.db("conversations").where({ id: doomed }))).toBe(0);
    const [audit] = await audits("conversation.delete", doomed);
    expect(audit).toMatchObject({ admin_id: t.admin.id, details: { messageCount: 2 } });
    const again = await asAdmin("delete", "/admin/conversations/{id}", `/admin/conversations/${doomed}`);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe("conversation.not_found");
    expect(await audits("conversation.delete", doomed)).toHaveLength(1);
  });
});
