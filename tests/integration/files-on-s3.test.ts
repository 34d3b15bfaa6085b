/**
 * Files in S3 (ADR 056), through the real built server with S3_BUCKET set and s3rver on 127.0.0.1 as the bucket: a
 * profile picture and a gig's images land in the bucket (nothing in UPLOAD_DIR) and /media streams them back
 * with the year-long cache, making a missing small rendition from its thumb; a message's attachment and a
 * checkout's file are served to their parties and refused (404) to another member; the upload quota refuses a
 * send with nothing written to the bucket; and housekeeping and the worker's effects delete stray and given-up
 * files in the bucket while keeping every file a row names.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runHousekeeping } from "~/operations/housekeeping.server";
import { systemActor } from "~/operations/core.server";
import { startConversation } from "~/operations/messages.server";
import { parseEnv } from "~/server/env.server";
import { readStored, type FileStore } from "~/server/files/file-store.server";
import { startEffects } from "../../worker/effects-runner.server";
import { createSession, createUser, type TestUser } from "../support/factories";
import { gigFormData } from "../support/gig-form";
import { memberActor, orderTestContext } from "../support/orders";
import { startS3, type TestS3 } from "../support/s3";
import { startTestServer, type TestServer } from "../support/test-server";

const BUCKET = "soko-files-test";
const t = orderTestContext("filess3", { parties: { seller: { name: "Nakato Sarah" }, buyer: { name: "Okello James" } } });
let s3: TestS3;
let bucket: FileStore;
let server: TestServer;
let uploadDir: string;
let stranger: TestUser;
const tokens = new Map<number, string>();

beforeAll(async () => {
  s3 = await startS3([BUCKET]);
  bucket = s3.store(BUCKET);
  stranger = await createUser(t.db, { role: "client", name: "Other Member" });
  for (const u of [t.seller, t.buyer, stranger]) tokens.set(u.id, await createSession(t.db, u.id));
  uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-files-s3-"));
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, UPLOAD_DIR: uploadDir, PAYMENTS_SANDBOX: "1", ...s3.env(BUCKET) });
});
afterAll(async () => {
  await server?.stop();
  await s3?.stop();
  if (uploadDir) fs.rmSync(uploadDir, { recursive: true, force: true });
});

const get = (urlPath: string, who?: TestUser) =>
  fetch(`${server.baseUrl}${urlPath}`, { redirect: "manual", headers: who ? { Cookie: `soko_session=${tokens.get(who.id)}` } : {} });
async function post(urlPath: string, who: TestUser, body: FormData) {
  const res = await fetch(`${server.baseUrl}${urlPath}`, {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: `soko_session=${tokens.get(who.id)}`, Origin: server.baseUrl },
    body,
  });
  await res.arrayBuffer();
  return res;
}

/** Every key in the bucket, sorted. */
async function inBucket(prefix = ""): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of bucket.list(prefix)) keys.push(object.key);
  return keys.sort();
}
/** What the web process wrote to its UPLOAD_DIR: nothing, with S3_BUCKET set. */
const onDisk = () => fs.readdirSync(uploadDir);

const png = (width: number, height: number, background: string) =>
  sharp({ create: { width, height, channels: 3, background } })
    .png()
    .toBuffer();

function sendForm(body: string, files: File[]) {
  const form = new FormData();
  form.set("body", body);
  form.set("clientId", `c${Math.random().toString(36).slice(2)}`);
  for (const f of files) form.append("files", f);
  return form;
}

async function conversationWith(who: TestUser, other: TestUser): Promise<string> {
  const started = await startConversation(memberActor(who), { userId: other.id }, { db: t.db });
  if (!started.ok) throw new Error(JSON.stringify(started));
  return started.value.conversationId;
}

