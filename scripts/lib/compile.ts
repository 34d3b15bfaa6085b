/**
 * Compiles the two processes production runs, `server.ts` and `worker/index.ts`, to plain JavaScript with
 * esbuild (ADR 020): build/processes/server.js and build/processes/worker.js, ES modules for Node 20 with
 * every npm package left to node_modules, so `node build/processes/server.js` needs no TypeScript loader.
 * Our own modules (app/, worker/) are bundled in; Remix's server build (build/server/index.js) stays the
 * file server.ts imports at run time. `scripts/build.ts` runs this after `remix vite:build`;
 * scripts/lib/servers.ts compiles again when a source changed since (a bare `remix vite:build` empties build/).
 *
 *   tsx scripts/lib/compile.ts     compiles; exit status 0 or 1
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as esbuild from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Where the compiled processes go: inside build/, which every build starts from empty. */
export const processesDir = path.join(root, "build", "processes");
export const compiledServer = path.join(processesDir, "server.js");
export const compiledWorker = path.join(processesDir, "worker.js");
/** esbuild's list of the files each output was made from: how a later run tells the output is stale. */
const metafilePath = path.join(processesDir, "meta.json");

export const compiledCluster = path.join(processesDir, "cluster.js");
/** The cluster primary (cluster.ts) runs when WEB_PROCESSES or WORKER_PROCESSES is above 1 (ADR 059). */
const entryPoints = { server: path.join(root, "server.ts"), worker: path.join(root, "worker", "index.ts"), cluster: path.join(root, "cluster.ts") };

/**
 * Our modules find files relative to themselves (server.ts: `build/` and `public/` beside it; geo: the
 * mmdb package through createRequire). Bundled, `import.meta.url` would name the bundle in build/processes/
 * instead, so each module's `import.meta.url` is rewritten to its own source file's URL, derived from the
 * bundle's at run time (a checkout moved elsewhere still works). `import.meta.dirname` and `.filename`
 * have no such rewrite: the build refuses them rather than let them point into build/.
 */
const sourceUrlPlugin: esbuild.Plugin = {
  name: "source-import-meta-url",
  setup(build) {
    build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = await fs.promises.readFile(args.path, "utf8");
      const loader = path.extname(args.path).slice(1).replace(/^[cm]/, "") as esbuild.Loader;
      if (/\bimport\.meta\.(dirname|filename)\b/.test(source)) {
        return { errors: [{ text: "import.meta.dirname/filename cannot survive bundling: use import.meta.url (rewritten to this file's own URL)" }] };
      }
      if (!/\bimport\.meta\.url\b/.test(source)) return { contents: source, loader };
      const relative = path.relative(processesDir, args.path).split(path.sep).join("/");
      const ownUrl = `new URL(${JSON.stringify(relative)}, import.meta.url).href`;
      return { contents: source.replace(/\bimport\.meta\.url\b/g, ownUrl), loader };
    });
  },
};

export const compileOptions: esbuild.BuildOptions = {
  entryPoints,
  outdir: processesDir,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // npm packages load from node_modules as under tsx (native addons, sharp, JSON data files, and one copy
  // of each shared with Remix's build); only our TypeScript is compiled in.
  packages: "external",
  // tsconfig.json's `~/*` alias resolves to app/ (esbuild reads it).
  tsconfig: path.join(root, "tsconfig.json"),
  // Readable output: stack traces name our functions, and a `.map` beside each file serves
  // `node --enable-source-maps` when a trace must point at the TypeScript.
  minify: false,
  keepNames: true,
  sourcemap: "linked",
  legalComments: "none",
  logLevel: "warning",
  metafile: true,
  plugins: [sourceUrlPlugin],
};

/**
 * Compiles both processes. Files are written under temporary names and renamed into place, so a process
 * starting meanwhile (another test file's server) reads the old file or the new one, never half of one.
 */
export async function compileProcesses(): Promise<void> {
  const result = await esbuild.build({ ...compileOptions, write: false });
  fs.mkdirSync(processesDir, { recursive: true });
  const suffix = `.${process.pid}.${Date.now()}.tmp`;
  const files = [
    ...result.outputFiles.map((f) => ({ path: f.path, contents: f.contents })),
    { path: metafilePath, contents: Buffer.from(JSON.stringify(result.metafile)) },
  ];
  for (const file of files) fs.writeFileSync(file.path + suffix, file.contents);
  // The metafile last: while it is older than the bundles, a reader sees them as current at worst a moment early.
  for (const file of files) fs.renameSync(file.path + suffix, file.path);
}

/** Why the compiled processes must be compiled again (missing, or a source newer than them), or null when current. */
export function staleReason(): string | null {
  let inputs: string[];
  let builtAt: number;
  try {
    const meta = JSON.parse(fs.readFileSync(metafilePath, "utf8")) as esbuild.Metafile;
    inputs = Object.keys(meta.inputs).map((input) => path.resolve(root, input));
    builtAt = Math.min(...[compiledServer, compiledWorker, compiledCluster].map((file) => fs.statSync(file).mtimeMs));
  } catch {
    return "build/processes/ is missing";
  }
  for (const input of [...inputs, path.join(root, "tsconfig.json")]) {
    let changedAt: number;
    try {
      changedAt = fs.statSync(input).mtimeMs;
    } catch {
      return `${path.relative(root, input)} is gone`;
    }
    if (changedAt > builtAt) return `${path.relative(root, input)} changed`;
  }
  return null;
}

/** Compiles when the compiled processes are missing or older than a source; says so on stderr when it does. */
export async function ensureCompiled(log: (line: string) => void = (line) => console.error(line)): Promise<void> {
  const reason = staleReason();
  if (!reason) return;
  const started = Date.now();
  await compileProcesses();
  log(`[build] compiled server.ts and worker/index.ts to build/processes/ in ${Date.now() - started} ms (${reason})`);
}

const isMain = process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url;
if (isMain) {
  compileProcesses().then(
    () => process.exit(0),
    (error: Error) => {
      console.error(`[build] compiling server.ts and worker/index.ts failed: ${error.message}`);
      process.exit(1);
    },
  );
}
