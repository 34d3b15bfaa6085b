/**
 * `npm test` after scripts/setup.mjs: type-checks, builds the app (the end-to-end specs run the built
 * server, as production does), runs every vitest project (unit first, then integration and end-to-end; see
 * vitest.config.ts), prints each project's counts, and ends with one summary line.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { LOCAL_URLS } from "~/utils/local-services";
import { bin, buildApp, root } from "./build";

const env: NodeJS.ProcessEnv = {
  ...process.env,
  // Tests run as "test" even from a production shell; the e2e server sets production for itself.
  NODE_ENV: "test",
  DATABASE_URL: process.env.DATABASE_URL ?? LOCAL_URLS.DATABASE_URL,
  REDIS_URL: process.env.REDIS_URL ?? LOCAL_URLS.REDIS_URL,
  CLICKHOUSE_URL: process.env.CLICKHOUSE_URL ?? LOCAL_URLS.CLICKHOUSE_URL,
};

function run(label: string, command: string, args: string[]) {
  console.log(`\n[test] ${label}`);
  const result = spawnSync(command, args, { cwd: root, env, stdio: "inherit" });
  return result.status ?? 1;
}

const reportFile = path.join(root, ".data", "vitest-report.json");
fs.rmSync(reportFile, { force: true });

let failedSteps = 0;
// Lint first, eslint and prettier --check (docs/decisions/039-lint-and-format.md); a failure counts, the tests still run.
if (run("lint (npm run lint)", "npm", ["run", "--silent", "lint"]) !== 0) failedSteps++;
if (run("type-check (tsc --noEmit)", bin("tsc"), ["--noEmit"]) !== 0) failedSteps++;
// The specs drive the production bundle that visitors get, whatever the tests' own NODE_ENV.
console.log("\n[test] build (remix vite:build)");
if (buildApp({ env }) !== 0) {
  console.error("[test] the build failed; the end-to-end specs cannot run");
  console.log("\nsummary: 0 passed, 1 failed");
  process.exit(1);
}
const status = run("vitest (unit, integration, end-to-end)", bin("vitest"), [
  "run",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${reportFile}`,
  ...process.argv.slice(2),
]);

/** The project a test file belongs to, by where it lives (vitest.config.ts). */
function projectOf(file: string): "unit" | "integration" | "e2e" {
  const relative = path.relative(root, file).split(path.sep).join("/");
  if (relative.startsWith("tests/e2e/")) return "e2e";
  if (relative.startsWith("tests/integration/")) return "integration";
  return "unit";
}

let passed = 0;
let failed = failedSteps;
let skipped = 0;
try {
  const report = JSON.parse(fs.readFileSync(reportFile, "utf8")) as {
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    numTodoTests: number;
    numFailedTestSuites: number;
    testResults?: { name: string; status: string; assertionResults?: { status: string }[] }[];
  };
  const projects = new Map<string, { files: number; passed: number; failed: number; skipped: number }>();
  for (const file of report.testResults ?? []) {
    const name = projectOf(file.name);
    const counts = projects.get(name) ?? { files: 0, passed: 0, failed: 0, skipped: 0 };
    counts.files += 1;
    for (const { status } of file.assertionResults ?? []) {
      if (status === "passed") counts.passed += 1;
      else if (status === "failed") counts.failed += 1;
      else counts.skipped += 1;
    }
    // A file that failed outside its tests (it did not load, a hook threw) counts as one failure.
    if (file.status === "failed" && !file.assertionResults?.some((a) => a.status === "failed")) counts.failed += 1;
    projects.set(name, counts);
  }
  console.log("");
  for (const name of ["unit", "integration", "e2e"]) {
    const c = projects.get(name);
    if (c) console.log(`[test] ${name}: ${c.files} files, ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`);
  }
  passed = report.numPassedTests;
  failed += report.numFailedTests + (report.numFailedTests === 0 && status !== 0 ? report.numFailedTestSuites || 1 : 0);
  skipped = report.numPendingTests + report.numTodoTests;
} catch {
  failed += 1;
}
if (passed === 0 && failed === 0) failed = 1; // a run that tested nothing is not a pass
console.log(`\nsummary: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || status !== 0 ? 1 : 0);
