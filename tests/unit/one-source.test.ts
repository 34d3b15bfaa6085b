/**
 * One source of truth: a cookie is read and written only by app/server/cookies.server.ts. Importing the
 * `cookie` package, writing a Set-Cookie value or a cookie-boundary regex elsewhere are lint errors, as are a
 * ClickHouse client or its credentials outside app/analytics/clickhouse.server.ts and a free port or a
 * spawned web server outside scripts/lib/servers.ts (eslint.config.js, checked by
 * tests/integration/lint-rules.test.ts). What a rule cannot say is a header parser written by hand (a split on
 * ";" then a search for "="); this walks the server code, comments left out, and names every file that has one.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.tsx?$/.test(entry.name)) out.push(rel);
  }
  return out;
}

/** The code of a file without its comments (so a comment may name what the code must not do). */
function code(file: string): string {
  return fs
    .readFileSync(path.join(root, file), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
}

const SOURCES = [...sourceFiles("app"), ...sourceFiles("worker"), ...sourceFiles("scripts"), ...sourceFiles("tests"), "server.ts"].filter(
  (file) => file !== path.join("tests", "unit", "one-source.test.ts"),
);
/** Server code, where a cookie is a header to parse (the browser tracker reads document.cookie itself). */
const SERVER = SOURCES.filter(
  (f) => (f.startsWith("app") || f.startsWith("worker") || f === "server.ts") && !/\.test\.tsx?$/.test(f) && !f.includes("tracker"),
);

/** Files (other than `home`) whose code matches any of the patterns. */
function offenders(files: string[], home: string, patterns: RegExp[]): string[] {
  return files.filter((file) => file !== home && patterns.some((p) => p.test(code(file))));
}

describe("one source of truth", () => {
  it("parses cookie headers only in app/server/cookies.server.ts", () => {
    const home = path.join("app", "server", "cookies.server.ts");
    expect(offenders(SERVER, home, [/\.split\(";"\)[\s\S]{0,80}indexOf\("="\)/])).toEqual([]);
  });
});
