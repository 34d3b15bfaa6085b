/**
 * The JSON API's Messages calls against the built server, each answer checked against the OpenAPI document:
 * conversations listed and paged, a thread paged by cursor with its files' download paths, messages sent (a
 * repeated clientId stored once, uploads taken by key, another member's upload refused beside `files`),
 * conversations marked read and started; bad input is 400 beside the field with nothing written, and another
 * member's conversation is 404 with nothing of it in the answer.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordUploadedFiles } from "~/models/uploaded-file.server";
import { sendMessage, startConversation } from "~/operations/messages.server";
import { createSession, createUser, type TestUser } from "../support/factories";
import { memberActor, orderTestContext } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";
import { apiClient, createAppToken } from "../support/api";
import { words } from "../support/words";

const t = orderTestContext("apimsg", {
  parties: {
    seller: { name: "Nakato Api", username: "nakato_api" },
    buyer: { name: "Okello Api", username: "okello_api" },
    gig: { title: "Logo for a bakery" },
  },
});
let server: TestServer;
let api: ReturnType<typeof apiClient>;
let uploadDir: string;

beforeAll(async () => {
  uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-api-messages-"));
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, UPLOAD_DIR: uploadDir, TRUST_PROXY: "loopback" });
  api = apiClient(server.baseUrl);
});
afterAll(async () => {
  await server?.stop();
  if (uploadDir) fs.rmSync(uploadDir, { recursive: true, force: true });
});

/** Each test's calls come from their own address, so the per-address limits of one test never meet another's. */
let address = 0;
const from = () => ({ "X-Forwarded-For": `198.51.100.${++address}` });

const tokens = new Map<number, string>();
async function tokenOf(user: TestUser) {
  if (!tokens.has(user.id)) tokens.set(user.id, await createAppToken(t.db, user.id));
  return tokens.get(user.id)!;
}
/** An API call as `who`, checked against the document. */
async function as(who: TestUser, method: string, template: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}) {
  return api.call(method, template, urlPath, { token: await tokenOf(who), headers: { ...from(), ...headers }, body });
}

async function conversation(a: TestUser, b: TestUser) {
  const r = await startConversation(memberActor(a), { userId: b.id }, { db: t.db });
  if (!r.ok) throw new Error(JSON.stringify(r));
  return r.value.conversationId;
}
async function send(from: TestUser, conversationId: string, body: string) {
  const r = await sendMessage(memberActor(from), { conversationId, body }, { db: t.db });
  if (!r.ok) throw new Error(JSON.stringify(r));
  return r.value.message;
}
const pair = async () => [await createUser(t.db), await createUser(t.db)] as const;
const count = async (table: string, where: Record<string, unknown> = {}) => Number((await t.db(table).where(where).count({ n: "*" }).first())!.n);

/** A member's upload as POST /upload/document leaves one: the file on disk and the row that says whose it is. */
async function upload(owner: TestUser, { name = "brief.pdf", bytes = Buffer.from("%PDF-1.4\n% a test brief\n%%EOF\n"), contentType = "application/pdf" } = {}) {
  const storageKey = randomUUID();
  fs.mkdirSync(path.join(uploadDir, "order-files"), { recursive: true });
  fs.writeFileSync(path.join(uploadDir, "order-files", storageKey), bytes);
  await recordUploadedFiles(t.db, owner.id, [{ storageKey, fileName: name, contentType, sizeBytes: bytes.length }]);
  return { storageKey, bytes };
}

