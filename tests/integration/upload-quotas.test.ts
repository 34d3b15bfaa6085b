/**
 * One upload quota for every stored file (ADR 031), through the real built server as a browser without
 * JavaScript posts its forms: message attachments count by file and by byte per minute (20 files, 25 MB), a
 * send over it is refused (429, Retry-After, the reason beside the files field) with no message and no file
 * stored; the quota is the member's own (another member still sends) and shared by every kind of file (a
 * gig image or a checkout's file after 20 attachments is refused too); and a member whose files already fill the storage cap
 * cannot store more (400 beside the field, nothing stored).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConversation } from "~/operations/messages.server";
import { createSession, createUser, type TestUser } from "../support/factories";
import { decode } from "../support/html";
import { gigFormData } from "../support/gig-form";
import { memberActor, orderTestContext } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const t = orderTestContext("uploadquota", { parties: { seller: { name: "Nakato Sarah" }, buyer: { name: "Okello James" } } });
let server: TestServer;
let uploadDir: string;
const tokens = new Map<number, string>();

const MB = 1024 * 1024;
const MINUTE_QUOTA = "You have uploaded many files in the last minute (at most 20 files or 25 MB a minute). Please wait a minute and try again.";

/** A real PNG (message images are decoded before they are kept). */
let PNG: Uint8Array<ArrayBuffer>;

beforeAll(async () => {
  PNG = new Uint8Array(
    await sharp({ create: { width: 24, height: 16, channels: 3, background: "#2e7d32" } })
      .png()
      .toBuffer(),
  );
  // The parties' gig made the category already.
  for (const u of [t.seller, t.buyer]) tokens.set(u.id, await createSession(t.db, u.id));
  uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-upload-quotas-"));
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, UPLOAD_DIR: uploadDir, PAYMENTS_SANDBOX: "1" });
});
afterAll(async () => {
  await server?.stop();
  if (uploadDir) fs.rmSync(uploadDir, { recursive: true, force: true });
});

async function member(name: string): Promise<TestUser> {
  const user = await createUser(t.db, { role: "client", name });
  tokens.set(user.id, await createSession(t.db, user.id));
  return user;
}

async function conversationWith(who: TestUser, other: TestUser): Promise<string> {
  const started = await startConversation(memberActor(who), { userId: other.id }, { db: t.db });
  if (!started.ok) throw new Error(JSON.stringify(started));
  return started.value.conversationId;
}

function post(urlPath: string, who: TestUser, body: FormData) {
  return fetch(`${server.baseUrl}${urlPath}`, {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: `soko_session=${tokens.get(who.id)}`, Origin: server.baseUrl },
    body,
  });
}

/** The send form as the page posts it: multipart, with its client id and files. */
function sendForm(body: string, files: File[]) {
  const form = new FormData();
  form.set("body", body);
  form.set("clientId", `c${Math.random().toString(36).slice(2)}`);
  for (const f of files) form.append("files", f);
  return form;
}
const pngs = (n: number) => Array.from({ length: n }, (_, i) => new File([PNG], `photo-${i}.png`, { type: "image/png" }));

/** The messages shown in the list with this id (a field's errors), as a person reads them. */
function errorsIn(html: string, id: string): string[] {
  const list = new RegExp(`<ul[^>]*id="${id}"[^>]*>(.*?)</ul>`, "s").exec(html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, ""));
  return list ? [...list[1]!.matchAll(/<li>(.*?)<\/li>/gs)].map((m) => decode(m[1]!)) : [];
}

const messageCount = async (conversationId: string) => (await t.db("messages").where({ conversation_id: conversationId }).pluck("id")).length;
/** Files kept on disk: message and order files, and every size of every image. */
const storedFiles = () => {
  const orderFiles = path.join(uploadDir, "order-files");
  return {
    files: fs.existsSync(orderFiles) ? fs.readdirSync(orderFiles).length : 0,
    images: fs.readdirSync(uploadDir).filter((name) => name.endsWith(".webp")).length,
  };
};

async function sent(conversationId: string, who: TestUser, files: File[]) {
  const res = await post(`/messages/${conversationId}`, who, sendForm(`${files.length} files`, files));
  await res.arrayBuffer();
  expect(res.status).toBe(303);
}

