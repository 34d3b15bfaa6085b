/**
 * `npm run files:to-s3` (scripts/files-to-s3.ts) as an operator runs it: every file of the disk store (images,
 * order and message files) lands in the bucket with the same bytes, a file already there with the same size is
 * skipped and one of another size copied again, and a second run copies nothing. Without S3_BUCKET it refuses
 * to start. The bucket is s3rver's, on 127.0.0.1.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { diskStore, readStored, type FileStore } from "~/server/files/file-store.server";
import { startS3, type TestS3 } from "../support/s3";

const BUCKET = "soko-move";
let s3: TestS3;
let bucket: FileStore;
let dir: string;

beforeAll(async () => {
  s3 = await startS3([BUCKET]);
  bucket = s3.store(BUCKET);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-to-s3-"));
});
afterAll(async () => {
  await s3?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs the command in a child process (not spawnSync: s3rver answers from this process's event loop). */
function run(env: Record<string, string>): Promise<{ status: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      path.resolve("node_modules/.bin/tsx"),
      ["scripts/files-to-s3.ts"],
      { env: { ...process.env, UPLOAD_DIR: dir, ...env }, encoding: "utf8", timeout: 60_000 },
      (_error, out, err) => resolve({ status: child.exitCode, out, err }),
    );
  });
}

async function keysIn(store: FileStore) {
  const keys: string[] = [];
  for await (const object of store.list("")) keys.push(object.key);
  return keys.sort();
}

it("copies every file from the disk to the bucket, skipping those already there, and copies nothing the second time", async () => {
  const disk = diskStore(dir);
  const files: Record<string, Buffer> = {
    "0b9f3f1e-1111-4000-8000-000000000001-thumb.webp": Buffer.from("a thumb"),
    "0b9f3f1e-1111-4000-8000-000000000001-large.webp": Buffer.alloc(300_000, 7),
    "order-files/0b9f3f1e-2222-4000-8000-000000000002": Buffer.from("%PDF-1.4 a brief"),
    "order-files/0b9f3f1e-3333-4000-8000-000000000003": Buffer.from("already there"),
    "order-files/0b9f3f1e-4444-4000-8000-000000000004": Buffer.from("there, but cut short"),
  };
  for (const [key, bytes] of Object.entries(files)) await disk.put(key, bytes, { contentType: "application/octet-stream" });
  await bucket.put("order-files/0b9f3f1e-3333-4000-8000-000000000003", Buffer.from("already there"), { contentType: "application/pdf" });
  await bucket.put("order-files/0b9f3f1e-4444-4000-8000-000000000004", Buffer.from("there"), { contentType: "application/pdf" });

  const first = await run(s3.env(BUCKET));
  expect(first.err).toBe("");
  expect(first.status).toBe(0);
  expect(first.out).toContain(`from ${dir} to ${s3.endpoint} bucket ${BUCKET}`);
  expect(first.out).toContain("copied 4 files (0.3 MB), skipped 1 already in the bucket");
  expect(await keysIn(bucket)).toEqual(Object.keys(files).sort());
  for (const [key, bytes] of Object.entries(files)) expect(await readStored(bucket, key), key).toEqual(bytes);
  expect((await bucket.head("0b9f3f1e-1111-4000-8000-000000000001-thumb.webp"))!.contentType).toBe("image/webp");
  expect(await keysIn(disk)).toEqual(Object.keys(files).sort()); // the disk is left as it was

  const second = await run(s3.env(BUCKET));
  expect(second.status).toBe(0);
  expect(second.out).toContain("copied 0 files (0.0 MB), skipped 5 already in the bucket");
});

it("refuses to start without S3_BUCKET, and names what to set", async () => {
  const refused = await run({});
  expect(refused.status).toBe(1);
  expect(refused.err).toContain("S3_BUCKET is not set");
});