describe("POST /messages/conversations", () => {
  it("starts a conversation with a gig's seller about the gig (201), and finds the same one again", async () => {
    const first = await as(t.buyer, "post", "/messages/conversations", "/messages/conversations", { gigId: t.gigId });
    expect(first.status).toBe(201);
    expect(first.body.data.created).toBe(true);
    const c = first.body.data.conversation;
    expect(c.other).toMatchObject({ id: t.seller.id, name: "Nakato Api", username: "nakato_api", available: true });
    expect(c.gig).toEqual({ id: t.gigId, title: "Logo for a bakery" });
    expect(c).toMatchObject({ lastMessage: null, unreadCount: 0 });
    const again = await as(t.buyer, "post", "/messages/conversations", "/messages/conversations", { username: "nakato_api" });
    expect(again.status).toBe(201);
    expect(again.body.data).toMatchObject({ created: false, conversation: { id: c.id } });
    expect(await count("conversation_participants", { conversation_id: c.id })).toBe(2);
  });

  it("refuses bad input beside the field, and writing to oneself, with nothing written", async () => {
    const me = await createUser(t.db);
    const before = await count("conversations");
    const none = await as(me, "post", "/messages/conversations", "/messages/conversations", {});
    expect(none.status).toBe(400);
    expect(Object.keys(none.body.issues)).toEqual(["userId"]);
    const wrong = await as(me, "post", "/messages/conversations", "/messages/conversations", { gigId: "seven", extra: 1 });
    expect(wrong.status).toBe(400);
    expect(wrong.body.issues.gigId).toBeDefined();
    expect(wrong.body.issues.form[0].message).toMatch(/extra/);
    const self = await as(me, "post", "/messages/conversations", "/messages/conversations", { userId: me.id });
    expect(self.status).toBe(400);
    expect(self.body.issues.userId[0].code).toBe("message.to_yourself");
    expect(await count("conversations")).toBe(before);
  });

  it("is 404 for a gig that is not published and a member who does not exist", async () => {
    const me = await createUser(t.db);
    const gig = await as(me, "post", "/messages/conversations", "/messages/conversations", { gigId: 987654 });
    expect(gig.status).toBe(404);
    expect(gig.body.code).toBe("gig.not_found");
    const member = await as(me, "post", "/messages/conversations", "/messages/conversations", { username: "nobody_here" });
    expect(member.status).toBe(404);
    expect(member.body.code).toBe("member.not_found");
  });
});

describe("GET /messages/conversations", () => {
  it("lists the member's conversations, newest first, with the other member, last message and unread count, paged", async () => {
    const [me, one, two] = [
      await createUser(t.db, { name: "Lister Me" }),
      await createUser(t.db, { name: "First Other" }),
      await createUser(t.db, { name: "Second Other" }),
    ];
    const older = await conversation(me, one);
    await send(one, older, "hello from one");
    const newer = await conversation(two, me);
    const last = await send(two, newer, "hello from two");
    await send(two, newer, "are you there?");

    const page1 = await as(me, "get", "/messages/conversations", "/messages/conversations?limit=1");
    expect(page1.status).toBe(200);
    expect(page1.body.data.items).toHaveLength(1);
    const top = page1.body.data.items[0];
    expect(top).toMatchObject({
      id: newer,
      other: { id: two.id, name: "Second Other" },
      unreadCount: 2,
      lastMessage: { body: "are you there?", senderId: two.id },
    });
    expect(top.lastMessage.id).toBeGreaterThan(last.id);
    expect(page1.body.data.nextCursor).toEqual(expect.any(String));

    const page2 = await as(me, "get", "/messages/conversations", `/messages/conversations?limit=1&cursor=${encodeURIComponent(page1.body.data.nextCursor)}`);
    expect(page2.body.data.items.map((c: { id: string }) => c.id)).toEqual([older]);
    expect(page2.body.data.items[0]).toMatchObject({ unreadCount: 1, lastMessage: { body: "hello from one" } });
    expect(page2.body.data.nextCursor).toBeNull();

    const searched = await as(me, "get", "/messages/conversations", "/messages/conversations?q=first");
    expect(searched.body.data.items.map((c: { id: string }) => c.id)).toEqual([older]);
  });

  it("shows nothing of other members' conversations", async () => {
    const [a, b] = await pair();
    await send(a, await conversation(a, b), "between us");
    const stranger = await createUser(t.db);
    const answer = await as(stranger, "get", "/messages/conversations", "/messages/conversations");
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ items: [], nextCursor: null });
  });

  it("refuses a malformed cursor or limit beside the query field, never a 500", async () => {
    const me = await createUser(t.db);
    for (const cursor of ["nonsense", "99999999999999999999~conv_abcdefghijkl", "1~conv_'; drop table users"]) {
      const answer = await as(me, "get", "/messages/conversations", `/messages/conversations?cursor=${encodeURIComponent(cursor)}`);
      expect(answer.status).toBe(400);
      expect(Object.keys(answer.body.issues)).toEqual(["query.cursor"]);
    }
    const limit = await as(me, "get", "/messages/conversations", "/messages/conversations?limit=101");
    expect(limit.status).toBe(400);
    expect(Object.keys(limit.body.issues)).toEqual(["query.limit"]);
  });

  it("is 401 without a token", async () => {
    const answer = await api.call("get", "/messages/conversations", "/messages/conversations", { headers: from() });
    expect(answer.status).toBe(401);
  });
});

