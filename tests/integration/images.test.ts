/**
 * Images that decode into far more than they weigh: a PNG of a few kilobytes can say
 * 10,000 x 10,000 pixels of one colour, 300 MB once decoded. Through the real built server, the gig editor and
 * the profile picture refuse such an image with a message beside their field, and store nothing.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createSession, createUser } from "../support/factories";
import { gigFormData, VALID_GIG_FIELDS } from "../support/gig-form";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestDatabase;
let server: TestServer;
let uploadDir: string;
const tokens: Record<"member" | "seller", string> = { member: "", seller: "" };
const ids: Record<"member" | "seller", number> = { member: 0, seller: 0 };

beforeAll(async () => {
  t = await createTestDatabase();
  for (const [who, role] of [
    ["member", "client"],
    ["seller", "freelancer"],
  ] as const) {
    ids[who] = (await createUser(t.db, { role, name: `Test ${who}`, email: `${who}@example.ug` })).id;
    tokens[who] = await createSession(t.db, ids[who]);
  }
  uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-images-"));
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: `images_${process.pid}_${Date.now()}`, UPLOAD_DIR: uploadDir });
});
afterAll(async () => {
  await server?.stop();
  await t?.drop();
  if (uploadDir) fs.rmSync(uploadDir, { recursive: true, force: true });
});

function pngChunk(type: string, data: Buffer) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

/** A valid black-and-white PNG of width x height pixels, all black: every row compresses to almost nothing. */
function onePixelColourPng(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 1; // bit depth 1
  header[9] = 0; // greyscale
  const rows = Buffer.alloc((Math.ceil(width / 8) + 1) * height); // filter byte 0 and zero bits, row after row
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", zlib.deflateSync(rows, { level: 9 })),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

function decode(html: string) {
  return html
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "")
    .replace(/<!-- -->/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&amp;/g, "&");
}

async function post(urlPath: string, who: "member" | "seller", form: FormData) {
  const res = await fetch(`${server.baseUrl}${urlPath}`, {
    method: "POST",
    body: form,
    redirect: "manual",
    headers: { Cookie: `soko_session=${tokens[who]}`, Origin: server.baseUrl },
  });
  return { status: res.status, html: decode(await res.text()) };
}

const filesIn = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);
const stored = async () => ({
  uploads: Number((await t.db("uploads").count<{ c: number }[]>({ c: "*" }).first())?.c),
  gigs: Number((await t.db("gigs").count<{ c: number }[]>({ c: "*" }).first())?.c),
  avatar: (await t.db("users").where({ id: ids.member }).first("avatar_key")).avatar_key as string | null,
  files: filesIn(uploadDir),
});

// 100 megapixels is over our 40 and under sharp's own default limit (268), which let it through; 400 megapixels
// is over both, and was refused as "could not be read", which says nothing of what is wrong.
describe.each([
  [10_000, 10_000],
  [20_000, 20_000],
])("a %i x %i PNG of one colour (a few KB, hundreds of MB decoded)", (width, height) => {
  const bomb = onePixelColourPng(width, height);
  const message = `This image is ${width} x ${height} pixels: images can be at most 40 megapixels`;

  it("is a real PNG of that size, and small", async () => {
    expect(bomb.length).toBeLessThan(64 * 1024);
    const meta = await sharp(bomb, { limitInputPixels: false }).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", width, height]);
  });

  it("gig editor: refused beside the upload field, the form kept, nothing stored", async () => {
    const before = await stored();
    const form = gigFormData();
    form.append("upload", new Blob([new Uint8Array(bomb)], { type: "image/png" }), "poster.png");
    const res = await post("/gig/create", "seller", form);
    expect(res.status).toBe(400);
    const errors = /<ul id="upload-error"[^>]*>(.*?)<\/ul>/s.exec(res.html)?.[1] ?? "";
    expect([...errors.matchAll(/<li>(.*?)<\/li>/gs)].map((m) => m[1])).toEqual([`poster.png: ${message}`]);
    expect(res.html).toContain(`value="${VALID_GIG_FIELDS.title}"`);
    expect(await stored()).toEqual(before);
  });

  it("profile picture: refused beside its field, nothing stored", async () => {
    const before = await stored();
    const form = new FormData();
    form.append("name", "Test member");
    form.append("avatar", new Blob([new Uint8Array(bomb)], { type: "image/png" }), "me.png");
    const res = await post("/settings?tab=profile", "member", form);
    expect(res.status).toBe(400);
    const beside = /<input id="avatar"[^>]*>\s*<ul class="field-errors"[^>]*>(.*?)<\/ul>/s.exec(res.html)?.[1] ?? "";
    expect(beside).toBe(`<li>${message}</li>`);
    expect(await stored()).toEqual(before);
  });
});

it("an ordinary photo-sized image is still stored as a profile picture", async () => {
  const photo = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: "#246" } })
    .jpeg()
    .toBuffer();
  const form = new FormData();
  form.append("name", "Test member");
  form.append("avatar", new Blob([new Uint8Array(photo)], { type: "image/jpeg" }), "me.jpg");
  const res = await post("/settings?tab=profile", "member", form);
  expect(res.status).toBe(302);
  const { avatar, files } = await stored();
  expect(files).toEqual([`${avatar}-avatar.webp`]);
});
