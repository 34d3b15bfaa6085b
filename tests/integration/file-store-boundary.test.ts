/**
 * Every stored file goes through the file store (app/server/files/file-store.server.ts, ADR 056): with S3_BUCKET
 * set there is no upload directory to read, so a module that opened UPLOAD_DIR itself would serve nothing, or
 * write files no other machine sees. This walks the source of the processes and scripts and fails when a module
 * outside the store touches the disk of uploads: imports node:fs (other than the few that read the build's own
 * files) or names UPLOAD_DIR or calls uploadDir().
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

function sourceFiles(dir: string): string[] {
  const full = path.join(root, dir);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return [dir];
  return fs.readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(rel);
    return /\.(ts|tsx)$/.test(entry.name) && !/\.(test|d)\.tsx?$/.test(entry.name) ? [rel] : [];
  });
}

const withoutComments = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
const read = (file: string) => withoutComments(fs.readFileSync(path.join(root, file), "utf8"));

/** The store itself: the only modules that read and write stored files on the disk. */
const STORE = ["app/server/files/disk-store.server.ts", "app/server/files/file-store.server.ts"];

/** Modules of the running processes that read files of their own, never an upload: and why. */
const OWN_FILES: Record<string, string> = {
  "app/server/static-files.server.ts": "the build's public assets",
  "app/i18n/catalog.server.ts": "the word files of the three languages",
};

/** Where UPLOAD_DIR may be named outside the store: and why. */
const NAMES_UPLOAD_DIR: Record<string, string> = {
  "app/server/env.server.ts": "declares and checks it",
  "app/server/files/storage.server.ts": "imageFile: where the disk store keeps an image, for tests",
  "app/server/files/order-files.server.ts": "orderFilePath: where the disk store keeps a member's file, for tests",
  "scripts/files-to-s3.ts": "copies the disk store to S3",
  "scripts/lib/demo-site.ts": "gives a throwaway demo server a new empty directory",
  "scripts/bench-pages.ts": "removes its throwaway demo server's directory",
  "scripts/screens.ts": "removes its throwaway demo server's directory",
};

const processes = [...sourceFiles("app"), ...sourceFiles("worker"), ...sourceFiles("server.ts")];

describe("stored files go through the file store", () => {
  it("no module of the web or worker processes imports node:fs, but the store and those reading their own files", () => {
    const importers = processes.filter((file) => /from\s+["'](?:node:)?fs(?:\/promises)?["']|require\(\s*["'](?:node:)?fs/.test(read(file)));
    expect(importers.filter((file) => !STORE.includes(file) && !(file in OWN_FILES))).toEqual([]);
    // The lists stay true: each still does what it is listed for.
    for (const file of ["app/server/files/disk-store.server.ts", ...Object.keys(OWN_FILES)]) expect(importers, file).toContain(file);
  });

  it("no module names UPLOAD_DIR or asks for uploadDir() but the store and those listed", () => {
    const naming = [...processes, ...sourceFiles("scripts")].filter((file) => /\bUPLOAD_DIR\b|\buploadDir\s*\(/.test(read(file)));
    expect(naming.filter((file) => !STORE.includes(file) && !(file in NAMES_UPLOAD_DIR))).toEqual([]);
  });
});
