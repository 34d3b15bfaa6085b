/**
 * Message monitoring (ADR 017), through the real server with JavaScript off and through its
 * operations: admins only (members are sent home or refused and change nothing); the list with its search
 * and filters, flagged conversations first (messaging's off-platform flags before an admin's); a
 * conversation's messages, whose every reading is audited; flag and unflag; delete after its
 * confirmation, which removes the messages and, once committed, their files.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import http from "node:http";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteConversationAsAdmin, flagConversationAsAdmin, listConversationsForAdmin, readConversation } from "~/operations/admin-conversations.server";
import { sendMessage, startConversation } from "~/operations/messages.server";
import { getEnv } from "~/server/env.server";
import { storeMessageFiles } from "~/server/files/message-files.server";
import { DELETE_CONVERSATION_CONFIRM } from "~/schemas/monitoring";
import { orderFilePath } from "~/server/files/order-files.server";
import { startEffects } from "../../worker/effects-runner.server";
import { createSession, createUser, type TestUser } from "../support/factories";
import { decode } from "../support/html";
import { rowCount } from "../support/order-checks";
import { memberActor, orderTestContext } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";
import { words } from "../support/words";

// Files stored by this file's operations, the server and the worker all live here (read before anything reads the environment).
const uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-admin-messages-"));
process.env.UPLOAD_DIR = uploadDir;
const t = orderTestContext("admin_msgs", { admin: { name: "Monitor Admin" } });
const db = () => ({ db: t.db });

let server: TestServer;
let adminCookie: string;
let memberCookie: string;
let people: Record<"akello" | "okello" | "nakato" | "mugisha" | "sarah" | "brian" | "quiet1" | "quiet2", TestUser>;
/** off-platform (phone number); admin-flagged later; busy and old; with a file; no match anywhere. */
let offPlatform: string;
let ordinary: string;
let busy: string;
let withFile: string;
let storedKey: string;

async function conversation(a: TestUser, b: TestUser, bodies: string[]) {
  const started = await startConversation(memberActor(a), { userId: b.id }, db());
  if (!started.ok) throw new Error(JSON.stringify(started));
  let from = a;
  for (const body of bodies) {
    const sent = await sendMessage(memberActor(from), { conversationId: started.value.conversationId, body }, db());
    if (!sent.ok) throw new Error(JSON.stringify(sent));
    from = from === a ? b : a;
  }
  return started.value.conversationId;
}

beforeAll(async () => {
  const make = (name: string, role: "client" | "freelancer", email: string) => createUser(t.db, { name, role, email });
  people = {
    akello: await make("Akello Joan", "client", "akello@example.ug"),
    okello: await make("Okello Peter", "freelancer", "okello@example.ug"),
    nakato: await make("Nakato Grace", "client", "nakato@example.ug"),
    mugisha: await make("Mugisha Paul", "freelancer", "mugisha@example.ug"),
    sarah: await make("Sarah Namuli", "client", "sarah.namuli@example.ug"),
    brian: await make("Brian Ssemakula", "freelancer", "brian@example.ug"),
    quiet1: await make("Quiet One", "client", "quiet1@example.ug"),
    quiet2: await make("Quiet Two", "freelancer", "quiet2@example.ug"),
  };
  busy = await conversation(people.sarah, people.brian, ["Hello", "Hi Sarah", "A website for my salon?", "Yes, five pages", "Price?", "UGX 400,000"]);
  // Three days quiet: not "recent".
  await t
    .db("conversations")
    .where({ id: busy })
    .update({ last_message_at: t.db.raw("now() - interval '3 days'"), updated_at: t.db.raw("now() - interval '3 days'") });
  await t
    .db("messages")
    .where({ conversation_id: busy })
    .update({ created_at: t.db.raw("now() - interval '3 days'") });
  ordinary = await conversation(people.nakato, people.mugisha, ["Can you design an invoice template?", "Sure"]);
  offPlatform = await conversation(people.akello, people.okello, ["I need a logo", "Call me on 0772 123456 to agree the price"]);
  // A real picture: message images are decoded before they are kept.
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#2e7d32" } })
    .png()
    .toBuffer();
  const [file] = await storeMessageFiles([{ name: "brief.png", bytes: new Uint8Array(png) }], { userId: people.quiet1.id, db: t.db });
  storedKey = file!.storageKey;
  withFile = await conversation(people.quiet1, people.quiet2, []);
  expect((await sendMessage(memberActor(people.quiet1), { conversationId: withFile, body: "Here is the brief", attachments: [file!] }, db())).ok).toBe(true);

  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, UPLOAD_DIR: uploadDir });
  adminCookie = `soko_session=${await createSession(t.db, t.admin.id)}`;
  memberCookie = `soko_session=${await createSession(t.db, people.akello.id)}`;
});
afterAll(async () => {
  await server?.stop();
  fs.rmSync(uploadDir, { recursive: true, force: true });
});