describe("GET /messages/{id}", () => {
  it("pages the thread by cursor, older messages on, oldest first within a page", async () => {
    const [a, b] = await pair();
    const id = await conversation(a, b);
    const [m1, m2, m3] = [await send(a, id, "one"), await send(b, id, "two"), await send(a, id, "three")];
    const newest = await as(a, "get", "/messages/{id}", `/messages/${id}?limit=2`);
    expect(newest.status).toBe(200);
    expect(newest.body.data.conversation).toMatchObject({ id, other: { id: b.id } });
    expect(newest.body.data.items.map((m: { id: number }) => m.id)).toEqual([m2.id, m3.id]);
    expect(newest.body.data.items[0]).toMatchObject({ body: "two", senderId: b.id, conversationId: id, status: "sent", attachments: [] });
    expect(newest.body.data.nextCursor).toBe(String(m2.id));
    const older = await as(a, "get", "/messages/{id}", `/messages/${id}?limit=2&cursor=${newest.body.data.nextCursor}`);
    expect(older.body.data.items.map((m: { id: number }) => m.id)).toEqual([m1.id]);
    expect(older.body.data.nextCursor).toBeNull();
  });

  it("is 404 for another member's conversation, with nothing of it", async () => {
    const [a, b] = await pair();
    const id = await conversation(a, b);
    await send(a, id, "secret plans");
    const stranger = await createUser(t.db);
    const answer = await as(stranger, "get", "/messages/{id}", `/messages/${id}`);
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe("conversation.not_found");
    expect(JSON.stringify(answer.body)).not.toMatch(/secret plans/);
    const none = await as(stranger, "get", "/messages/{id}", "/messages/conv_doesnotexist0000");
    expect(none.status).toBe(404);
  });

  it("refuses a malformed id or cursor beside the field", async () => {
    const [a, b] = await pair();
    const id = await conversation(a, b);
    const badId = await as(a, "get", "/messages/{id}", "/messages/not-a-conversation");
    expect(badId.status).toBe(400);
    expect(Object.keys(badId.body.issues)).toEqual(["path.id"]);
    const badCursor = await as(a, "get", "/messages/{id}", `/messages/${id}?cursor=12abc`);
    expect(badCursor.status).toBe(400);
    expect(Object.keys(badCursor.body.issues)).toEqual(["query.cursor"]);
  });
});

