/**
 * What a benchmark reports besides its own figures: percentiles, the CPU and memory of the processes it
 * started (from /proc, Linux), the commit and machine it ran on, and its run appended to its history file under
 * docs/benchmarks/history/. bench-ingest.ts and bench-catalog.ts still keep copies of some of these.
 */
import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Child } from "./servers";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
export const BENCHMARKS_HISTORY = path.join(root, "docs", "benchmarks", "history");

/** The p-th percentile (nearest rank) of ascending `sorted`; NaN when empty. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export type Spread = { n: number; p50: number; p95: number; p99: number; max: number };

export function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), max: sorted.at(-1) ?? Number.NaN };
}

/** The median of some numbers (NaN when there are none). */
export function median(values: number[]): number {
  return percentile(
    [...values].filter(Number.isFinite).sort((a, b) => a - b),
    50,
  );
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Seconds of CPU (user + system) a process has used, or null when it is gone. */
export function cpuSecondsOf(pid: number | null): number | null {
  if (!pid) return null;
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** A process and every process under it (a cluster primary and its web processes or workers), from /proc. */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(parents.get(tree[i]!) ?? []));
  return tree;
}

/** Seconds of CPU used by a process and the processes under it that are running now; null when it is gone. */
export function treeCpuSecondsOf(pid: number | null): number | null {
  if (!pid || cpuSecondsOf(pid) === null) return null;
  return processTree(pid).reduce((sum, p) => sum + (cpuSecondsOf(p) ?? 0), 0);
}

/** Resident memory of a process and the processes under it, in MB; null when it is gone. */
export function treeRssMbOf(pid: number | null): number | null {
  if (!pid || rssMbOf(pid) === null) return null;
  return processTree(pid).reduce((sum, p) => sum + (rssMbOf(p) ?? 0), 0);
}

/**
 * Seconds of CPU used by every process named `name` (its `comm`, e.g. "postgres"), with what their finished
 * children used (a database's ended backends are counted in the postmaster's).
 */
export function cpuSecondsByName(name: string): number {
  let total = 0;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) !== name) continue;
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** Seconds every core of the machine has been busy (not idle or waiting), from /proc/stat. */
export function machineCpuSeconds(): number | null {
  try {
    const [, ...ticks] = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = ticks;
    return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** Resident memory of a process in MB, or null when it is gone. */
export function rssMbOf(pid: number | null): number | null {
  if (!pid) return null;
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN);
    return Number.isFinite(kb) ? kb / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * The node process that serves: the child's own node child where it has one (the `tsx` command starts node as a
 * child of its own), else the child itself (the compiled processes, and `node --import tsx`, whose only child is
 * tsx's esbuild service: measuring that one read 16 MB and no CPU for a whole web server).
 */
export function nodePidOf(child: Child): number | null {
  const own = child.child.pid ?? null;
  if (own === null) return own;
  try {
    const children = execFileSync("pgrep", ["-P", String(own)])
      .toString()
      .trim()
      .split("\n")
      .filter(Boolean)
      .map(Number);
    return children.find(isNode) ?? own;
  } catch {
    return own;
  }
}

function isNode(pid: number): boolean {
  try {
    return fs.realpathSync(`/proc/${pid}/exe`) === fs.realpathSync(process.execPath);
  } catch {
    return false;
  }
}

/** The checked-out commit, with "+ changes" when the working tree differs from it. */
export function commitOf(): string {
  try {
    const sha = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root }).toString().trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: root }).toString().trim() !== "";
    return dirty ? `${sha} + uncommitted changes` : sha;
  } catch {
    return "unknown";
  }
}

export function machine() {
  const cpus = os.cpus();
  return {
    cpu: `${cpus.length} × ${cpus[0]?.model.trim() ?? "unknown CPU"}`,
    cores: cpus.length,
    memoryGb: (os.totalmem() / 1024 ** 3).toFixed(1),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
  };
}

export const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");

/** Rows as aligned plain text (first column left, the rest right) and as a markdown table. */
export function plainTable(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)));
  return rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  "));
}

export function markdownTable(rows: string[][]): string[] {
  return [
    `| ${rows[0]!.join(" | ")} |`,
    `|${rows[0]!.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`,
    ...rows.slice(1).map((row) => `| ${row.join(" | ")} |`),
  ];
}

/** The file a benchmark's runs are appended to: docs/benchmarks/history/<bench>.md. */
export function historyFile(bench: string): string {
  return path.join(BENCHMARKS_HISTORY, `${bench}.md`);
}

/**
 * Appends one run (markdown starting with its `## ` heading) at the end of the benchmark's history file, newest
 * last, with the run's date and time put before the heading's text. The file is read right before writing, and
 * made with a title when it does not exist yet. docs/benchmarks.md, the page of current figures against their
 * targets, is written by hand from these files.
 */
export function appendBenchmarkRun(bench: string, section: string, file = historyFile(bench), when = new Date()): string {
  const stamp = `${when.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const body = section.replace(/^## /, `## ${stamp}: `).replace(/\s*$/, "\n");
  const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : `# History: ${bench}\n\nRuns of this benchmark, oldest first.\n`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${current.replace(/\s*$/, "")}\n\n${body}`);
  return file;
}

/**
 * What this process prints with console.log from now on, kept as well as printed: for benchmarks whose record of
 * a run is the text they print (bench-catalog, bench-page-cpu).
 */
export function keepConsole(): () => string {
  const lines: string[] = [];
  const log = console.log.bind(console);
  console.log = (...args: unknown[]) => {
    lines.push(args.map((arg) => (typeof arg === "string" ? arg : String(arg))).join(" "));
    log(...args);
  };
  return () => lines.join("\n");
}

/**
 * Appends a run whose record is the text it printed: a heading, the commit, machine and command, then the text
 * as printed. `script` is how the benchmark is run (`npm run bench:catalog`), the arguments are this process's.
 */
export function appendPrintedRun(bench: string, title: string, script: string, printed: string, file = historyFile(bench)): string {
  const m = machine();
  const args = process.argv.slice(2).join(" ");
  const command = script.startsWith("npm run") ? `${script}${args ? ` -- ${args}` : ""}` : `${script}${args ? ` ${args}` : ""}`;
  const section = [
    `## ${title}`,
    "",
    `Commit ${commitOf()} on ${m.cpu}, ${m.memoryGb} GB, ${m.os}; Node ${m.node}. Load average at the end: ${loadAverage()}.`,
    "",
    "```",
    command,
    "```",
    "",
    "```",
    printed.replace(/^\n+/, "").replace(/\s*$/, ""),
    "```",
    "",
  ].join("\n");
  return appendBenchmarkRun(bench, section, file);
}

/** 1,000 Ugandan addresses, so the rate limit and GeoIP see many visitors as in real traffic (ingest benches). */
export const ADDRESSES = Array.from({ length: 1_000 }, (_, i) => `41.210.${144 + Math.floor(i / 250)}.${(i % 250) + 1}`);

/** A tracker click on `page`, as the browser sends it to /api/v1/analytics/action. */
export function actionEvent(page: string) {
  return {
    event_id: randomUUID(),
    session_id: `${Date.now()}-${randomBytes(4).toString("hex")}`,
    timestamp: Date.now(),
    platform: "web",
    action_type: "click",
    page,
    element_id: "continue",
    element_class: "btn btn-primary",
    element_tag: "button",
    element_text: "Continue (UGX 150,000)",
    x: 420,
    y: 1380,
  };
}
