/**
 * Where backups are kept: a directory (each backup a folder of its own, written under a temporary name and
 * renamed once whole) or an S3-compatible bucket (`s3://bucket/prefix`: the folder's files uploaded one by one,
 * the manifest last, so a backup without its manifest is one that never finished). A backup is always built in
 * a local folder first; a restore from a bucket downloads it into one first.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { MANIFEST_FILE, readManifest, safeRelative, type Manifest } from "./manifest";

export type Location = { kind: "dir"; dir: string } | { kind: "s3"; bucket: string; prefix: string };

/** `s3://bucket/some/prefix` or a directory. */
export function parseLocation(to: string): Location {
  const s3 = /^s3:\/\/([^/]+)\/?(.*)$/.exec(to);
  if (s3) return { kind: "s3", bucket: s3[1]!, prefix: s3[2]!.replace(/\/+$/, "") };
  return { kind: "dir", dir: path.resolve(to) };
}

/**
 * The client for the backups' bucket: BACKUP_S3_ENDPOINT, BACKUP_S3_REGION, BACKUP_S3_ACCESS_KEY_ID and
 * BACKUP_S3_SECRET_ACCESS_KEY, each falling back to the file store's S3_* (ADR 056) when unset, so backups may
 * go to another provider or account than the files (they should: a backup beside what it backs up is lost with
 * it). Path-style, as MinIO and most compatible stores want; AWS itself without an endpoint.
 */
export function s3Client(env: NodeJS.ProcessEnv = process.env) {
  const setting = (name: string) => env[`BACKUP_${name}`] || env[name];
  const [accessKeyId, secretAccessKey, endpoint] = [setting("S3_ACCESS_KEY_ID"), setting("S3_SECRET_ACCESS_KEY"), setting("S3_ENDPOINT")];
  return new S3Client({
    region: setting("S3_REGION") || "us-east-1",
    // Checksums only where S3 requires them: the SDK's default (aws-chunked uploads with trailing checksums)
    // is not understood by every S3-compatible store.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
  });
}

const join = (prefix: string, ...rest: string[]) => [prefix, ...rest].filter(Boolean).join("/");

async function walk(root: string, rel = ""): Promise<string[]> {
  const entries = await fs.promises.readdir(path.join(root, rel), { withFileTypes: true });
  const out: string[] = [];
  for (const e of entries) {
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await walk(root, child)));
    else out.push(child);
  }
  return out;
}

/** A local folder to build backup `name` in, and how to put it in its place once it is whole. */
export async function stage(location: Location, name: string) {
  if (location.kind === "dir") {
    await fs.promises.mkdir(location.dir, { recursive: true });
    const partial = path.join(location.dir, `.partial-${name}`);
    await fs.promises.rm(partial, { recursive: true, force: true });
    await fs.promises.mkdir(partial);
    const final = path.join(location.dir, name);
    return {
      root: partial,
      finish: async () => {
        await fs.promises.rename(partial, final);
        return final;
      },
      abandon: () => fs.promises.rm(partial, { recursive: true, force: true }),
    };
  }
  const root = await fs.promises.mkdtemp(path.join(os.tmpdir(), "soko-backup-"));
  const abandon = () => fs.promises.rm(root, { recursive: true, force: true });
  return {
    root,
    finish: async () => {
      const client = s3Client();
      try {
        const files = (await walk(root)).filter((f) => f !== MANIFEST_FILE);
        for (const rel of [...files, MANIFEST_FILE]) {
          const file = path.join(root, rel);
          const { size } = await fs.promises.stat(file);
          await client.send(
            new PutObjectCommand({ Bucket: location.bucket, Key: join(location.prefix, name, rel), Body: fs.createReadStream(file), ContentLength: size }),
          );
        }
      } finally {
        client.destroy();
        await abandon();
      }
      return `s3://${join(location.bucket, location.prefix, name)}`;
    },
    abandon,
  };
}

/**
 * The local folder of the backup at `from` (a folder, or `s3://bucket/prefix/name`, downloaded into a temporary
 * folder: `cleanup` removes it), with its manifest.
 */
export async function open(from: string): Promise<{ root: string; manifest: Manifest; cleanup: () => Promise<void> }> {
  const location = parseLocation(from);
  if (location.kind === "dir") return { root: location.dir, manifest: await readManifest(location.dir), cleanup: async () => {} };
  const root = await fs.promises.mkdtemp(path.join(os.tmpdir(), "soko-restore-"));
  const cleanup = () => fs.promises.rm(root, { recursive: true, force: true });
  const client = s3Client();
  try {
    const download = async (rel: string) => {
      const file = path.join(root, safeRelative(rel));
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      const got = await client.send(new GetObjectCommand({ Bucket: location.bucket, Key: join(location.prefix, rel) }));
      await pipeline(got.Body as Readable, fs.createWriteStream(file));
    };
    await download(MANIFEST_FILE);
    const manifest = await readManifest(root);
    // A part missing from the bucket is left missing here: the checksums then name it.
    for (const part of manifest.parts) await download(part.path).catch(() => undefined);
    return { root, manifest, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  } finally {
    client.destroy();
  }
}
