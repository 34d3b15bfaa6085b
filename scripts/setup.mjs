#!/usr/bin/env node
/**
 * The first step of `npm start` and `npm test` on any machine, fresh or not. Plain Node with no
 * dependencies, because it runs before they are installed:
 *   1. installs npm dependencies when node_modules is missing (npm ci) or older than package-lock.json;
 *   2. starts the project's own Postgres, Redis and ClickHouse (scripts/services.ts), installing the
 *      Debian packages when missing; with --test also makes sure Chromium and docker-compose are installed.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const forTests = process.argv.includes("--test");

const [major] = process.versions.node.split(".").map(Number);
if (major < 20) {
  console.error(`[setup] Node.js 20 or newer is required; this is ${process.version}.`);
  process.exit(1);
}

function mtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

const lock = path.join(root, "package-lock.json");
const installed = path.join(root, "node_modules", ".package-lock.json");
if (mtime(installed) === 0 || mtime(installed) < mtime(lock) || mtime(installed) < mtime(path.join(root, "package.json"))) {
  // A fresh clone (CI) installs exactly the lock file with `npm ci`. The lock lists every platform's
  // optional packages (esbuild, rollup, sharp's @img/*, msgpackr-extract), which `npm ci` insists on
  // (tests/unit/lockfile.test.ts keeps it so). `npm ci` checks the lock before it touches anything
  // and refuses one out of step with package.json: then `npm install`, which follows the lock where it can.
  // An existing node_modules is brought up to date by `npm install` in place, never deleted and
  // reinstalled under processes that are running from it.
  // Install scripts: npm 11 holds them back (esbuild's postinstall, sharp's check) until approved; none is
  // needed, since each platform's binary arrives as an optional package (docs/decisions/001).
  const fresh = !fs.existsSync(path.join(root, "node_modules"));
  let done = false;
  if (fresh && fs.existsSync(lock)) {
    console.log("[setup] npm ci (a fresh checkout: exactly what package-lock.json lists)");
    const ci = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], {
      cwd: root,
      stdio: ["inherit", "inherit", "pipe"],
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    done = ci.status === 0;
    if (!done) {
      // npm's reason, without the usage text it prints after it.
      const errors = (ci.stderr ?? "").split("\n").filter((l) => l.startsWith("npm error"));
      const usage = errors.findIndex((l) => /^npm error (Clean install|Usage:)/.test(l));
      const reason = errors.slice(0, usage === -1 ? undefined : usage).filter((l) => /^npm error \S/.test(l) && !/^npm error code /.test(l));
      console.log(`[setup] npm ci refused:\n  ${reason.slice(0, 8).join("\n  ")}\n[setup] trying npm install`);
    }
  }
  if (!done) {
    console.log("[setup] npm install (dependencies changed or missing)");
    execFileSync("npm", ["install", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
  }
  // Mark the install as newer than package.json and the lock, so the check above holds next time.
  const now = new Date();
  fs.utimesSync(installed, now, now);
}

const tsx = path.join(root, "node_modules", ".bin", "tsx");
execFileSync(tsx, ["scripts/services.ts", "start", ...(forTests ? ["--browser"] : [])], {
  cwd: root,
  stdio: "inherit",
});
