/**
 * No source file of the app, the worker or the web server is over 500 lines: a module that long does
 * several jobs, and is split by job, each module's header saying which one it does. Tests are not counted.
 * A failure lists every file over the limit with its length.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

const MAX_LINES = 500;

/** Where the source is: directories walked whole, and single files. */
const SOURCES = ["app", "worker", "server.ts"];

/** The .ts and .tsx files under `rel` (or `rel` itself), tests left out, as paths relative to the root. */
function sourceFiles(rel: string): string[] {
  const full = path.join(root, rel);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return [rel];
  return fs.readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    const child = path.join(rel, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(child);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [child] : [];
  });
}

/** Lines as `wc -l` counts them, plus a last line without its newline. */
function lineCount(file: string): number {
  const text = fs.readFileSync(path.join(root, file), "utf8");
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

describe("module size", () => {
  const files = SOURCES.flatMap(sourceFiles);

  it("walks the app, the worker and server.ts", () => {
    expect(files).toContain("server.ts");
    expect(files.filter((f) => f.startsWith(`app${path.sep}`)).length).toBeGreaterThan(100);
    expect(files.some((f) => f.startsWith(`worker${path.sep}`))).toBe(true);
  });

  it(`has no source file over ${MAX_LINES} lines`, () => {
    const over = files
      .map((file) => ({ file, lines: lineCount(file) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .sort((a, b) => b.lines - a.lines)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(over, `source files over ${MAX_LINES} lines (split each by job):\n${over.join("\n")}`).toEqual([]);
  });
});
