/**
 * The /messages pages through the real built server, as a browser without JavaScript uses them: Contact
 * Seller from a gig (one conversation, found again on the second press), a message posted (303 back to the
 * thread, shown there as text), the rules a post meets (empty, too long, a file that is not an image or a
 * PDF: 400 with the message beside the box, nothing stored), files (a PDF served as a download; a file over
 * 10 MB, a corrupt image and one of too many pixels refused), a conversation of other members (404 for the
 * page, the post and its files, nothing stored), the list's search and marks, and the off-platform warning
 * and flag before an order exists.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OFF_PLATFORM_WARNING } from "~/domain/off-platform";
import { words } from "../support/words";
import { createSession, createUser, type TestUser } from "../support/factories";
import { decode } from "../support/html";
import { orderTestContext } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const t = orderTestContext("msgroutes", {
  parties: {
    seller: { name: "Nakato Sarah", username: "nakato_msg" },
    buyer: { name: "Okello James", username: "okello_msg" },
    gig: { title: "Logo for a juice stall" },
  },
});
let server: TestServer;
let uploadDir: string;
const tokens = new Map<number, string>();
let stranger: TestUser;

beforeAll(async () => {
  stranger = await createUser(t.db, { role: "client", name: "Other Member", username: "other_msg" });
  for (const u of [t.seller, t.buyer, stranger]) tokens.set(u.id, await createSession(t.db, u.id));
  uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-message-routes-"));
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, UPLOAD_DIR: uploadDir, PAYMENTS_SANDBOX: "1" });
});
afterAll(async () => {
  await server?.stop();
  if (uploadDir) fs.rmSync(uploadDir, { recursive: true, force: true });
});

function get(urlPath: string, who?: TestUser) {
  return fetch(`${server.baseUrl}${urlPath}`, { redirect: "manual", headers: who ? { Cookie: `soko_session=${tokens.get(who.id)}` } : {} });
}

function post(urlPath: string, who: TestUser | null, body: Record<string, string> | FormData) {
  return fetch(`${server.baseUrl}${urlPath}`, {
    method: "POST",
    redirect: "manual",
    headers: { ...(who ? { Cookie: `soko_session=${tokens.get(who.id)}` } : {}), Origin: server.baseUrl },
    body: body instanceof FormData ? body : new URLSearchParams(body),
  });
}

/** The page without its scripts (loader data travels in them): what a person reads, tags kept. */
const visible = (html: string) => decode(html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "").replace(/ data-discover="true"/g, ""));
const text = (html: string) =>
  visible(html)
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ");

async function page(urlPath: string, who: TestUser) {
  const res = await get(urlPath, who);
  expect(res.status, urlPath).toBe(200);
  return visible(await res.text());
}

/** The send form as the page posts it: multipart, with its hidden client id. */
function sendForm(body: string, { clientId, files = [] }: { clientId?: string; files?: File[] } = {}) {
  const form = new FormData();
  form.set("body", body);
  form.set("clientId", clientId ?? `c${Math.random().toString(36).slice(2)}`);
  for (const f of files) form.append("files", f);
  if (!files.length) form.append("files", new File([], "", { type: "application/octet-stream" }));
  return form;
}

const messagesOf = (conversationId: string) => t.db("messages").where({ conversation_id: conversationId }).orderBy("id");
/** The messages in the list with this id (a field's errors). */
function errorsIn(html: string, id: string): string[] {
  const list = new RegExp(`<ul[^>]*id="${id}"[^>]*>(.*?)</ul>`, "s").exec(html);
  return list ? [...list[1]!.matchAll(/<li>(.*?)<\/li>/gs)].map((m) => m[1]!) : [];
}

/** A real PNG (images are decoded before they are kept, so its signature alone would be refused); made before the tests. */
let PNG: Uint8Array<ArrayBuffer>;
beforeAll(async () => {
  PNG = new Uint8Array(
    await sharp({ create: { width: 48, height: 32, channels: 3, background: "#d35400" } })
      .png()
      .toBuffer(),
  );
});

