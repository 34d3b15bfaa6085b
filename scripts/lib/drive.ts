/**
 * Driving the built web server and timing calls, for the benchmarks that compare an endpoint with its bare model
 * call (bench-catalog.ts, bench-api.ts): the production build (built when missing), the server as a child
 * process in its own process group, autocannon with every response's status and latency, and a function called
 * from concurrent loops.
 */
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import { buildApp, root } from "../build";
import { startAppServer, type AppServer } from "./servers";

/** The newest modification time of any file under a folder (to warn about a stale build). */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

export function ensureBuild(force: boolean) {
  const serverBuild = path.join(root, "build", "server", "index.js");
  if (force || !fs.existsSync(serverBuild)) {
    console.log("\nBuilding (remix vite:build)…");
    if (buildApp({ stdio: ["ignore", "ignore", "inherit"] }) !== 0) throw new Error("the build failed");
    return;
  }
  if (newestMtime(path.join(root, "app")) > fs.statSync(serverBuild).mtimeMs) {
    console.warn("\nWarning: app/ has changed since the last build; pass --build to benchmark the current code.");
  }
}

export type WebServer = AppServer;

/**
 * The built web server (scripts/lib/servers.ts) in its own process group (tsx runs node as its child), so
 * stopping it reaches both: SIGTERM, then SIGKILL 15 s later.
 */
export function startServer(env: Record<string, string>): Promise<WebServer> {
  return startAppServer(env, { host: "127.0.0.1", timeoutMs: 60_000, stopGraceMs: 15_000, processGroup: true });
}

// ---------------------------------------------------------------------------------------------------------
// Measuring.

export type Stats = { p50: number; p95: number; p99: number; perSecond: number; count: number };
export type EndpointStats = Stats & { non2xx: number; errors: number; timeouts: number };
/** How long and how hard each measurement drives: concurrent connections or workers, seconds of warm-up, seconds measured. */
export type Timing = { connections: number; warmupS: number; durationS: number };

/** Nearest-rank percentiles of latencies in ms, and how many per second over `seconds`. */
export function summarise(samples: number[], seconds: number): Stats {
  const sorted = Float64Array.from(samples).sort();
  const at = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]! : NaN);
  return { p50: at(50), p95: at(95), p99: at(99), perSecond: samples.length / seconds, count: samples.length };
}

export function runAutocannon(options: autocannon.Options, onResponse: (status: number, ms: number) => void): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
    instance.on("response", (_client, status, _bytes, ms) => onResponse(status, ms));
  });
}

/**
 * An endpoint under autocannon: `request(seconds)` for `timing.warmupS` unmeasured, then for `timing.durationS`,
 * noting the latency of every 2xx answer and counting the others.
 */
export async function measureEndpoint(request: (seconds: number) => autocannon.Options, timing: Timing): Promise<EndpointStats> {
  await runAutocannon(request(timing.warmupS), () => {});
  const latencies: number[] = [];
  let non2xx = 0;
  const started = performance.now();
  const result = await runAutocannon(request(timing.durationS), (status, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms);
    else non2xx++;
  });
  const seconds = (performance.now() - started) / 1000;
  return { ...summarise(latencies, seconds), non2xx, errors: result.errors, timeouts: result.timeouts };
}

/** Calls `fn` from `workers` concurrent loops for `seconds`, timing each call. */
export async function hammer(fn: () => Promise<unknown>, workers: number, seconds: number): Promise<number[]> {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      await fn();
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return latencies;
}

/** A bare call from `timing.connections` workers: a warm-up, then timed. */
export async function measureQuery(fn: () => Promise<unknown>, options: Timing): Promise<Stats> {
  await hammer(fn, options.connections, options.warmupS);
  const started = performance.now();
  const latencies = await hammer(fn, options.connections, options.durationS);
  return summarise(latencies, (performance.now() - started) / 1000);
}