describe("images", () => {
  it("stores a profile picture in the bucket and serves it at /media with the year-long cache", async () => {
    const form = new FormData();
    form.append("name", "Okello James");
    form.append("avatar", new Blob([new Uint8Array(await png(600, 400, "#246"))], { type: "image/png" }), "me.png");
    expect((await post("/settings?tab=profile", t.buyer, form)).status).toBe(302);
    const { avatar_key: key } = await t.db("users").where({ id: t.buyer.id }).first("avatar_key");
    expect(await inBucket()).toEqual([`${key}-avatar.webp`]);
    expect(onDisk()).toEqual([]);

    const res = await get(`/media/${key}-avatar.webp`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/webp");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const served = Buffer.from(await res.arrayBuffer());
    expect(served).toEqual(await readStored(bucket, `${key}-avatar.webp`));
    expect(await sharp(served).metadata()).toMatchObject({ format: "webp", width: 256, height: 256 });
    expect((await get(`/media/${key.replace(/^./, "f")}-avatar.webp`)).status).toBe(404);
  });

  it("stores a gig's images in every size, and makes a missing small one from its thumb when it is asked for", async () => {
    expect((await post("/gig/create", t.seller, gigFormData([await png(1600, 1200, "#d35400")]))).status).toBe(302);
    const [{ storage_key: key }] = await t.db("uploads").where({ owner_id: t.seller.id });
    expect(await inBucket(key)).toEqual(["large", "small", "thumb"].map((size) => `${key}-${size}.webp`));

    await bucket.delete(`${key}-small.webp`); // an image stored before the small size existed (ADR 054)
    const res = await get(`/media/${key}-small.webp`);
    expect(res.status).toBe(200);
    expect(await sharp(Buffer.from(await res.arrayBuffer())).metadata()).toMatchObject({ format: "webp", width: 320 });
    expect(await inBucket(key)).toContain(`${key}-small.webp`);
    expect(onDisk()).toEqual([]);
  });
});

describe("private files", () => {
  it("keeps a message's attachment in the bucket and serves it to the conversation's members only", async () => {
    const conversationId = await conversationWith(t.buyer, t.seller);
    const pdf = Buffer.from("%PDF-1.4\n% the quotation\n");
    expect((await post(`/messages/${conversationId}`, t.buyer, sendForm("The quotation", [new File([pdf], "quotation.pdf")]))).status).toBe(303);
    const file = await t.db("message_attachments").orderBy("id", "desc").first();
    expect(await readStored(bucket, `order-files/${file.storage_key}`)).toEqual(pdf);

    const url = `/messages/${conversationId}/files/${file.id}`;
    const download = await get(url, t.seller);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-disposition")).toBe('attachment; filename="quotation.pdf"');
    expect(download.headers.get("cache-control")).toBe("private, no-store");
    expect(Buffer.from(await download.arrayBuffer())).toEqual(pdf);
    const refused = await get(url, stranger);
    expect(refused.status).toBe(404);
    expect(await refused.text()).not.toContain("the quotation");
    expect((await get(url)).status).toBe(302); // signed out: to the login page
    expect(onDisk()).toEqual([]);
  });

  it("keeps a checkout's requirement file in the bucket and serves it to the buyer only until it is paid", async () => {
    const form = new FormData();
    const fields = {
      gigId: String(t.gigId),
      tier: "basic",
      requirements: "A green logo",
      msisdn: "+256 772 123 456",
      network: "mtn",
      checkoutKey: `s3-${Date.now()}-key`,
    };
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append("files", new File(["%PDF-1.4 the brief"], "brief.pdf"));
    const placed = await post(`/gig/${t.gigId}/order`, t.buyer, form);
    expect(placed.status).toBe(303);
    const orderId = Number(/\/orders\/(\d+)/.exec(placed.headers.get("location")!)![1]);
    const file = await t.db("order_files").where({ order_id: orderId }).first();
    expect((await readStored(bucket, `order-files/${file.storage_key}`))!.toString()).toBe("%PDF-1.4 the brief");

    const url = `/orders/${orderId}/files/${file.id}`;
    const res = await get(url, t.buyer);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("%PDF-1.4 the brief");
    // Another member never; the seller not before the checkout is paid (ADR 028).
    for (const other of [stranger, t.seller]) expect((await get(url, other)).status).toBe(404);
  });

  it("answers 404 for a file whose row outlived it in the bucket", async () => {
    const file = await t.db("message_attachments").orderBy("id", "desc").first();
    const conversationId = (await t.db("messages").where({ id: file.message_id }).first("conversation_id")).conversation_id;
    await bucket.delete(`order-files/${file.storage_key}`);
    expect((await get(`/messages/${conversationId}/files/${file.id}`, t.seller)).status).toBe(404);
  });
});

describe("the upload quota on S3", () => {
  it("refuses files past 20 a minute (429) and over the 1 GB cap (400) with nothing written to the bucket", async () => {
    const sender = await createUser(t.db, { role: "client", name: "Busy Sender" });
    tokens.set(sender.id, await createSession(t.db, sender.id));
    const conversationId = await conversationWith(sender, t.seller);
    const photo = new Uint8Array(await png(24, 16, "#2e7d32"));
    const photos = (n: number) => Array.from({ length: n }, (_, i) => new File([photo], `photo-${i}.png`, { type: "image/png" }));
    const before = (await inBucket("order-files/")).length;
    for (let i = 0; i < 4; i++) expect((await post(`/messages/${conversationId}`, sender, sendForm("Photos", photos(5)))).status).toBe(303);
    expect(await inBucket("order-files/")).toHaveLength(before + 20);

    expect((await post(`/messages/${conversationId}`, sender, sendForm("One more", photos(1)))).status).toBe(429);
    expect(await inBucket("order-files/")).toHaveLength(before + 20);

    const keeper = await createUser(t.db, { role: "client", name: "Heavy Keeper" });
    tokens.set(keeper.id, await createSession(t.db, keeper.id));
    const withKeeper = await conversationWith(keeper, t.seller);
    const [message] = await t.db("messages").insert({ conversation_id: withKeeper, sender_id: keeper.id, body: "Archive", message_type: "file" }, ["id"]);
    await t.db("message_attachments").insert({
      message_id: message.id,
      storage_key: "0b9f3f1e-0000-4000-8000-000000000001",
      file_name: "archive.pdf",
      content_type: "application/pdf",
      size_bytes: 1024 * 1024 * 1024 - 10,
    });
    expect((await post(`/messages/${withKeeper}`, keeper, sendForm("One more", photos(1)))).status).toBe(400);
    expect(await inBucket("order-files/")).toHaveLength(before + 20);
  });
});

describe("housekeeping on S3", () => {
  it("deletes files no row names and the files of a checkout never paid, and keeps every file a row names", async () => {
    const live = await inBucket();
    const unpaid = (await t.db("order_files").pluck("storage_key")).map((key: string) => `order-files/${key}`);
    expect(unpaid).toHaveLength(1);
    const strays = ["0b9f3f1e-5555-4000-8000-000000000005-thumb.webp", "order-files/0b9f3f1e-6666-4000-8000-000000000006"];
    for (const key of strays) await bucket.put(key, Buffer.from("left behind"), { contentType: "application/octet-stream" });
    await bucket.put("notes/not-ours.txt", Buffer.from("someone else's"), { contentType: "text/plain" });

    // The checkout was given up (cancelled unpaid) three days ago: its row goes now, its file by its delete_file
    // effect, carried out by the worker in the same bucket.
    await t
      .db("orders")
      .whereNull("paid_at")
      .update({ status: "cancelled", cancelled_at: new Date(Date.now() - 3 * 24 * 60 * 60_000) });
    const first = await runHousekeeping(systemActor("test"), { store: bucket }, { db: t.db });
    expect(first).toMatchObject({ ok: true, value: { strayFiles: 0, unpaidOrderFiles: 1 } });
    expect(await inBucket("order-files/")).toContain(unpaid[0]);
    const effects = startEffects(parseEnv({ ...process.env, QUEUE_PREFIX: t.queuePrefix, UPLOAD_DIR: uploadDir, ...s3.env(BUCKET) }), { db: t.db, pollMs: 25 });
    try {
      await expect.poll(() => inBucket("order-files/"), { timeout: 10_000 }).not.toContain(unpaid[0]);
    } finally {
      await effects.close();
    }

    // Two days on, the strays are a day old: they go, and every file a row names stays.
    const later = await runHousekeeping(systemActor("test"), { store: bucket, now: new Date(Date.now() + 2 * 24 * 60 * 60_000) }, { db: t.db });
    expect(later).toMatchObject({ ok: true, value: { strayFiles: 2, unpaidOrderFiles: 0 } });
    expect(await inBucket()).toEqual([...live.filter((key) => key !== unpaid[0]), "notes/not-ours.txt"].sort());
    expect(onDisk()).toEqual([]);
  });
});

it("keeps the AWS SDK's notice about future Node versions out of the web process's output", () => {
  expect(server.output()).not.toMatch(/NodeVersionSupportWarning|AWS SDK for JavaScript/);
});
