/**
 * The tracker must stay at or under 3 KB gzipped (docs/product.md, Analytics). It is measured twice: built here
 * the way the app's Vite build minifies a chunk (same target), so the test needs no prior build; and, when
 * `npm run build` has run, the chunk the app really serves (build/client/assets/tracker.client-*.js).
 */
import fs from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { build, type Rollup } from "vite";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const LIMIT_BYTES = 3072;
// The default level, as the `compression` middleware in server.ts serves it.
const gzipped = (code: string | Buffer) => gzipSync(code).length;

describe("the browser tracker's size", () => {
  it("is at most 3 KB gzipped when built and minified", async () => {
    const output = (await build({
      configFile: false,
      logLevel: "silent",
      root,
      build: {
        write: false,
        target: "es2019",
        minify: "esbuild",
        // An app build with the tracker as its entry (lib mode would keep whitespace in ES output).
        rollupOptions: { input: path.join(root, "app/analytics/tracker.client.ts"), preserveEntrySignatures: "exports-only" },
      },
    })) as Rollup.RollupOutput[] | Rollup.RollupOutput;
    const chunks = (Array.isArray(output) ? output : [output]).flatMap((o) => o.output).filter((o) => o.type === "chunk");
    // One self-contained chunk: nothing from events.ts (zod) or anywhere else is pulled in.
    expect(chunks).toHaveLength(1);
    const code = (chunks[0] as Rollup.OutputChunk).code;
    expect(code).toContain("/api/v1/analytics/");
    expect(code).not.toMatch(/zod|ZodError/);
    const size = gzipped(code);
    console.log(`tracker: ${code.length} bytes minified, ${size} bytes gzipped`);
    expect(size).toBeGreaterThan(500);
    expect(size).toBeLessThanOrEqual(LIMIT_BYTES);
  });

  it("is at most 3 KB gzipped as the app's build emits it", (context) => {
    const assets = path.join(root, "build/client/assets");
    const files = fs.existsSync(assets) ? fs.readdirSync(assets).filter((f) => /^tracker\.client-.*\.js$/.test(f)) : [];
    if (files.length === 0) return context.skip("no build/ with the tracker chunk: run `npm run build` first");
    const newest = files.map((f) => path.join(assets, f)).sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0]!;
    const code = fs.readFileSync(newest);
    expect(code.toString()).toContain("/api/v1/analytics/");
    expect(gzipped(code)).toBeLessThanOrEqual(LIMIT_BYTES);
  });
});
