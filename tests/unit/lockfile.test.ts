/**
 * package-lock.json must be one `npm ci` accepts on any machine: in step with package.json, and listing
 * every platform's optional packages (esbuild, rollup, sharp's @img/*, msgpackr-extract). An `npm install`
 * that rebuilds the lock from this machine's node_modules can drop the other platforms' ones; `npm ci`
 * then refuses the lock everywhere, CI included (scripts/setup.mjs).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
type Entry = {
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};
const lock = JSON.parse(fs.readFileSync(path.join(root, "package-lock.json"), "utf8")) as { lockfileVersion: number; packages: Record<string, Entry> };
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as Entry;

/** Where Node would find `name` from the package at `from`: its own node_modules, then each parent's. */
function resolve(from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ""}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!base) return undefined;
    const i = base.lastIndexOf("/node_modules/");
    base = i >= 0 ? base.slice(0, i) : "";
  }
}

describe("package-lock.json", () => {
  it("is in step with package.json", () => {
    expect(lock.lockfileVersion).toBeGreaterThanOrEqual(2);
    const rootEntry = lock.packages[""]!;
    expect(rootEntry.dependencies ?? {}).toEqual(pkg.dependencies ?? {});
    expect(rootEntry.devDependencies ?? {}).toEqual(pkg.devDependencies ?? {});
  });

  it("lists every dependency of every package, other platforms' optional ones included", () => {
    const missing: string[] = [];
    for (const [at, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
        if (!resolve(at, name)) missing.push(`${at || "(root)"} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
    // The native binaries of the build tools, for more than this machine.
    for (const name of ["@esbuild/darwin-arm64", "@esbuild/win32-x64", "@rollup/rollup-darwin-arm64", "@img/sharp-darwin-arm64", "@img/sharp-linux-arm64"]) {
      expect(
        Object.keys(lock.packages).some((p) => p.endsWith(`node_modules/${name}`)),
        name,
      ).toBe(true);
    }
  });
});
