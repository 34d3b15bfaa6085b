/**
 * The repository stands alone: no file in it relies on a page outside it. What the code relies on is written in
 * its own docs (docs/architecture.md, docs/product.md, docs/decisions/), and comments cite those by path and say
 * what the code does and why, not which ticket asked for it. So no tracked file may name the outside design page,
 * a sibling folder of briefings, a section of the product spec (the section sign) or an issue by number.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const self = path.relative(root, fileURLToPath(import.meta.url));

/** What may not appear, each with what it is. */
const FORBIDDEN: { what: string; pattern: RegExp }[] = [
  { what: "the outside design page", pattern: /design\.md/i },
  { what: "the folder of briefings beside the repository", pattern: /\.\.\/shared\b/ },
  { what: "an issue by number", pattern: /\bissues?\s+#?\d+(?:\s*(?:,|and|or|&)\s*#?\d+)*/i },
  { what: "an issue by number", pattern: /(?:\(|\b(?:see|fixes|fixed|closes|closed|resolves|PR|issue|issues|ticket)\s+)#\d+\b/i },
  { what: "a section of a document outside the repository", pattern: /§/ },
];

/** Tracked files (git), or every file but dependencies, data and builds where there is no git. */
function trackedFiles(): string[] {
  try {
    return execFileSync("git", ["ls-files", "-z"], { cwd: root, maxBuffer: 64 * 1024 * 1024 })
      .toString()
      .split("\0")
      .filter(Boolean);
  } catch {
    const skip = new Set([".git", "node_modules", ".data", "build", "public/build"]);
    const walk = (dir: string): string[] =>
      fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
        const rel = dir ? `${dir}/${entry.name}` : entry.name;
        if (skip.has(rel)) return [];
        return entry.isDirectory() ? walk(rel) : entry.isFile() ? [rel] : [];
      });
    return walk("");
  }
}

/** Every line of the tracked text files (a file with a NUL byte is binary) that names something forbidden. */
function findOutsideReferences(files: string[], read: (file: string) => Buffer | null): string[] {
  const found: string[] = [];
  for (const file of files) {
    if (file === self) continue;
    const bytes = read(file);
    if (!bytes || bytes.includes(0)) continue;
    bytes
      .toString("utf8")
      .split("\n")
      .forEach((line, i) => {
        for (const { what, pattern } of FORBIDDEN) {
          const match = pattern.exec(line);
          if (match) found.push(`${file}:${i + 1}: ${what} ("${match[0]}")`);
        }
      });
  }
  return found;
}

const readFile = (file: string): Buffer | null => {
  try {
    return fs.readFileSync(path.join(root, file));
  } catch {
    return null; // listed by git but deleted in the working tree
  }
};

describe("the repository stands alone", () => {
  it("finds what it looks for", () => {
    // Put together at run time, so that this file does not itself name what it forbids.
    const lines = [
      `// as ${"DESIGN"}.md §5 says`,
      `see ${".."}/shared/STYLE.md`,
      ` * Live chat (${"issue"} 12): the handshake`,
      "issues 9 and 10 asked for it",
      "fixed in a follow-up (#29)",
      "closes #29",
    ];
    const found = findOutsideReferences(["a.ts"], () => Buffer.from(lines.join("\n")));
    expect(found.map((f) => f.split(":")[1])).toEqual(["1", "1", "2", "3", "4", "5", "6"]);
  });

  it("lets ordinary numbers, colours and field issues pass", () => {
    const lines = [
      'stroke="#999" fill="#fff"',
      "Soko order #1042",
      "React's hydration errors #418 and #423",
      "clicks: #1 (10,10) sent twice, #2 (70,79)",
      "return invalid(issues) // the zod issues of the form",
      "RFC 1951 section 3.2.4",
    ];
    expect(findOutsideReferences(["a.ts"], () => Buffer.from(lines.join("\n")))).toEqual([]);
  });

  it("no tracked file names the outside design page, the briefings folder, a spec section or an issue number", () => {
    const files = trackedFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(findOutsideReferences(files, readFile)).toEqual([]);
  });
});
