/**
 * Starts the built app (NODE_ENV=production, the same code `npm start` runs) as a child process on a
 * free port, against the databases a test chooses, and stops it again.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { getEnv } from "~/utils/env.server";

const root = path.resolve(import.meta.dirname, "../..");

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export type TestServer = { port: number; baseUrl: string; adminUrl: string; child: ChildProcess; stop: () => Promise<void> };

export async function startTestServer(env: Record<string, string>): Promise<TestServer> {
  if (!fs.existsSync(path.join(root, "build", "server", "index.js"))) {
    throw new Error("build/ is missing: run `npm run build` (npm test does it) before the end-to-end tests");
  }
  const port = await freePort();
  const base = getEnv();
  const child = spawn(path.join(root, "node_modules", ".bin", "tsx"), ["server.ts"], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      ALLOW_HTTP: "1",
      PORT: String(port),
      DATABASE_URL: base.DATABASE_URL,
      REDIS_URL: base.REDIS_URL,
      CLICKHOUSE_URL: base.CLICKHOUSE_URL,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const baseUrl = `http://localhost:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`test server exited early:\n${output}`);
    try {
      const res = await fetch(`${baseUrl}/healthz`);
      if (res.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`test server did not start within 30 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    baseUrl,
    adminUrl: `http://admin.localhost:${port}`,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        child.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill("SIGTERM");
      }),
  };
}
