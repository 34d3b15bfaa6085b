/**
 * The one way our scripts build the app (`npm start`, `npm test`, `npm run build`, the benchmarks): always the
 * production bundle. Vite writes NODE_ENV into the browser code, so a NODE_ENV left in the shell (test,
 * development) would otherwise ship React's development build, whose StrictMode runs every effect twice.
 * After Remix's build, the web server and the worker are compiled to JavaScript (scripts/lib/compile.ts,
 * ADR 020): production runs `node build/processes/server.js` and `node build/processes/worker.js`.
 *
 *   tsx scripts/build.ts     builds; exit status 0 or 1 (npm run build)
 */
import { spawnSync, type StdioOptions } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const bin = (name: string) => path.join(root, "node_modules", ".bin", name);

/** Runs `remix vite:build` (which empties build/), then compiles the two processes; returns the exit status. */
export function buildApp({ env = process.env, stdio = "inherit" }: { env?: NodeJS.ProcessEnv; stdio?: StdioOptions } = {}): number {
  const remix = spawnSync(bin("remix"), ["vite:build"], { cwd: root, env: { ...env, NODE_ENV: "production" }, stdio });
  if (remix.status !== 0) return remix.status ?? 1;
  // esbuild's plugins need its asynchronous API: a child keeps buildApp synchronous for its callers.
  const compile = spawnSync(bin("tsx"), [path.join(root, "scripts", "lib", "compile.ts")], { cwd: root, env, stdio });
  return compile.status ?? 1;
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) process.exit(buildApp());