describe("message attachments count against one upload quota per member", () => {
  let conversationId: string;
  beforeAll(async () => {
    conversationId = await conversationWith(t.buyer, t.seller);
  });

  it("refuses files past 20 a minute with the reason beside the field and 429, storing no file and no message", async () => {
    for (let i = 0; i < 4; i++) await sent(conversationId, t.buyer, pngs(5)); // the minute's 20 files
    const [messagesBefore, filesBefore] = [await messageCount(conversationId), storedFiles()];

    const refused = await post(`/messages/${conversationId}`, t.buyer, sendForm("One more photo", pngs(1)));

    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(errorsIn(await refused.text(), "chat-files-error")).toEqual([MINUTE_QUOTA]);
    expect(await messageCount(conversationId)).toBe(messagesBefore);
    expect(storedFiles()).toEqual(filesBefore);
  });

  it("is each member's own: the other member still sends files", async () => {
    await sent(conversationId, t.seller, pngs(1));
    expect(await t.db("messages").where({ conversation_id: conversationId, sender_id: t.seller.id, message_type: "file" }).pluck("id")).toHaveLength(1);
  });

  it("is shared by every kind of file: after 20 attachments in a minute, a gig image is refused too (429 beside the upload field), nothing stored", async () => {
    // The seller sent one file above; 19 more make the minute's 20.
    for (const n of [5, 5, 5, 4]) await sent(conversationId, t.seller, pngs(n));
    const [uploadsBefore, filesBefore] = [await t.db("uploads").where({ owner_id: t.seller.id }).pluck("storage_key"), storedFiles()];
    const cover = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#d35400" } })
      .png()
      .toBuffer();

    const refused = await post("/gig/create", t.seller, gigFormData([cover]));

    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(errorsIn(await refused.text(), "upload-error")).toEqual([MINUTE_QUOTA]);
    expect(await t.db("uploads").where({ owner_id: t.seller.id }).pluck("storage_key")).toEqual(uploadsBefore);
    expect(await t.db("gigs").where({ seller_id: t.seller.id }).pluck("id")).toHaveLength(1); // the parties' gig only
    expect(storedFiles()).toEqual(filesBefore);
  });

  it("is shared by checkout files too: after 20 attachments in a minute, a checkout's requirement file is refused (429 beside the files field), no order placed", async () => {
    const buyer = await member("Busy Buyer");
    const withSeller = await conversationWith(buyer, t.seller);
    for (let i = 0; i < 4; i++) await sent(withSeller, buyer, pngs(5));
    const filesBefore = storedFiles();
    const form = new FormData();
    const fields = {
      gigId: String(t.gigId),
      tier: "basic",
      requirements: "A green logo",
      msisdn: "+256 772 123 456",
      network: "mtn",
      checkoutKey: `checkout-${Date.now()}-key`,
    };
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append("files", new File(["%PDF-1.4 the brief"], "brief.pdf", { type: "application/pdf" }));

    const refused = await post(`/gig/${t.gigId}/order`, buyer, form);

    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(errorsIn(await refused.text(), "files-error")).toEqual([MINUTE_QUOTA]);
    expect(await t.db("orders").where({ buyer_id: buyer.id }).pluck("id")).toEqual([]);
    expect(storedFiles()).toEqual(filesBefore);
  });

  it("counts bytes too: past 25 MB a minute the send is refused, storing nothing", async () => {
    const sender = await member("Big Sender");
    const withSeller = await conversationWith(sender, t.seller);
    // PDFs are kept as sent: 5 of 2 MB are 10 MB a message.
    const pdfs = () =>
      Array.from(
        { length: 5 },
        (_, i) => new File([Buffer.concat([Buffer.from("%PDF-1.4\n"), Buffer.alloc(2 * MB - 9, 0x20)])], `scan-${i}.pdf`, { type: "application/pdf" }),
      );
    await sent(withSeller, sender, pdfs());
    await sent(withSeller, sender, pdfs());
    const [messagesBefore, filesBefore] = [await messageCount(withSeller), storedFiles()];

    const refused = await post(`/messages/${withSeller}`, sender, sendForm("The last scans", pdfs()));

    expect(refused.status).toBe(429);
    expect(errorsIn(await refused.text(), "chat-files-error")).toEqual([MINUTE_QUOTA]);
    expect(await messageCount(withSeller)).toBe(messagesBefore);
    expect(storedFiles()).toEqual(filesBefore);
    // What was refused was not counted: 5 MB more still fit in the minute's 25.
    await sent(withSeller, sender, [
      new File([Buffer.concat([Buffer.from("%PDF-1.4\n"), Buffer.alloc(4 * MB, 0x20)])], "small.pdf", { type: "application/pdf" }),
    ]);
  });
});

describe("the storage cap", () => {
  it("refuses a file that would take a member past 1 GB kept (400 beside the field), storing nothing", async () => {
    const keeper = await member("Heavy Keeper");
    const conversationId = await conversationWith(keeper, t.seller);
    // What the member keeps already: one message's files, 10 bytes short of 1 GB.
    const [message] = await t.db("messages").insert({ conversation_id: conversationId, sender_id: keeper.id, body: "Archive", message_type: "file" }, ["id"]);
    await t.db("message_attachments").insert({
      message_id: message.id,
      storage_key: "0b9f3f1e-0000-4000-8000-000000000001",
      file_name: "archive.pdf",
      content_type: "application/pdf",
      size_bytes: 1024 * MB - 10,
    });
    const [messagesBefore, filesBefore] = [await messageCount(conversationId), storedFiles()];

    const refused = await post(`/messages/${conversationId}`, keeper, sendForm("One more", pngs(1)));

    expect(refused.status).toBe(400);
    expect(errorsIn(await refused.text(), "chat-files-error")).toEqual([
      "These files would take you past the 1 GB of files one member may keep on Soko (yours take 1 GB now).",
    ]);
    expect(await messageCount(conversationId)).toBe(messagesBefore);
    expect(storedFiles()).toEqual(filesBefore);
  });
});