describe("Contact Seller and a conversation without JavaScript", () => {
  let conversationId = "";

  it("starts one conversation from the gig and finds it again on the second press", async () => {
    const gigPage = visible(await (await get(`/gig/${t.gigId}`, t.buyer)).text());
    // The member's button posts to /messages with the gig.
    expect(gigPage).toMatch(new RegExp(`<form method="post" action="/messages"[^>]*>.*?name="gigId" value="${t.gigId}".*?Contact Seller`, "s"));

    const first = await post("/messages", t.buyer, { intent: "start", gigId: String(t.gigId), to: t.seller.username });
    expect(first.status).toBe(303);
    const to = first.headers.get("location")!;
    expect(to).toMatch(/^\/messages\/conv_[a-z0-9]+$/);
    conversationId = to.split("/").pop()!;
    const second = await post("/messages", t.buyer, { intent: "start", gigId: String(t.gigId), to: t.seller.username });
    expect(second.status).toBe(303);
    expect(second.headers.get("location")).toBe(to);
    const rows = await t.db("conversations").where({ pair_key: `${Math.min(t.buyer.id, t.seller.id)}:${Math.max(t.buyer.id, t.seller.id)}` });
    expect(rows).toHaveLength(1);
    expect(Number(rows[0].gig_id)).toBe(t.gigId);

    const thread = await page(to, t.buyer);
    expect(text(thread)).toContain("Nakato Sarah");
    expect(text(thread)).toContain("About Logo for a juice stall");
    expect(text(thread)).toContain("No messages yet.");
  });

  it("sends a visitor who presses Contact to sign in first", async () => {
    const res = await post("/messages", null, { intent: "start", gigId: String(t.gigId), to: t.seller.username });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toMatch(/^\/login\?redirectTo=/);
  });

  it("posts a message (303 back to the thread) and shows it as text, marked Sent", async () => {
    const body = "Hello <b>Sarah</b>, can you start on Monday? See https://evil.example";
    const res = await post(`/messages/${conversationId}`, t.buyer, sendForm(body));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/messages/${conversationId}`);
    const stored = await messagesOf(conversationId);
    expect(stored.map((m) => m.body)).toEqual([body]);

    const raw = (await (await get(`/messages/${conversationId}`, t.buyer)).text()).replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "");
    // Escaped, never markup; the address is not a link.
    expect(raw).toContain("Hello &lt;b&gt;Sarah&lt;/b&gt;");
    expect(raw).not.toContain("<b>Sarah</b>");
    expect(raw).not.toContain('href="https://evil.example');
    const thread = visible(raw);
    expect(thread).toContain(body);
    expect(text(thread)).toMatch(/You .*? Hello Sarah .*? Sent/);
  });

  it("lists it for the seller with an unread count; opening it reads it and the buyer then sees Read", async () => {
    const list = await page("/messages", t.seller);
    expect(text(list)).toContain("Okello James");
    expect(list).toContain('aria-label="Messages, 1 unread"');
    expect(list).toMatch(/class="chat-unread"[^>]*>1<span class="visually-hidden"> unread<\/span>/);
    // Loading /messages delivered it.
    expect((await messagesOf(conversationId))[0].status).toBe("delivered");
    expect(text(await page(`/messages/${conversationId}`, t.buyer))).toMatch(/Hello .*? Delivered/);

    const thread = await page(`/messages/${conversationId}`, t.seller);
    expect(text(thread)).toContain("Okello James");
    expect(thread).not.toMatch(/class="chat-unread"/);
    // The header counts after the reading, though the root loader ran beside the thread's.
    expect(thread).not.toContain("Messages, 1 unread");
    expect((await messagesOf(conversationId))[0].status).toBe("read");
    expect(text(await page(`/messages/${conversationId}`, t.buyer))).toMatch(/Hello .*? Read/);
  });

  it("searches names and message text on the server", async () => {
    expect(text(await page("/messages?q=monday", t.seller))).toContain("Okello James");
    expect(text(await page("/messages?q=Okello", t.seller))).toContain("Okello James");
    const none = text(await page("/messages?q=nothing-like-this", t.seller));
    expect(none).toContain("No results found");
    expect(none).not.toContain("Okello James");
    expect(text(await page("/messages", stranger))).toContain("No conversations yet");
  });

  it("refuses an empty message and one over 5,000 characters (400, the message beside the box, nothing stored)", async () => {
    const before = (await messagesOf(conversationId)).length;
    const empty = await post(`/messages/${conversationId}`, t.buyer, sendForm("   "));
    expect(empty.status).toBe(400);
    expect(errorsIn(visible(await empty.text()), "chat-body-error")).toEqual(["Write a message"]);
    const long = await post(`/messages/${conversationId}`, t.buyer, sendForm("a".repeat(5001)));
    expect(long.status).toBe(400);
    expect(errorsIn(visible(await long.text()), "chat-body-error")).toEqual(["Keep a message to at most 5,000 characters"]);
    expect(await messagesOf(conversationId)).toHaveLength(before);
  });

  it("stores a double submit (the same client id) once", async () => {
    const before = (await messagesOf(conversationId)).length;
    for (let i = 0; i < 2; i++)
      expect((await post(`/messages/${conversationId}`, t.buyer, sendForm("Only once, please", { clientId: "same-id-1" }))).status).toBe(303);
    expect(await messagesOf(conversationId)).toHaveLength(before + 1);
  });

  it("takes an image, serves it only to the two members, and refuses a program renamed .pdf", async () => {
    const res = await post(`/messages/${conversationId}`, t.buyer, sendForm("My shop front", { files: [new File([PNG], "shop.png", { type: "image/png" })] }));
    expect(res.status).toBe(303);
    const file = await t.db("message_attachments").orderBy("id", "desc").first();
    expect(file.file_name).toBe("shop.png");
    expect(file.content_type).toBe("image/png");
    const url = `/messages/${conversationId}/files/${file.id}`;
    expect(await page(`/messages/${conversationId}`, t.seller)).toContain(`href="${url}"`);

    const download = await get(url, t.seller);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("image/png");
    expect(download.headers.get("content-disposition")).toBe('inline; filename="shop.png"');
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
    // The picture made again from its pixels (metadata dropped): still a 48 x 32 PNG.
    expect(await sharp(Buffer.from(await download.arrayBuffer())).metadata()).toMatchObject({ format: "png", width: 48, height: 32 });

    for (const [who, path] of [
      [stranger, url],
      [t.seller, `/messages/${conversationId}/files/999999`],
    ] as const) {
      const res = await get(path, who);
      await res.arrayBuffer();
      expect(res.status).toBe(404);
    }

    const before = (await messagesOf(conversationId)).length;
    const exe = new Uint8Array([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0xff, 0xff]);
    const refused = await post(
      `/messages/${conversationId}`,
      t.buyer,
      sendForm("The invoice", { files: [new File([exe], "invoice.pdf", { type: "application/pdf" })] }),
    );
    expect(refused.status).toBe(400);
    expect(errorsIn(visible(await refused.text()), "chat-files-error")).toEqual([
      "invoice.pdf is not a file we accept here: attach images (JPEG, PNG, WebP, GIF) or PDFs",
    ]);
    expect(await messagesOf(conversationId)).toHaveLength(before);
    // Plain text is an order file, not a message's.
    const txt = await post(
      `/messages/${conversationId}`,
      t.buyer,
      sendForm("Notes", { files: [new File(["just words"], "notes.txt", { type: "text/plain" })] }),
    );
    expect(txt.status).toBe(400);
    await txt.arrayBuffer();
    expect(await messagesOf(conversationId)).toHaveLength(before);
  });

  it("is a 404 to anyone else: the thread, a post into it (nothing stored) and an unknown id", async () => {
    const before = (await messagesOf(conversationId)).length;
    for (const path of [`/messages/${conversationId}`, "/messages/conv_doesnotexist00", "/messages/not-an-id"]) {
      const res = await get(path, stranger);
      await res.arrayBuffer();
      expect(res.status, path).toBe(404);
    }
    const res = await post(`/messages/${conversationId}`, stranger, sendForm("Let me in", { files: [new File([PNG], "x.png", { type: "image/png" })] }));
    await res.arrayBuffer();
    expect(res.status).toBe(404);
    expect(await messagesOf(conversationId)).toHaveLength(before);
  });

  it("refuses to start a conversation with nobody or oneself, and with another member's order (4xx, nothing created)", async () => {
    const count = async () => Number((await t.db("conversations").count<{ n: string }[]>({ n: "*" }).first())!.n);
    const before = await count();
    const nobody = await post("/messages", stranger, { intent: "start", to: "no_such_member" });
    await nobody.arrayBuffer();
    expect(nobody.status).toBe(404);
    const self = await post("/messages", stranger, { intent: "start", to: stranger.username });
    expect(self.status).toBe(400);
    expect(text(await self.text())).toContain("You cannot send messages to yourself.");
    const order = await post("/messages", stranger, { intent: "start", orderId: "999999" });
    await order.arrayBuffer();
    expect(order.status).toBe(404);
    const bad = await post("/messages", stranger, { intent: "start", gigId: "not-a-number", to: t.seller.username });
    await bad.arrayBuffer();
    expect(bad.status).toBe(400);
    expect(await count()).toBe(before);
  });

  it("pages a long thread: the newest 50, and Load older messages links to the ones before", async () => {
    const other = await createUser(t.db, { role: "client", name: "Long Talker", username: "long_msg" });
    tokens.set(other.id, await createSession(t.db, other.id));
    const start = await post("/messages", other, { intent: "start", to: t.seller.username });
    const id = start.headers.get("location")!.split("/").pop()!;
    await t.db("messages").insert(Array.from({ length: 55 }, (_, i) => ({ conversation_id: id, sender_id: other.id, body: `Line number ${i + 1}.` })));
    const newest = await page(`/messages/${id}`, other);
    expect(text(newest)).toContain("Line number 55.");
    expect(text(newest)).toContain("Line number 6.");
    expect(text(newest)).not.toContain("Line number 5.");
    const older = /href="[^"?]*(\?before=\d+)">Load older messages</.exec(newest)?.[1];
    expect(older).toBeDefined();
    const page2 = text(await page(`/messages/${id}${older}`, other));
    expect(page2).toContain("Line number 1.");
    expect(page2).toContain("Line number 5.");
    expect(page2).not.toContain("Line number 6.");
    expect(page2).not.toContain("Load older messages");
  });

  it("warns the sender about a phone number before an order, and flags the conversation", async () => {
    const res = await post(`/messages/${conversationId}`, t.buyer, sendForm("Call me on 0772 123 456 and I pay you directly"));
    expect(res.status).toBe(303);
    const thread = text(await page(`/messages/${conversationId}`, t.buyer));
    expect(thread).toContain(words(OFF_PLATFORM_WARNING));
    // The warning is the sender's: the seller reads the message without it.
    expect(text(await page(`/messages/${conversationId}`, t.seller))).not.toContain(words(OFF_PLATFORM_WARNING));
    const row = await t.db("conversations").where({ id: conversationId }).first();
    expect(row.flagged_at).not.toBeNull();
    expect(row.flag_reason).toBe("off_platform:phone_number");
  });

  it("keeps a photo without its metadata: the GPS position and camera never reach the other member", async () => {
    // A phone photo: EXIF with the camera and a GPS position, and an orientation tag (6: turn 90° clockwise).
    const photo = await sharp({ create: { width: 60, height: 40, channels: 3, background: "#1565c0" } })
      .jpeg()
      .withMetadata({ orientation: 6, exif: { IFD0: { Make: "PhoneMaker", Model: "Phone X" }, IFD3: { GPSLatitudeRef: "N", GPSLatitude: "0/1 18/1 5/1" } } })
      .toBuffer();
    const sent = await sharp(photo).metadata();
    expect(sent.exif?.toString("latin1")).toContain("PhoneMaker");
    const res = await post(
      `/messages/${conversationId}`,
      t.buyer,
      sendForm("The stall at dawn", { files: [new File([new Uint8Array(photo)], "dawn.jpg", { type: "image/jpeg" })] }),
    );
    expect(res.status).toBe(303);
    const file = await t.db("message_attachments").orderBy("id", "desc").first();
    expect(file).toMatchObject({ file_name: "dawn.jpg", content_type: "image/jpeg" });
    const download = await get(`/messages/${conversationId}/files/${file.id}`, t.seller);
    const bytes = Buffer.from(await download.arrayBuffer());
    const kept = await sharp(bytes).metadata();
    expect(kept).toMatchObject({ format: "jpeg", width: 40, height: 60 });
    expect(kept.exif).toBeUndefined();
    expect(kept.orientation).toBeUndefined();
    expect(bytes.toString("latin1")).not.toContain("PhoneMaker");
  });

  it("takes a real PDF and serves it to the members as a download, never inline", async () => {
    const pdf = new TextEncoder().encode(
      "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n",
    );
    const res = await post(
      `/messages/${conversationId}`,
      t.buyer,
      sendForm("The quotation", { files: [new File([pdf], "quotation.pdf", { type: "application/pdf" })] }),
    );
    expect(res.status).toBe(303);
    const file = await t.db("message_attachments").orderBy("id", "desc").first();
    expect(file).toMatchObject({ file_name: "quotation.pdf", content_type: "application/pdf", size_bytes: pdf.length });
    const download = await get(`/messages/${conversationId}/files/${file.id}`, t.seller);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/pdf");
    expect(download.headers.get("content-disposition")).toBe('attachment; filename="quotation.pdf"');
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(pdf);
  });

  /** The files kept on disk for messages and orders. */
  const storedFiles = () => (fs.existsSync(path.join(uploadDir, "order-files")) ? fs.readdirSync(path.join(uploadDir, "order-files")).length : 0);

  it("refuses a single file over 10 MB (400, beside the files field), storing nothing", async () => {
    const [before, filesBefore] = [(await messagesOf(conversationId)).length, storedFiles()];
    const big = new Uint8Array(10 * 1024 * 1024 + 1);
    big.set(new TextEncoder().encode("%PDF-1.4\n"));
    const res = await post(
      `/messages/${conversationId}`,
      t.buyer,
      sendForm("The big brochure", { files: [new File([big], "brochure.pdf", { type: "application/pdf" })] }),
    );
    expect(res.status).toBe(400);
    expect(errorsIn(visible(await res.text()), "chat-files-error")).toEqual(["brochure.pdf is over 10 MB"]);
    expect(await messagesOf(conversationId)).toHaveLength(before);
    expect(storedFiles()).toBe(filesBefore);
  });

  it("decodes images as gig images are: a corrupt one with a valid header and one of too many pixels are refused, storing nothing", async () => {
    const [before, filesBefore] = [(await messagesOf(conversationId)).length, storedFiles()];
    // A photo's first 60%: its header is right, its pixels stop short.
    const noise = Buffer.from(Array.from({ length: 120 * 120 * 3 }, (_, i) => (i * 7919) % 251));
    const photo = await sharp(noise, { raw: { width: 120, height: 120, channels: 3 } })
      .png()
      .toBuffer();
    const cut = new Uint8Array(photo.subarray(0, Math.floor(photo.length * 0.6)));
    // A small PNG whose header says 20,000 x 20,000 (its checksum fixed, so the header itself is valid).
    const header = Buffer.from(PNG);
    header.writeUInt32BE(20_000, 16);
    header.writeUInt32BE(20_000, 20);
    header.writeUInt32BE(zlib.crc32(header.subarray(12, 29)) >>> 0, 29);
    const huge = new Uint8Array(header);
    // The signature of a PNG and nothing of one after it.
    const signature = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(64).fill(1)]);
    for (const [name, bytes, error] of [
      ["cut.png", cut, "cut.png could not be read as an image: attach a whole JPEG, PNG, WebP or GIF"],
      ["huge.png", huge, "huge.png is 20000 x 20000 pixels: images can be at most 40 megapixels"],
      ["signature.png", signature, "signature.png could not be read as an image: attach a whole JPEG, PNG, WebP or GIF"],
    ] as const) {
      const res = await post(`/messages/${conversationId}`, t.buyer, sendForm("A picture", { files: [new File([bytes], name, { type: "image/png" })] }));
      expect(res.status, name).toBe(400);
      expect(errorsIn(visible(await res.text()), "chat-files-error"), name).toEqual([error]);
    }
    expect(await messagesOf(conversationId)).toHaveLength(before);
    expect(storedFiles()).toBe(filesBefore);
  });
});
