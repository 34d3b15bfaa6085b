import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const alias = { "~": fileURLToPath(new URL("./app", import.meta.url)) };

// Three projects (docs/decisions/040-test-projects.md):
// - unit: tests that need no service at all (no Postgres, Redis, ClickHouse, build or browser): the tests beside
//   the code in app/, worker/ and scripts/, and tests/unit/. `npm run test:unit` runs them with every service stopped.
// - integration: tests/integration/, against the real services, with a migrated template database per run.
// - e2e: tests/e2e/, the built app in Chromium.
// `vitest run` with no project runs the unit tests first (a minute at most), then integration and e2e together, two
// files at a time, as the two had always run.
export default defineConfig({
  resolve: { alias },
  test: {
    // Two files at once: each e2e file drives its own Chromium, and this machine has 2 cores.
    maxWorkers: 2,
    minWorkers: 1,
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["app/**/*.test.{ts,tsx}", "worker/**/*.test.ts", "scripts/**/*.test.ts", "tests/unit/**/*.test.ts"],
          sequence: { groupOrder: 0 },
          environment: "node",
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          sequence: { groupOrder: 1 },
          globalSetup: ["tests/support/global-setup.ts"],
          environment: "node",
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "e2e",
          include: ["tests/e2e/**/*.e2e.test.ts"],
          sequence: { groupOrder: 1 },
          globalSetup: ["tests/support/global-setup.ts", "tests/support/e2e-global-setup.ts"],
          environment: "node",
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
