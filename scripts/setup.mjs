#!/usr/bin/env node
/**
 * The first step of `npm start` and `npm test` on any machine, fresh or not. Plain Node with no
 * dependencies, because it runs before they are installed:
 *   1. installs npm dependencies when node_modules is missing or older than package-lock.json;
 *   2. starts the project's own Postgres, Redis and ClickHouse (scripts/services.ts), installing the
 *      Debian packages when missing; with --test also makes sure Chromium and docker-compose are installed.
 */
import { execFileSync } from "node:child_process";
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
  // `npm install` rather than `npm ci`: npm 11 here writes lock files that its own `npm ci` then refuses
  // (other platforms' optional packages missing); `npm install` follows the same lock file.
  console.log("[setup] npm install (dependencies changed or missing)");
  execFileSync("npm", ["install", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
  // Mark the install as newer than package.json and the lock, so the check above holds next time.
  const now = new Date();
  fs.utimesSync(installed, now, now);
}

const tsx = path.join(root, "node_modules", ".bin", "tsx");
execFileSync(tsx, ["scripts/services.ts", "start", ...(forTests ? ["--browser"] : [])], {
  cwd: root,
  stdio: "inherit",
});
