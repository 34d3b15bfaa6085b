/**
 * Production runs the web server and the worker as compiled JavaScript (ADR 020, scripts/lib/compile.ts):
 * the compiled files load no TypeScript, find the files beside their sources, are compiled again when a
 * source is newer, and the worker runs from them under node alone. (The web server's run is every
 * end-to-end test's: tests/support/test-server.ts starts the compiled server.)
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEnv } from "~/server/env.server";
import type { Metafile } from "esbuild";
import { compiledServer, compiledWorker, ensureCompiled, processesDir, staleReason } from "../../scripts/lib/compile";
import { compiledProcess, startProcess, waitUntil } from "../../scripts/lib/servers";
import { createTestDatabase, type TestDatabase } from "../support/databases";

const root = path.resolve(import.meta.dirname, "../..");

/** The GeoIP reader's packages and the database's: the worker's alone (ADR 021, amended 2026-11-27). */
const GEO_PACKAGES = /^(?:maxmind|mmdb-lib|@ip-location-db\/)/;

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  await ensureCompiled();
});
afterAll(() => t?.drop());

describe("the compiled processes", () => {
  it("are JavaScript that imports npm packages and Node's modules only, never a TypeScript file", () => {
    for (const file of [compiledServer, compiledWorker]) {
      const code = fs.readFileSync(file, "utf8");
      const specifiers = [...code.matchAll(/^import\s[^"']*["']([^"']+)["'];?$/gm)].map((m) => m[1]!);
      expect(specifiers.length).toBeGreaterThan(5);
      expect(specifiers.filter((s) => s.startsWith(".") || s.startsWith("/") || s.startsWith("~") || /\.tsx?$/.test(s))).toEqual([]);
    }
  });

  it("give each module its own source file's URL, so server.ts finds build/ and public/ beside itself", () => {
    const code = fs.readFileSync(compiledServer, "utf8");
    const urls = [...code.matchAll(/new URL\("([^"]+)", import\.meta\.url\)\.href/g)].map((m) => m[1]!);
    expect(urls).toContain("../../server.ts");
    for (const relative of urls) expect(fs.existsSync(path.resolve(path.dirname(compiledServer), relative)), relative).toBe(true);
  });

  it("are compiled again when a source is newer than them, and not otherwise", async () => {
    expect(staleReason()).toBeNull();
    const past = new Date(Date.now() - 3_600_000);
    fs.utimesSync(compiledWorker, past, past);
    expect(staleReason()).toMatch(/ changed$/);
    await ensureCompiled(() => {});
    expect(staleReason()).toBeNull();
    expect(fs.statSync(compiledWorker).mtimeMs).toBeGreaterThan(past.getTime() + 1_000);
  });

  it("leave the GeoIP lookup to the worker: nothing the web server runs imports it, its reader or its database", () => {
    const meta = JSON.parse(fs.readFileSync(path.join(processesDir, "meta.json"), "utf8")) as Metafile;
    const geoIn = (entryPoint: string) => {
      const output = Object.values(meta.outputs).find((o) => o.entryPoint === entryPoint);
      if (!output) throw new Error(`no output for ${entryPoint}`);
      return {
        modules: Object.keys(output.inputs).filter((input) => /(?:^|\/)geo\.server\.ts$/.test(input)),
        packages: output.imports.filter((i) => GEO_PACKAGES.test(i.path)).map((i) => i.path),
      };
    };
    expect(geoIn("worker/index.ts")).toEqual({ modules: ["worker/geo.server.ts"], packages: ["maxmind"] });
    expect(geoIn("server.ts")).toEqual({ modules: [], packages: [] });
    // Remix's server build (routes, loaders, actions), which the compiled server imports at run time.
    const remix = fs.readFileSync(path.join(root, "build", "server", "index.js"), "utf8");
    const specifiers = [...remix.matchAll(/^import\s(?:[^"']*?from\s*)?["']([^"']+)["'];?$/gm)].map((m) => m[1]!);
    expect(specifiers.length).toBeGreaterThan(5);
    expect(specifiers.filter((s) => GEO_PACKAGES.test(s))).toEqual([]);
  });

  it("load sharp only when an image is decoded: neither process, nor Remix's build, imports it as it starts", () => {
    const meta = JSON.parse(fs.readFileSync(path.join(processesDir, "meta.json"), "utf8")) as Metafile;
    for (const entryPoint of ["server.ts", "worker/index.ts"]) {
      const output = Object.values(meta.outputs).find((o) => o.entryPoint === entryPoint)!;
      const sharp = output.imports.filter((i) => i.path === "sharp");
      expect(
        sharp.every((i) => i.kind === "dynamic-import"),
        entryPoint,
      ).toBe(true);
    }
    const remix = fs.readFileSync(path.join(root, "build", "server", "index.js"), "utf8");
    expect(remix).not.toMatch(/^import\s[^;]*["']sharp["']/m);
  });

  it("run under node itself with production's memory settings", () => {
    const web = compiledProcess("web", { NODE_ENV: "production" });
    expect(web.command).toBe(process.execPath);
    expect(web.args.at(-1)).toBe(compiledServer);
    expect(web.args).toContain("--heap-growing-percent=50");
    expect(web.env).toEqual({ MALLOC_ARENA_MAX: "2", NODE_ENV: "production" });
    expect(compiledProcess("worker", { MALLOC_ARENA_MAX: "4" }).env.MALLOC_ARENA_MAX).toBe("4");
  });

  it("the compiled worker connects, says it is ready, and closes on SIGTERM", async () => {
    const env = getEnv();
    const worker = await startProcess("worker", {
      DATABASE_URL: t.url,
      REDIS_URL: env.REDIS_URL,
      CLICKHOUSE_URL: env.CLICKHOUSE_URL,
      QUEUE_PREFIX: `compiled_worker_test_${process.pid}`,
    });
    try {
      await waitUntil(worker, () => worker.output().includes("[worker] ready"), "[worker] ready", 20_000, 50);
      expect(fs.readlinkSync(`/proc/${worker.child.pid}/exe`)).toBe(fs.realpathSync(process.execPath));
      expect(fs.readFileSync(`/proc/${worker.child.pid}/cmdline`, "utf8").split("\0")).toContain(compiledWorker);
      worker.child.kill("SIGTERM");
      expect(await worker.exit).toBe(0);
      expect(worker.output()).toContain("[worker] closed");
    } finally {
      await worker.stop();
    }
  });
});
