/**
 * The pieces of a backup that need no service: part paths that cannot leave the backup's folder, statements moved
 * to another ClickHouse database, names and destinations, and checksums that catch a changed or missing part.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { retarget } from "./clickhouse";
import { safeRelative, verifyParts, writePart, type Manifest } from "./manifest";
import { backupName } from "./run";
import { parseLocation } from "./target";

describe("part paths", () => {
  it("stay inside the backup's folder", () => {
    expect(safeRelative("files/order-files/0c0c0c0c-0000-4000-8000-000000000003")).toBe("files/order-files/0c0c0c0c-0000-4000-8000-000000000003");
    for (const bad of ["", "/etc/passwd", "../x", "files/../../x", "files/./x", "files//x", "..", "a\\b"]) {
      expect(() => safeRelative(bad), bad).toThrow(/not a path inside the backup/);
    }
  });
});

describe("retarget", () => {
  it("moves every name qualified by the source database, and nothing else", () => {
    const create = "CREATE TABLE soko.sessions (`soko.x` String) ENGINE = MergeTree ORDER BY tuple()";
    expect(retarget(create, "soko", "soko_restored")).toBe("CREATE TABLE soko_restored.sessions (`soko.x` String) ENGINE = MergeTree ORDER BY tuple()");
    const view = "CREATE MATERIALIZED VIEW soko.daily TO `soko`.daily_rows AS SELECT * FROM soko.events, other_soko.events";
    expect(retarget(view, "soko", "b")).toBe("CREATE MATERIALIZED VIEW b.daily TO `b`.daily_rows AS SELECT * FROM b.events, other_soko.events");
  });
});

describe("names and destinations", () => {
  it("name a backup by its time, in a form safe for paths and object keys", () => {
    expect(backupName(new Date("2026-12-07T20:31:05.123Z"))).toBe("soko-20261207T203105Z");
  });
  it("read a bucket and a prefix, or a directory", () => {
    expect(parseLocation("s3://soko-backups/nightly/")).toEqual({ kind: "s3", bucket: "soko-backups", prefix: "nightly" });
    expect(parseLocation("s3://soko-backups")).toEqual({ kind: "s3", bucket: "soko-backups", prefix: "" });
    expect(parseLocation("backups")).toEqual({ kind: "dir", dir: path.resolve("backups") });
  });
});

describe("checksums", () => {
  it("find a changed byte, another size and a missing part", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "soko-backup-unit-"));
    try {
      const parts = [];
      for (const [rel, text] of [
        ["a.txt", "one\ntwo\n"],
        ["files/b", "bytes"],
        ["files/c", "more bytes"],
        ["files/d", "gone"],
      ] as const) {
        const part = await writePart(root, rel, Readable.from([Buffer.from(text)]));
        if (rel === "a.txt") expect(part.lines).toBe(2);
        parts.push({ path: part.path, bytes: part.bytes, sha256: part.sha256 });
      }
      const manifest = { parts } as Manifest;
      expect(await verifyParts(root, manifest)).toEqual([]);
      fs.writeFileSync(path.join(root, "files/b"), "bytez");
      fs.appendFileSync(path.join(root, "files/c"), "!");
      fs.rmSync(path.join(root, "files/d"));
      expect(await verifyParts(root, manifest)).toEqual([
        "files/b: sha256 differs from the manifest's",
        "files/c: 11 bytes, the manifest says 10",
        "files/d: missing",
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
