/**
 * The repository's own lint rules (eslint.config.js, docs/decisions/039-lint-and-format.md) took over checks
 * that tests/integration/operations-boundary.test.ts and tests/unit/one-source.test.ts made by walking the source. Each
 * fixture in tests/fixtures/lint/ breaks one of them on the lines it marks; linted as if it were a file the
 * rule governs, it must be reported on exactly those lines, and not at all where the rule allows it. So a rule
 * cannot be dropped or rescoped without this failing.
 */
import fs from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const eslint = new ESLint({ cwd: root });

/** The lines of a fixture whose trailing comment is `// <marker>`. */
function marked(source: string, marker: string): number[] {
  return source.split("\n").flatMap((line, i) => (new RegExp(`// ${marker}$`).test(line) ? [i + 1] : []));
}

/** The lines on which `rule` reports the fixture, linted as the repository file `as`. */
async function reported(fixture: string, as: string, rule: string): Promise<number[]> {
  const source = fs.readFileSync(path.join(root, "tests", "fixtures", "lint", fixture), "utf8");
  const [result] = await eslint.lintText(source, { filePath: path.join(root, as) });
  expect(result!.messages.filter((m) => m.fatal)).toEqual([]);
  return result!.messages.filter((m) => m.ruleId === rule).map((m) => m.line);
}

const CASES: { rule: string; fixture: string; marker: string; governed: string[]; allowed: string[] }[] = [
  {
    rule: "soko/no-writes-outside-operations",
    fixture: "writes.ts.txt",
    marker: "write",
    governed: [
      "app/routes/lint-fixture.tsx",
      "app/components/lint-fixture.tsx",
      "app/server/lint-fixture.server.ts",
      "worker/lint-fixture.server.ts",
      "server.ts",
    ],
    allowed: ["app/operations/lint-fixture.server.ts", "app/models/lint-fixture.server.ts", "app/server/migrate.server.ts"],
  },
  {
    rule: "soko/knex-in-one-place",
    fixture: "writes.ts.txt",
    marker: "knex-in-one-place",
    governed: ["app/routes/lint-fixture.tsx", "worker/lint-fixture.server.ts"],
    allowed: ["app/server/db.server.ts", "app/operations/lint-fixture.server.ts"],
  },
  {
    rule: "soko/cookies-in-one-place",
    fixture: "cookies.ts.txt",
    marker: "cookie",
    governed: ["app/server/lint-fixture.server.ts", "app/routes/lint-fixture.tsx", "worker/lint-fixture.server.ts"],
    allowed: ["app/server/cookies.server.ts", "app/analytics/tracker.client.ts"],
  },
  {
    rule: "soko/clickhouse-client-in-one-place",
    fixture: "clickhouse.ts.txt",
    marker: "client",
    governed: ["scripts/lint-fixture.ts", "app/analytics/lint-fixture.server.ts", "tests/support/lint-fixture.ts", "worker/lint-fixture.server.ts"],
    allowed: ["app/analytics/clickhouse.server.ts", "tests/support/clickhouse-engines.ts"],
  },
  {
    rule: "soko/clickhouse-credentials-in-one-place",
    fixture: "clickhouse.ts.txt",
    marker: "credentials",
    governed: ["scripts/lint-fixture.ts", "tests/support/clickhouse-engines.ts", "app/analytics/lint-fixture.server.ts"],
    allowed: ["app/analytics/clickhouse.server.ts", "app/server/env.server.ts"],
  },
  {
    rule: "soko/servers-in-one-place",
    fixture: "servers.ts.txt",
    marker: "servers",
    governed: ["tests/support/lint-fixture.ts", "scripts/lint-fixture.ts", "app/server/lint-fixture.server.ts"],
    allowed: ["scripts/lib/servers.ts"],
  },
];

describe("the repository's lint rules", () => {
  for (const { rule, fixture, marker, governed, allowed } of CASES) {
    it(`${rule} reports ${fixture} where it governs, and only there`, async () => {
      const lines = marked(fs.readFileSync(path.join(root, "tests", "fixtures", "lint", fixture), "utf8"), marker);
      expect(lines.length).toBeGreaterThan(0);
      for (const as of governed) expect({ as, lines: await reported(fixture, as, rule) }).toEqual({ as, lines });
      for (const as of allowed) expect({ as, lines: await reported(fixture, as, rule) }).toEqual({ as, lines: [] });
    });
  }
});
