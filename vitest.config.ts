import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const alias = { "~": fileURLToPath(new URL("./app", import.meta.url)) };

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["app/**/*.test.{ts,tsx}", "worker/**/*.test.ts", "scripts/**/*.test.ts", "tests/integration/**/*.test.ts"],
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
          globalSetup: ["tests/support/global-setup.ts", "tests/support/e2e-global-setup.ts"],
          environment: "node",
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // Each file drives its own Chromium; two at once is what a 2-core machine takes.
          maxWorkers: 2,
          minWorkers: 1,
        },
      },
    ],
  },
});
