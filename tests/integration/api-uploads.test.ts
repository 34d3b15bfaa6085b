/**
 * The JSON API's Uploads calls (ADR 041), against the built server: a seller's gig image (stored as the gig
 * editor stores one, its key recorded as theirs), documents stored as order files are and kept in
 * `uploaded_files` for their member alone, several at once all or none; files of a wrong type, too many or
 * too large refused beside `file` with no row and no file left; the upload quota's refusals (429 over a rate,
 * 400 over the storage cap). Each answer is checked against the OpenAPI document.
 */
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { takeUploadedFiles } from "~/models/uploaded-file.server";
import { uploadDocuments } from "~/operations/uploads.server";
import { MAX_STORED_BYTES } from "~/server/files/upload-quota.server";
import { closeLimitRedis } from "~/server/rate-limit.server";
import { closeRedis } from "~/server/redis.server";
import { getEnv } from "~/server/env.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createUser } from "../support/factories";
import { memberActor } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";
import { apiClient, createAppToken } from "../support/api";

const { prefix, uploadDir } = vi.hoisted(() => {
  const prefix = `t_apiuploads_${process.pid}_${Date.now()}`;
  process.env.QUEUE_PREFIX = prefix;
  // The server's upload directory is this process's too, so an operation called here stores where the server does.
  const uploadDir = `${process.env.TMPDIR ?? "/tmp"}/soko-api-uploads-${process.pid}-${Date.now()}`;
  process.env.UPLOAD_DIR = uploadDir;
  return { prefix, uploadDir };
});

let t: TestDatabase;
let server: TestServer;
let api: ReturnType<typeof apiClient>;
let PNG: Uint8Array<ArrayBuffer>;

const PDF = new TextEncoder().encode("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n");
const TEXT = new TextEncoder().encode("Requirements: a logo in green and gold.\n");
/** Bytes that are no kind of file we keep (not text either: a NUL and invalid UTF-8). */
const BINARY = new Uint8Array([0x00, 0xff, 0xfe, 0x01, 0x02, 0x03, 0x80, 0x81]);

beforeAll(async () => {
  expect(getEnv().QUEUE_PREFIX).toBe(prefix);
  t = await createTestDatabase();
  expect(getEnv().UPLOAD_DIR).toBe(uploadDir);
  fs.mkdirSync(uploadDir, { recursive: true });
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: prefix, TRUST_PROXY: "loopback", UPLOAD_DIR: uploadDir });
  api = apiClient(server.baseUrl);
  PNG = new Uint8Array(
    await sharp({ create: { width: 64, height: 48, channels: 3, background: "#2e7d32" } })
      .png()
      .toBuffer(),
  );
});
afterAll(async () => {
  await server?.stop();
  await closeRedis();
  await closeLimitRedis();
  await t?.drop();
  if (uploadDir) fs.rmSync(uploadDir, { recursive: true, force: true });
});

/** Each test's calls come from their own address, so the per-address limits of one test never meet another's. */
let address = 0;
const from = () => ({ "X-Forwarded-For": `198.51.100.${++address}` });

async function memberWithToken(role: "client" | "freelancer" = "client") {
  const user = await createUser(t.db, { role });
  return { user, token: await createAppToken(t.db, user.id) };
}

type Part = { name: string; bytes: Uint8Array<ArrayBuffer>; type?: string; field?: string };
function form(...parts: Part[]) {
  const body = new FormData();
  for (const p of parts) body.append(p.field ?? "file", new File([p.bytes], p.name, { type: p.type ?? "application/octet-stream" }));
  return body;
}

const images = () => (fs.existsSync(uploadDir) ? fs.readdirSync(uploadDir).filter((n) => n.endsWith(".webp")) : []);
const documents = () => (fs.existsSync(path.join(uploadDir, "order-files")) ? fs.readdirSync(path.join(uploadDir, "order-files")) : []);
const count = async (table: string, where: Record<string, unknown>) => Number((await t.db(table).where(where).count({ n: "*" }).first())?.n);

