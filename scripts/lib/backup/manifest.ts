/**
 * The manifest of a backup (manifest.json in its folder): when it was taken, from which servers at which
 * migration level, and every part (a file of the folder) with its size and sha256, so a restore can prove the
 * backup whole before it touches anything. Parts are written through `writePart`, which hashes and counts the
 * bytes as they go to disk, so nothing is read twice.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { z } from "zod";

export const MANIFEST_FILE = "manifest.json";
export const BACKUP_FORMAT = 1;

const Part = z.object({ path: z.string(), bytes: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) });
export type Part = z.infer<typeof Part>;

const ClickHouseTable = z.object({
  name: z.string(),
  engine: z.string(),
  /** The table's own CREATE statement (SHOW CREATE TABLE), naming the source database. */
  schema: z.string(),
  /** Its rows as gzipped TabSeparated, or null for a view (no rows of its own). */
  data: z.string().nullable(),
  rows: z.number().int().nonnegative(),
});
export type ClickHouseTable = z.infer<typeof ClickHouseTable>;

export const ManifestSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  name: z.string(),
  startedAt: z.string(),
  finishedAt: z.string(),
  app: z.object({ version: z.string(), node: z.string() }),
  postgres: z.object({
    serverVersion: z.string(),
    pgDump: z.string(),
    database: z.string(),
    /** The knex migrations applied in the snapshot: how many, and the last. */
    migrations: z.object({ count: z.number().int(), last: z.string().nullable() }),
    dump: z.string(),
    /** Rows per table, counted in the very snapshot pg_dump read. */
    rows: z.record(z.number().int().nonnegative()),
  }),
  clickhouse: z.object({
    serverVersion: z.string(),
    database: z.string(),
    migrations: z.object({ last: z.string().nullable() }),
    tables: z.array(ClickHouseTable),
  }),
  files: z.object({ count: z.number().int().nonnegative(), bytes: z.number().int().nonnegative(), prefix: z.string() }),
  parts: z.array(Part),
});
export type Manifest = z.infer<typeof ManifestSchema>;

/** Counts bytes and newlines and hashes what passes through, unchanged. */
export function measure() {
  const hash = createHash("sha256");
  const stats = { bytes: 0, lines: 0 };
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      stats.bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) stats.lines++;
      done(null, chunk);
    },
  });
  return { stream, stats, digest: () => hash.digest("hex") };
}

/** A relative path that stays inside the folder it is joined to (no absolute path, no `..`). */
export function safeRelative(rel: string) {
  const normal = path.posix.normalize(rel);
  if (!rel || path.posix.isAbsolute(rel) || normal !== rel || normal.startsWith("../") || normal === ".." || rel.includes("\\")) {
    throw new Error(`not a path inside the backup: ${JSON.stringify(rel)}`);
  }
  return rel;
}

/**
 * Writes `source` to `rel` under `root` through the transforms given (compression), measuring the bytes as they
 * reach the disk; returns the part, and the newlines counted before the transforms (the rows of a TSV).
 */
export async function writePart(root: string, rel: string, source: Readable, transforms: NodeJS.ReadWriteStream[] = []): Promise<Part & { lines: number }> {
  const file = path.join(root, safeRelative(rel));
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const before = measure();
  const after = measure();
  await pipeline([source, before.stream, ...transforms, after.stream, fs.createWriteStream(file)]);
  return { path: rel, bytes: after.stats.bytes, sha256: after.digest(), lines: before.stats.lines };
}

/** Hashes a file already on disk (pg_dump writes its own). */
export async function partOfFile(root: string, rel: string): Promise<Part> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of fs.createReadStream(path.join(root, safeRelative(rel)))) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { path: rel, bytes, sha256: hash.digest("hex") };
}

/**
 * Every part checked against the manifest before anything is restored: the list of what is wrong (a missing
 * file, another size, another sha256), empty for a whole backup.
 */
export async function verifyParts(root: string, manifest: Manifest): Promise<string[]> {
  const problems: string[] = [];
  for (const part of manifest.parts) {
    const found = await partOfFile(root, part.path).catch(() => null);
    if (!found) problems.push(`${part.path}: missing`);
    else if (found.bytes !== part.bytes) problems.push(`${part.path}: ${found.bytes} bytes, the manifest says ${part.bytes}`);
    else if (found.sha256 !== part.sha256) problems.push(`${part.path}: sha256 differs from the manifest's`);
  }
  return problems;
}

export async function readManifest(root: string): Promise<Manifest> {
  const text = await fs.promises.readFile(path.join(root, MANIFEST_FILE), "utf8");
  return ManifestSchema.parse(JSON.parse(text));
}