describe("POST /messages/send", () => {
  it("sends a message (201): stored, counted unread for the other member, listed for them", async () => {
    const [a, b] = await pair();
    const id = await conversation(a, b);
    const answer = await as(a, "post", "/messages/send", "/messages/send", { conversationId: id, body: "  Hello there  ", clientId: "c-hello-1" });
    expect(answer.status).toBe(201);
    expect(answer.body.data).toMatchObject({
      duplicate: false,
      warning: null,
      message: { body: "Hello there", senderId: a.id, clientId: "c-hello-1", type: "text" },
    });
    const row = await t.db("messages").where({ id: answer.body.data.message.id }).first();
    expect(row).toMatchObject({ conversation_id: id, body: "Hello there" });
    expect(await t.db("conversation_participants").where({ conversation_id: id, user_id: b.id }).first("unread_count")).toEqual({ unread_count: 1 });
    const list = await as(b, "get", "/messages/conversations", "/messages/conversations");
    expect(list.body.data.items[0]).toMatchObject({ id, unreadCount: 1, lastMessage: { body: "Hello there" } });
  });

  it("warns of payment talk off Soko in the sender's language", async () => {
    const [a, b] = await pair();
    await t.db("users").where({ id: a.id }).update({ language: "lg" });
    const id = await conversation(a, b);
    const answer = await as(a, "post", "/messages/send", "/messages/send", {
      conversationId: id,
      body: "Send the money to 0772 123 456 on mobile money",
      clientId: "c-warn-1",
    });
    expect(answer.status).toBe(201);
    expect(answer.body.data).toMatchObject({ warning: words("chat.message.offPlatform", "lg"), message: { offPlatform: true } });
    expect(answer.body.data.warning).not.toBe(words("chat.message.offPlatform", "en"));
  });

  it("stores a repeated clientId once and answers the first message again", async () => {
    const [a, b] = await pair();
    const id = await conversation(a, b);
    const body = { conversationId: id, body: "only once", clientId: "retry-me-42" };
    const first = await as(a, "post", "/messages/send", "/messages/send", body);
    const second = await as(a, "post", "/messages/send", "/messages/send", body);
    expect(second.status).toBe(201);
    expect(second.body.data.duplicate).toBe(true);
    expect(second.body.data.message.id).toBe(first.body.data.message.id);
    expect(await count("messages", { conversation_id: id })).toBe(1);
    expect(await t.db("conversation_participants").where({ conversation_id: id, user_id: b.id }).first("unread_count")).toEqual({ unread_count: 1 });
  });

  it("replays the first answer for a repeated Idempotency-Key", async () => {
    const [a, b] = await pair();
    const id = await conversation(a, b);
    const key = { "Idempotency-Key": "send-key-0001" };
    const first = await as(a, "post", "/messages/send", "/messages/send", { conversationId: id, body: "keyed", clientId: "keyed-1" }, key);
    const replay = await as(a, "post", "/messages/send", "/messages/send", { conversationId: id, body: "keyed", clientId: "keyed-1" }, key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);
    expect(await count("messages", { conversation_id: id })).toBe(1);
  });

  it("takes the member's uploads by key: attached with a download path the members can open, each upload used once", async () => {
    const [a, b] = await pair();
    const id = await conversation(a, b);
    const { storageKey, bytes } = await upload(a, { name: "Quote – Kampala.pdf" });
    const answer = await as(a, "post", "/messages/send", "/messages/send", { conversationId: id, body: "", clientId: "with-file-1", files: [storageKey] });
    expect(answer.status).toBe(201);
    const message = answer.body.data.message;
    expect(message.type).toBe("file");
    expect(message.attachments).toHaveLength(1);
    const file = message.attachments[0];
    expect(file).toMatchObject({
      name: "Quote – Kampala.pdf",
      contentType: "application/pdf",
      sizeBytes: bytes.length,
      downloadUrl: `/api/v1/messages/${id}/files/${file.id}`,
    });
    expect(await count("uploaded_files", { storage_key: storageKey })).toBe(0);
    expect(await t.db("message_attachments").where({ message_id: message.id }).pluck("storage_key")).toEqual([storageKey]);

    // The other member's app downloads it with its token, and so does their page at the page's path; a stranger does neither.
    const download = await fetch(`${server.baseUrl}${file.downloadUrl}`, { headers: { Authorization: `Bearer ${await tokenOf(b)}`, ...from() } });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/pdf");
    expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
    const page = await fetch(`${server.baseUrl}/messages/${id}/files/${file.id}`, { headers: { Cookie: `soko_session=${await createSession(t.db, b.id)}` } });
    expect(page.status).toBe(200);
    const stranger = await createUser(t.db);
    const refused = await api.call("get", "/messages/{id}/files/{fileId}", `/messages/${id}/files/${file.id}`, {
      token: await tokenOf(stranger),
      headers: from(),
    });
    expect(refused.status).toBe(404);
    expect(refused.body.code).toBe("record.not_found");

    // The same send again (its answer was lost): the first message, and nothing taken or stored twice.
    const again = await as(a, "post", "/messages/send", "/messages/send", { conversationId: id, body: "", clientId: "with-file-1", files: [storageKey] });
    expect(again.status).toBe(201);
    expect(again.body.data).toMatchObject({ duplicate: true, message: { id: message.id } });
    expect(await count("message_attachments", { storage_key: storageKey })).toBe(1);

    // A used upload cannot be sent again in another message.
    const reuse = await as(a, "post", "/messages/send", "/messages/send", { conversationId: id, body: "", clientId: "with-file-2", files: [storageKey] });
    expect(reuse.status).toBe(400);
    expect(reuse.body.issues.files[0].code).toBe("message.file_unavailable");
    expect(await count("messages", { conversation_id: id })).toBe(1);
  });

  it("refuses another member's upload, an unknown key and a file that is not an image or PDF beside `files`, with nothing written", async () => {
    const [a, b] = await pair();
    const id = await conversation(a, b);
    const theirs = await upload(b);
    const zip = await upload(a, { name: "archive.zip", bytes: Buffer.from("PK\u0003\u0004zip"), contentType: "application/zip" });
    const mine = await upload(a);
    let attempt = 0;
    for (const [files, code] of [
      [[theirs.storageKey], "message.file_unavailable"],
      [[mine.storageKey, "no-such-upload"], "message.file_unavailable"],
      [[mine.storageKey, mine.storageKey], "message.file_unavailable"],
      [[zip.storageKey], "message.file_type"],
    ] as const) {
      const answer = await as(a, "post", "/messages/send", "/messages/send", {
        conversationId: id,
        body: "see attached",
        clientId: `bad-files-${++attempt}`,
        files,
      });
      expect(answer.status, JSON.stringify(files)).toBe(400);
      expect(Object.keys(answer.body.issues)).toEqual(["files"]);
      expect(answer.body.issues.files[0].code).toBe(code);
    }
    expect(await count("messages", { conversation_id: id })).toBe(0);
    expect(await count("uploaded_files", { user_id: b.id })).toBe(1);
    expect(await count("uploaded_files", { user_id: a.id })).toBe(2);
  });

  it("refuses bad input beside the field, with nothing written", async () => {
    const [a, b] = await pair();
    const id = await conversation(a, b);
    const cases: [unknown, string][] = [
      [{ conversationId: id, body: "   ", clientId: "empty-1" }, "body"],
      [{ conversationId: id, body: "x".repeat(5001), clientId: "long-1" }, "body"],
      [{ conversationId: id, body: "no client id" }, "clientId"],
      [{ conversationId: id, body: "bad client id", clientId: "has spaces" }, "clientId"],
      [{ conversationId: "conv_nope!", body: "hi", clientId: "bad-conv-1" }, "conversationId"],
      [{ conversationId: id, body: "hi", clientId: "files-not-list", files: "abc" }, "files"],
      [{ conversationId: id, body: "hi", clientId: "extra-1", senderId: b.id }, "form"],
    ];
    for (const [body, field] of cases) {
      const answer = await as(a, "post", "/messages/send", "/messages/send", body);
      expect(answer.status, field).toBe(400);
      expect(Object.keys(answer.body.issues), JSON.stringify(body).slice(0, 80)).toEqual([field]);
    }
    expect(await count("messages", { conversation_id: id })).toBe(0);
  });

  it("is 404 for another member's conversation, with nothing written", async () => {
    const [a, b] = await pair();
    const id = await conversation(a, b);
    const stranger = await createUser(t.db);
    const upload1 = await upload(stranger);
    const answer = await as(stranger, "post", "/messages/send", "/messages/send", {
      conversationId: id,
      body: "let me in",
      clientId: "intruder-1",
      files: [upload1.storageKey],
    });
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe("conversation.not_found");
    expect(await count("messages", { conversation_id: id })).toBe(0);
    expect(await count("uploaded_files", { storage_key: upload1.storageKey })).toBe(1);
  });
});