describe("POST /upload/image", () => {
  it("stores a seller's image in the gig editor's sizes and answers its key and address", async () => {
    const { user, token } = await memberWithToken("freelancer");
    const answer = await api.call("post", "/upload/image", "/upload/image", {
      headers: from(),
      token,
      raw: form({ name: "logo.png", bytes: PNG, type: "image/png" }),
    });
    expect(answer.status).toBe(201);
    const { key, url } = answer.body.data;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(url).toBe(`/media/${key}-large.webp`);
    expect(await count("uploads", { owner_id: user.id, storage_key: key })).toBe(1);
    expect(
      images()
        .filter((n) => n.startsWith(key))
        .sort(),
    ).toEqual([`${key}-large.webp`, `${key}-small.webp`, `${key}-thumb.webp`]);
    expect((await fetch(`${server.baseUrl}${url}`)).status).toBe(200);
  });

  it("refuses a file that is no image beside `file`, with no row and no file", async () => {
    const { user, token } = await memberWithToken("freelancer");
    const before = images().length;
    const answer = await api.call("post", "/upload/image", "/upload/image", {
      headers: from(),
      token,
      raw: form({ name: "logo.png", bytes: PDF, type: "image/png" }),
    });
    expect(answer.status).toBe(400);
    expect(answer.body.issues.file[0].code).toBe("image.wrong_type");
    expect(await count("uploads", { owner_id: user.id })).toBe(0);
    expect(images()).toHaveLength(before);
  });

  it("is for sellers: a client is refused (403) and nothing is stored", async () => {
    const { user, token } = await memberWithToken("client");
    const answer = await api.call("post", "/upload/image", "/upload/image", {
      headers: from(),
      token,
      raw: form({ name: "logo.png", bytes: PNG, type: "image/png" }),
    });
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe("seller.only_sellers");
    expect(await count("uploads", { owner_id: user.id })).toBe(0);
  });

  it("refuses an image over 5 MB with 413 and a JSON body with 415", async () => {
    const { user, token } = await memberWithToken("freelancer");
    const big = new Uint8Array(5 * 1024 * 1024 + 1);
    big.set(PNG);
    const tooBig = await api.call("post", "/upload/image", "/upload/image", {
      headers: from(),
      token,
      raw: form({ name: "big.png", bytes: big, type: "image/png" }),
    });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.code).toBe("image.too_many_bytes");
    expect(tooBig.body.message).toMatch(/big\.png/);
    const json = await api.call("post", "/upload/image", "/upload/image", { headers: from(), token, body: { file: "logo.png" } });
    expect(json.status).toBe(415);
    expect(await count("uploads", { owner_id: user.id })).toBe(0);
  });
});

describe("POST /upload/document", () => {
  it("stores a document as an order file, kept for its member alone", async () => {
    const { user, token } = await memberWithToken();
    const other = await createUser(t.db);
    const answer = await api.call("post", "/upload/document", "/upload/document", {
      headers: from(),
      token,
      raw: form({ name: "../../brief.pdf", bytes: PDF, type: "text/plain" }),
    });
    expect(answer.status).toBe(201);
    const doc = answer.body.data;
    expect(doc).toEqual({ key: expect.stringMatching(/^[0-9a-f-]{36}$/), name: "brief.pdf", type: "application/pdf", bytes: PDF.length });
    expect(fs.readFileSync(path.join(uploadDir, "order-files", doc.key))).toEqual(Buffer.from(PDF));
    const row = await t.db("uploaded_files").where({ storage_key: doc.key }).first("user_id", "file_name", "content_type", "size_bytes");
    expect({ ...row, user_id: Number(row.user_id) }).toEqual({
      user_id: user.id,
      file_name: "brief.pdf",
      content_type: "application/pdf",
      size_bytes: PDF.length,
    });
    // Another member cannot take it; its owner can, once.
    await t.db.transaction(async (trx) => expect(await takeUploadedFiles(trx, other.id, [doc.key])).toBeNull());
    await t.db.transaction(async (trx) => expect(await takeUploadedFiles(trx, user.id, [doc.key])).toHaveLength(1));
    expect(await count("uploaded_files", { storage_key: doc.key })).toBe(0);
  });

  it("refuses a file of a kind we do not keep beside `file`, with no row and no file", async () => {
    const { user, token } = await memberWithToken();
    const before = documents().length;
    const answer = await api.call("post", "/upload/document", "/upload/document", { headers: from(), token, raw: form({ name: "tool.exe", bytes: BINARY }) });
    expect(answer.status).toBe(400);
    expect(answer.body.issues.file).toEqual([{ code: "upload.file_wrong_type", message: expect.stringContaining("tool.exe is not a file we accept") }]);
    const empty = await api.call("post", "/upload/document", "/upload/document", {
      headers: from(),
      token,
      raw: form({ name: "empty.txt", bytes: new Uint8Array() }),
    });
    expect(empty.status).toBe(400);
    expect(empty.body.issues.file[0].code).toBe("upload.file_empty");
    const none = await api.call("post", "/upload/document", "/upload/document", { headers: from(), token, raw: new FormData() });
    expect(none.status).toBe(400);
    expect(none.body.issues.file[0].code).toBe("upload.no_file");
    const two = await api.call("post", "/upload/document", "/upload/document", {
      headers: from(),
      token,
      raw: form({ name: "a.txt", bytes: TEXT }, { name: "b.txt", bytes: TEXT }),
    });
    expect(two.status).toBe(400);
    expect(two.body.issues.file[0].code).toBe("upload.too_many_files");
    expect(await count("uploaded_files", { user_id: user.id })).toBe(0);
    expect(documents()).toHaveLength(before);
  });

  it("refuses a document over 10 MB with 413, and a body that is not multipart with 400", async () => {
    const { user, token } = await memberWithToken();
    const big = new Uint8Array(10 * 1024 * 1024 + 1).fill(0x41);
    const tooBig = await api.call("post", "/upload/document", "/upload/document", { headers: from(), token, raw: form({ name: "big.txt", bytes: big }) });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.code).toBe("upload.file_too_large");
    const broken = await api.call("post", "/upload/document", "/upload/document", {
      headers: { ...from(), "Content-Type": "multipart/form-data; boundary=xyz" },
      token,
      raw: "this is not multipart",
    });
    expect(broken.status).toBe(400);
    expect(await count("uploaded_files", { user_id: user.id })).toBe(0);
  });

  it("deletes the stored files when their record cannot be written", async () => {
    const gone = { id: 2 ** 40, name: "Gone Member", username: "gone_member", email: "gone@example.ug", role: "client" as const };
    const before = documents().length;
    await expect(uploadDocuments(memberActor(gone), { files: [{ name: "notes.txt", bytes: TEXT }] }, { db: t.db })).rejects.toThrow(/foreign key/);
    expect(documents()).toHaveLength(before);
  });

  it("refuses a document past the member's storage cap beside `file` (400), storing nothing", async () => {
    const { user, token } = await memberWithToken();
    await t.db("users").where({ id: user.id }).update({ avatar_key: "00000000-0000-4000-8000-000000000000", avatar_size_bytes: MAX_STORED_BYTES });
    const before = documents().length;
    const answer = await api.call("post", "/upload/document", "/upload/document", { headers: from(), token, raw: form({ name: "notes.txt", bytes: TEXT }) });
    expect(answer.status).toBe(400);
    expect(answer.body.issues.file[0].code).toBe("upload.storage_full");
    expect(await count("uploaded_files", { user_id: user.id })).toBe(0);
    expect(documents()).toHaveLength(before);
  });
});

