import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const alias = { "~": fileURLToPath(new URL("./app", import.meta.url)) };

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
        },
      },
    ],
  },
});
