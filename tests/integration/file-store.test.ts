/**
 * The file store's contract (app/server/files/file-store.server.ts), one test body run against both stores: the
 * disk under a temporary directory, and S3 as spoken by s3rver on 127.0.0.1. Whatever passes here, housekeeping,
 * backups and files:to-s3 may rely on with either store.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "~/server/env.server";
import { diskStore, fileStore, readStored, type FileStore, type StoredObject } from "~/server/files/file-store.server";
import { startS3, type TestS3 } from "../support/s3";

let s3: TestS3;
let dir: string;

beforeAll(async () => {
  s3 = await startS3(["contract-files"]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-file-store-"));
});
afterAll(async () => {
  await s3?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function listed(store: FileStore, prefix?: string): Promise<StoredObject[]> {
  const found: StoredObject[] = [];
  for await (const object of store.list(prefix)) found.push(object);
  return found.sort((a, b) => a.key.localeCompare(b.key));
}

const IMAGE = "0b9f3f1e-1111-4000-8000-000000000001-thumb.webp";
const FILE = "order-files/0b9f3f1e-2222-4000-8000-000000000002";

describe.each([
  ["disk", () => diskStore(dir)],
  ["s3", () => s3.store("contract-files")],
] as const)("the %s store", (kind, make) => {
  let store: FileStore;
  beforeAll(() => {
    store = make();
  });

  it(`is the ${kind} store`, () => {
    expect(store.kind).toBe(kind);
  });

  it("keeps bytes and a stream as given, and answers their size and type", async () => {
    const webp = Buffer.from("RIFF....WEBPVP8 not really an image");
    await store.put(IMAGE, webp, { contentType: "image/webp" });
    const pdf = Buffer.from("%PDF-1.4 a requirement file\n".repeat(1000));
    await store.put(FILE, Readable.from([pdf.subarray(0, 5000), pdf.subarray(5000)]), { contentType: "application/pdf", size: pdf.length });

    expect(await readStored(store, IMAGE)).toEqual(webp);
    expect(await readStored(store, FILE)).toEqual(pdf);
    const image = await store.get(IMAGE);
    expect(image).toMatchObject({ size: webp.length, contentType: "image/webp" });
    image!.body.destroy();
    expect(await store.head(FILE)).toMatchObject({ size: pdf.length });
    expect((await store.head(FILE))!.modifiedAt.getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it("replaces a file put again under its key", async () => {
    await store.put(IMAGE, Buffer.from("second"), { contentType: "image/webp" });
    expect((await readStored(store, IMAGE))!.toString()).toBe("second");
    expect(await store.head(IMAGE)).toMatchObject({ size: 6 });
  });

  it("answers null for a file it does not have, and for a key that is not one", async () => {
    expect(await store.get("order-files/0b9f3f1e-9999-4000-8000-000000000009")).toBeNull();
    expect(await store.head("0b9f3f1e-9999-4000-8000-000000000009-large.webp")).toBeNull();
    for (const bad of ["../etc/passwd", "order-files/../../x", "/abs", ""]) {
      expect(await store.get(bad), bad).toBeNull();
      await expect(store.put(bad, Buffer.from("x"), { contentType: "text/plain" }), bad).rejects.toThrow("not a file key");
    }
  });

  it("lists every file, or those under a prefix, with its size and last write", async () => {
    await store.put("order-files/0b9f3f1e-3333-4000-8000-000000000003", Buffer.from("three"), { contentType: "text/plain" });
    expect((await listed(store)).map((o) => [o.key, o.size])).toEqual([
      [IMAGE, 6],
      [FILE, 28_000],
      ["order-files/0b9f3f1e-3333-4000-8000-000000000003", 5],
    ]);
    const files = await listed(store, "order-files/");
    expect(files.map((o) => o.key)).toEqual([FILE, "order-files/0b9f3f1e-3333-4000-8000-000000000003"]);
    for (const o of files) expect(o.modifiedAt).toBeInstanceOf(Date);
    expect(await listed(store, "nothing-here/")).toEqual([]);
  });

  it("deletes a file, and a file already gone without complaint", async () => {
    await store.delete(FILE);
    await store.delete(FILE);
    expect(await store.get(FILE)).toBeNull();
    expect((await listed(store, "order-files/")).map((o) => o.key)).toEqual(["order-files/0b9f3f1e-3333-4000-8000-000000000003"]);
  });
});

describe("which store a process uses", () => {
  it("is the disk under UPLOAD_DIR by default, S3 once S3_BUCKET is set", () => {
    expect(fileStore(parseEnv({ UPLOAD_DIR: dir }))).toMatchObject({ kind: "disk", where: dir });
    const store = fileStore(parseEnv({ UPLOAD_DIR: dir, ...s3.env("contract-files") }));
    expect(store.kind).toBe("s3");
    expect(store.where).toBe(`${s3.endpoint} bucket contract-files`);
  });

  it("refuses a half-set S3 configuration with a message that says what is missing", () => {
    expect(() => parseEnv({ S3_ENDPOINT: "http://127.0.0.1:9000" })).toThrow(/S3_ENDPOINT is set but S3_BUCKET is not/);
    expect(() => parseEnv({ S3_BUCKET: "soko-files" })).toThrow(/S3_REGION is required with S3_BUCKET/);
    expect(() => parseEnv({ S3_BUCKET: "soko-files", S3_REGION: "us-east-1", S3_ACCESS_KEY_ID: "key" })).toThrow(/go together/);
    expect(() => parseEnv({ S3_BUCKET: "soko-files", S3_REGION: "us-east-1", S3_ENDPOINT: "http://127.0.0.1:9000" })).toThrow(/required with S3_ENDPOINT/);
    // AWS itself with the machine's role: a bucket and a region are enough; blank values are unset.
    expect(parseEnv({ S3_BUCKET: "soko-files", S3_REGION: "af-south-1", S3_ENDPOINT: "" })).toMatchObject({ S3_BUCKET: "soko-files" });
    expect(parseEnv({ S3_BUCKET: "", S3_FORCE_PATH_STYLE: "" }).S3_BUCKET).toBeUndefined();
  });
});