describe("POST /messages/{id}/read", () => {
  it("marks the other member's messages read and the member's unread count 0", async () => {
    const [a, b] = await pair();
    const id = await conversation(a, b);
    await send(a, id, "one");
    await send(a, id, "two");
    await send(b, id, "mine");
    const answer = await as(b, "post", "/messages/{id}/read", `/messages/${id}/read`);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ marked: 2 });
    expect(await t.db("messages").where({ conversation_id: id, sender_id: a.id }).pluck("status")).toEqual(["read", "read"]);
    expect(await t.db("messages").where({ conversation_id: id, sender_id: b.id }).pluck("status")).toEqual(["sent"]);
    const list = await as(b, "get", "/messages/conversations", "/messages/conversations");
    expect(list.body.data.items[0]).toMatchObject({ id, unreadCount: 0 });
  });

  it("marks up to a message with upTo", async () => {
    const [a, b] = await pair();
    const id = await conversation(a, b);
    const first = await send(a, id, "one");
    await send(a, id, "two");
    const answer = await as(b, "post", "/messages/{id}/read", `/messages/${id}/read`, { upTo: first.id });
    expect(answer.body.data).toEqual({ marked: 1 });
    expect(await t.db("messages").where({ conversation_id: id }).orderBy("id").pluck("status")).toEqual(["read", "sent"]);
  });

  it("is 404 for another member's conversation and 400 for a bad upTo, marking nothing", async () => {
    const [a, b] = await pair();
    const id = await conversation(a, b);
    await send(a, id, "unread still");
    const stranger = await createUser(t.db);
    const theirs = await as(stranger, "post", "/messages/{id}/read", `/messages/${id}/read`);
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe("conversation.not_found");
    const bad = await as(b, "post", "/messages/{id}/read", `/messages/${id}/read`, { upTo: -3 });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.issues)).toEqual(["upTo"]);
    expect(await t.db("messages").where({ conversation_id: id }).pluck("status")).toEqual(["sent"]);
  });
});
