/**
 * The one way our scripts build the app (`npm start`, `npm test`, the benchmarks): always the production
 * bundle. Vite writes NODE_ENV into the browser code, so a NODE_ENV left in the shell (test, development)
 * would otherwise ship React's development build, whose StrictMode runs every effect twice.
 */
import { spawnSync, type StdioOptions } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const bin = (name: string) => path.join(root, "node_modules", ".bin", name);

/** Runs `remix vite:build`; returns its exit status. */
export function buildApp({ env = process.env, stdio = "inherit" }: { env?: NodeJS.ProcessEnv; stdio?: StdioOptions } = {}): number {
  const result = spawnSync(bin("remix"), ["vite:build"], { cwd: root, env: { ...env, NODE_ENV: "production" }, stdio });
  return result.status ?? 1;
}