/** A request to the test server as a visitor of one host (a Host header: Node's fetch cannot set one). */
function request(host: "main" | "admin", method: "GET" | "POST", target: string, { cookie, form }: { cookie?: string; form?: Record<string, string> } = {}) {
  const origin = host === "admin" ? server.adminUrl : server.baseUrl;
  const body = form ? new URLSearchParams(form).toString() : undefined;
  const headers: Record<string, string> = { Host: new URL(origin).host, Origin: origin };
  if (cookie) headers.Cookie = cookie;
  if (body) headers["Content-Type"] = "application/x-www-form-urlencoded";
  return new Promise<{ status: number; location: string | undefined; body: string }>((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, method, path: target, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body: decode(text.replace(/<!-- -->/g, "")) }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const admin = (target: string) => request("admin", "GET", target, { cookie: adminCookie });
const post = (form: Record<string, string>, target = "/messages", cookie = adminCookie) => request("admin", "POST", target, { cookie, form });
/** The conversation ids in the order the list shows them (each row's Read link). */
const listed = (html: string) => [...html.matchAll(/[?&;]conversation=(conv_[a-z0-9]+)/g)].map((m) => m[1]!).filter((id, i, all) => all.indexOf(id) === i);
const audits = (action: string, targetId: string) => t.db("admin_audit_log").where({ action, target_id: targetId }).orderBy("id");

describe("who may monitor messages", () => {
  it("admins only: members are sent home (main host) or refused (admin host); their posts change nothing", async () => {
    expect(await request("main", "GET", "/admin/messages", { cookie: memberCookie })).toMatchObject({ status: 302, location: "/" });
    expect((await request("admin", "GET", `/messages?conversation=${offPlatform}`, { cookie: memberCookie })).status).toBe(403);
    expect((await request("main", "GET", "/admin/messages")).location).toBe("/login?redirectTo=%2Fadmin%2Fmessages");
    expect((await post({ intent: "delete", conversationId: ordinary }, "/messages", memberCookie)).status).toBe(403);
    expect(await request("main", "POST", "/admin/messages", { cookie: memberCookie, form: { intent: "flag", conversationId: ordinary } })).toMatchObject({
      status: 302,
      location: "/",
    });
    expect(await t.db("conversations").where({ id: ordinary }).first("flagged_at")).toEqual({ flagged_at: null });
    expect(await rowCount(t.db("messages").where({ conversation_id: ordinary }))).toBe(2);
    expect(await rowCount(t.db("admin_audit_log"))).toBe(0);
  });

  it("the operations refuse a member, whatever door they come from", async () => {
    const member = memberActor(people.akello);
    expect(await listConversationsForAdmin(member, { q: "", filter: "all", page: 1 }, db())).toMatchObject({ ok: false, error: "forbidden" });
    expect(await readConversation(member, { conversationId: ordinary }, db())).toMatchObject({ ok: false, error: "forbidden" });
    expect(await flagConversationAsAdmin(member, { conversationId: ordinary, flagged: true }, db())).toMatchObject({ ok: false, error: "forbidden" });
    expect(await deleteConversationAsAdmin(member, { conversationId: ordinary }, db())).toMatchObject({ ok: false, error: "forbidden" });
    expect(await rowCount(t.db("conversations").where({ id: ordinary }))).toBe(1);
    expect(await rowCount(t.db("admin_audit_log"))).toBe(0);
  });
});

describe("the list", () => {
  it("shows every conversation, the off-platform flag first, each with its participants, count and last message", async () => {
    for (const page of [await admin("/messages"), await request("main", "GET", "/admin/messages", { cookie: adminCookie })]) {
      expect(page.status).toBe(200);
      const order = listed(page.body);
      expect(order).toHaveLength(4);
      expect(order[0]).toBe(offPlatform);
      expect(page.body).toContain("Off-platform: a phone number");
      expect(page.body).toContain("Akello Joan");
      expect(page.body).toContain("akello@example.ug");
      expect(page.body).toContain("okello@example.ug");
      expect(page.body).toContain("Okello Peter:</span> Call me on 0772 123456 to agree the price");
      expect(page.body).toContain("6 messages");
    }
  });

  it("searches names, emails and message text, and says when nothing matches", async () => {
    expect(listed((await admin("/messages?q=namuli")).body)).toEqual([busy]);
    expect(listed((await admin("/messages?q=MUGISHA%40example")).body)).toEqual([ordinary]);
    expect(listed((await admin("/messages?q=invoice%20template")).body)).toEqual([ordinary]);
    // LIKE's own characters are text, not wildcards.
    expect(listed((await admin("/messages?q=%25")).body)).toEqual([]);
    const none = await admin("/messages?q=nothing-like-this");
    expect(none.body).toContain("No conversations found");
  });

  it("filters: flagged, recent (a message in the last 24 hours), high volume (most messages first); unknown values show all", async () => {
    expect(listed((await admin("/messages?filter=flagged")).body)).toEqual([offPlatform]);
    expect(listed((await admin("/messages?filter=recent")).body).sort()).toEqual([ordinary, offPlatform, withFile].sort());
    expect(listed((await admin("/messages?filter=high_volume")).body)[0]).toBe(busy);
    const odd = await admin("/messages?filter=%3Cscript%3E&page=-4");
    expect(odd.status).toBe(200);
    expect(listed(odd.body)).toHaveLength(4);
  });
});

describe("reading a conversation", () => {
  it("shows its messages (sender, text, time, the off-platform marker) and writes conversation.read", async () => {
    const page = await admin(`/messages?conversation=${offPlatform}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain("Conversation between Akello Joan and Okello Peter");
    expect(page.body).toContain("I need a logo");
    expect(page.body).toMatch(/Okello Peter<\/span> <time[^>]*>[^<]+<\/time><span class="monitor-marker"> Off-platform payment talk/);
    const rows = await audits("conversation.read", offPlatform);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ admin_id: t.admin.id, admin_name: "Monitor Admin", target_type: "conversation" });
    expect(rows[0].details).toMatchObject({ participants: [people.akello.id, people.okello.id].sort((a, b) => a - b), messages: 2 });
  });

  it("lists a message's attachments", async () => {
    const page = await admin(`/messages?conversation=${withFile}`);
    expect(page.body).toContain("Here is the brief");
    expect(page.body).toContain("brief.png (image/png, 1 KB)");
  });

  it("an unknown or malformed conversation is a 404 and writes nothing", async () => {
    const before = await rowCount(t.db("admin_audit_log"));
    expect((await admin("/messages?conversation=conv_doesnotexist000")).status).toBe(404);
    expect((await admin("/messages?conversation=../../etc")).status).toBe(404);
    expect(await rowCount(t.db("admin_audit_log"))).toBe(before);
  });
});

describe("flag and unflag", () => {
  it("flags with reason 'admin', clears either kind of flag, and audits both", async () => {
    const flagged = await post({ intent: "flag", conversationId: ordinary }, "/messages?q=nakato");
    expect(flagged.status).toBe(303);
    expect(flagged.location).toBe(`/messages?q=nakato&conversation=${ordinary}&done=flag&done_id=${ordinary}`);
    expect(await t.db("conversations").where({ id: ordinary }).first("flag_reason")).toEqual({ flag_reason: "admin" });
    expect((await admin(flagged.location!)).body).toContain("Conversation flagged for review.");
    // Flagged first: messaging's off-platform flag, then the admin's, then the rest.
    expect(listed((await admin("/messages")).body).slice(0, 2)).toEqual([offPlatform, ordinary]);

    expect((await post({ intent: "unflag", conversationId: offPlatform })).status).toBe(303);
    expect(await t.db("conversations").where({ id: offPlatform }).first("flagged_at", "flag_reason")).toEqual({ flagged_at: null, flag_reason: null });
    expect((await audits("conversation.flag", ordinary))[0]).toMatchObject({ admin_id: t.admin.id, details: { changed: true, previousReason: null } });
    expect((await audits("conversation.unflag", offPlatform))[0]).toMatchObject({ details: { changed: true, previousReason: "off_platform:phone_number" } });
    // Flagging an already flagged one keeps its reason.
    await flagConversationAsAdmin(memberActor(t.admin), { conversationId: offPlatform, flagged: true }, db());
    await t.db("conversations").where({ id: offPlatform }).update({ flag_reason: "off_platform:phone_number" });
    await flagConversationAsAdmin(memberActor(t.admin), { conversationId: offPlatform, flagged: true }, db());
    expect(await t.db("conversations").where({ id: offPlatform }).first("flag_reason")).toEqual({ flag_reason: "off_platform:phone_number" });
  });

  it("refuses bad input with a 4xx and a message, changing nothing", async () => {
    const before = await rowCount(t.db("admin_audit_log"));
    const noIntent = await post({ conversationId: busy });
    expect(noIntent.status).toBe(400);
    expect(noIntent.body).toContain("Choose flag, unflag or delete.");
    const badId = await post({ intent: "flag", conversationId: "not-a-conversation" });
    expect(badId.status).toBe(400);
    expect(badId.body).toContain("We could not find that conversation.");
    expect((await post({ intent: "flag", conversationId: "conv_doesnotexist000" })).status).toBe(404);
    expect(await rowCount(t.db("admin_audit_log"))).toBe(before);
    expect(await t.db("conversations").where({ id: busy }).first("flagged_at")).toEqual({ flagged_at: null });
  });
});

describe("delete", () => {
  it("asks first in its own words (a page of its own without JavaScript), then deletes the messages and, after the commit, their files", async () => {
    const reads = await rowCount(t.db("admin_audit_log").where({ action: "conversation.read", target_id: withFile }));
    const confirm = await admin(`/messages?conversation=${withFile}&confirm=delete`);
    expect(confirm.status).toBe(200);
    expect(confirm.body).toContain(words(DELETE_CONVERSATION_CONFIRM));
    expect(confirm.body).toContain("Delete the conversation between Quiet One and Quiet Two?");
    // It asks; it shows no messages (so it is no reading).
    expect(confirm.body).not.toContain('class="monitor-thread"');
    expect(await rowCount(t.db("admin_audit_log").where({ action: "conversation.read", target_id: withFile }))).toBe(reads);
    const file = orderFilePath(storedKey, uploadDir)!;
    expect(fs.existsSync(file)).toBe(true);

    const deleted = await post({ intent: "delete", conversationId: withFile });
    expect(deleted).toMatchObject({ status: 303, location: `/messages?done=delete&done_id=${withFile}` });
    expect((await admin(deleted.location!)).body).toContain("Conversation deleted, with its messages and files.");
    expect(await rowCount(t.db("conversations").where({ id: withFile }))).toBe(0);
    expect(await rowCount(t.db("messages").where({ conversation_id: withFile }))).toBe(0);
    expect(await rowCount(t.db("conversation_participants").where({ conversation_id: withFile }))).toBe(0);
    expect(await rowCount(t.db("message_attachments").where({ storage_key: storedKey }))).toBe(0);
    expect(await rowCount(t.db("notifications").where({ conversation_id: withFile }))).toBe(0);
    expect((await audits("conversation.delete", withFile))[0]).toMatchObject({
      admin_id: t.admin.id,
      details: { participants: [people.quiet1.id, people.quiet2.id], messageCount: 1, files: 1 },
    });
    // The file waits for the worker: it goes once the deletion has committed.
    expect(fs.existsSync(file)).toBe(true);
    const worker = startEffects(getEnv(), { db: t.db, pollMs: 25 });
    try {
      await expect.poll(() => fs.existsSync(file), { timeout: 5_000 }).toBe(false);
    } finally {
      await worker.close();
    }
    // Deleting it again: it is gone.
    expect((await post({ intent: "delete", conversationId: withFile })).status).toBe(404);
  });

  it("a delete that fails leaves the conversation and its files", async () => {
    expect(await deleteConversationAsAdmin(memberActor(t.admin), { conversationId: "conv_doesnotexist000" }, db())).toMatchObject({
      ok: false,
      error: "not_found",
    });
    expect(await rowCount(t.db("effects").where({ kind: "delete_file" }))).toBe(1);
    expect(await rowCount(t.db("conversations").where({ id: busy }))).toBe(1);
  });
});