describe("POST /upload/multiple", () => {
  it("stores several documents at once, in order", async () => {
    const { user, token } = await memberWithToken();
    const answer = await api.call("post", "/upload/multiple", "/upload/multiple", {
      headers: from(),
      token,
      raw: form({ name: "brief.pdf", bytes: PDF }, { name: "notes.txt", bytes: TEXT }, { name: "logo.png", bytes: PNG }),
    });
    expect(answer.status).toBe(201);
    expect(answer.body.data.map((d: { name: string; type: string }) => [d.name, d.type])).toEqual([
      ["brief.pdf", "application/pdf"],
      ["notes.txt", "text/plain"],
      ["logo.png", "image/png"],
    ]);
    expect(await count("uploaded_files", { user_id: user.id })).toBe(3);
    for (const d of answer.body.data) expect(fs.existsSync(path.join(uploadDir, "order-files", d.key))).toBe(true);
  });

  it("stores none when one file is refused or there are more than five", async () => {
    const { user, token } = await memberWithToken();
    const before = documents().length;
    const mixed = await api.call("post", "/upload/multiple", "/upload/multiple", {
      headers: from(),
      token,
      raw: form({ name: "brief.pdf", bytes: PDF }, { name: "tool.exe", bytes: BINARY }),
    });
    expect(mixed.status).toBe(400);
    expect(mixed.body.issues.file.map((i: { code: string }) => i.code)).toEqual(["upload.file_wrong_type"]);
    const six = await api.call("post", "/upload/multiple", "/upload/multiple", {
      headers: from(),
      token,
      raw: form(...Array.from({ length: 6 }, (_, i) => ({ name: `n${i}.txt`, bytes: TEXT }))),
    });
    expect(six.status).toBe(400);
    expect(six.body.issues.file[0]).toMatchObject({ code: "upload.too_many_files", message: "Attach at most 5 files" });
    expect(await count("uploaded_files", { user_id: user.id })).toBe(0);
    expect(documents()).toHaveLength(before);
  });

  it("counts against the upload quota: past 20 files a minute it is 429 with Retry-After, and nothing more is stored", async () => {
    const { user, token } = await memberWithToken();
    const five = () => form(...Array.from({ length: 5 }, (_, i) => ({ name: `page-${i}.txt`, bytes: TEXT })));
    for (let i = 0; i < 4; i++) {
      const answer = await api.call("post", "/upload/multiple", "/upload/multiple", { headers: from(), token, raw: five() });
      expect(answer.status).toBe(201);
    }
    const before = documents().length;
    const refused = await api.call("post", "/upload/multiple", "/upload/multiple", { headers: from(), token, raw: five() });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("limit.exceeded");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await count("uploaded_files", { user_id: user.id })).toBe(20);
    expect(documents()).toHaveLength(before);
    // The quota is the member's own: another member still uploads.
    const { token: otherToken } = await memberWithToken();
    const other = await api.call("post", "/upload/document", "/upload/document", {
      headers: from(),
      token: otherToken,
      raw: form({ name: "a.txt", bytes: TEXT }),
    });
    expect(other.status).toBe(201);
  });
});
