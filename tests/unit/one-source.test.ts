/**
 * One source of truth: a cookie is read and written only by app/server/cookies.server.ts,
 * a ClickHouse client made only by app/analytics/clickhouse.server.ts (which alone spells out the server's
 * credentials), and a free port or a web server for tests and benchmarks only by scripts/lib/servers.ts.
 * The test walks the source, comments left out, and names every file that has its own copy again.
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
const SERVER = SOURCES.filter((f) => (f.startsWith("app") || f.startsWith("worker") || f === "server.ts") && !/\.test\.tsx?$/.test(f) && !f.includes("tracker"));

/** Files (other than `home`) whose code matches any of the patterns. */
function offenders(files: string[], home: string, patterns: RegExp[]): string[] {
  return files.filter((file) => file !== home && patterns.some((p) => p.test(code(file))));
}

describe("one source of truth", () => {
  it("reads and writes cookies only in app/server/cookies.server.ts", () => {
    const home = path.join("app", "server", "cookies.server.ts");
    expect(
      offenders(SERVER, home, [
        /from "cookie"/, // the package itself
        /\(\?:\^\|;|\(\^\|;/, // a regex that looks for `name=` at a cookie boundary
        /Path=\/|SameSite=|HttpOnly|Max-Age=/, // a Set-Cookie value written by hand
        /\.split\(";"\)[\s\S]{0,80}indexOf\("="\)/, // a hand-written header parser
      ]),
    ).toEqual([]);
  });

  it("makes ClickHouse clients only in app/analytics/clickhouse.server.ts, the one place that reads the credentials", () => {
    const home = path.join("app", "analytics", "clickhouse.server.ts");
    // The report tests' current ClickHouse (chDB) is a client on an in-process engine: no URL, no credentials.
    const engines = path.join("tests", "support", "clickhouse-engines.ts");
    expect(offenders(SOURCES.filter((f) => f !== engines), home, [/\bcreateClient\(/, /import \{[^}]*\bcreateClient\b[^}]*\} from "@clickhouse\/client"/])).toEqual([]);
    // The environment schema declares them; its own tests and the compose file's test check them there.
    const declared = [path.join("app", "server", "env.server.ts"), path.join("tests", "unit", "docker-compose.test.ts"), path.join("tests", "integration", "clickhouse-client.test.ts")];
    expect(offenders(SOURCES.filter((f) => !declared.includes(f)), home, [/CLICKHOUSE_USER|CLICKHOUSE_PASSWORD/])).toEqual([]);
  });

  it("finds free ports and starts the web server for tests and benchmarks only in scripts/lib/servers.ts", () => {
    const home = path.join("scripts", "lib", "servers.ts");
    expect(offenders(SOURCES, home, [/function freePort\b/, /const freePort\s*=/])).toEqual([]);
    // npm start's supervisor runs server.ts too, for people rather than tests: the one other door.
    const start = path.join("scripts", "start.ts");
    expect(offenders(SOURCES.filter((f) => f !== start), home, [/spawn\([^)]*\[\s*"server\.ts"/])).toEqual([]);
  });
});
