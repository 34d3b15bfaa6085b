import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { appendBenchmarkRun, appendPrintedRun, cpuSecondsOf, historyFile, keepConsole, processTree, treeCpuSecondsOf, treeRssMbOf } from "./bench";

describe("a benchmark's history file", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-bench-history-"));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("is docs/benchmarks/history/<bench>.md", () => {
    expect(path.relative(process.cwd(), historyFile("chat"))).toBe(path.join("docs", "benchmarks", "history", "chat.md"));
  });

  it("is made with a title, then each run is appended at the end with its time before its heading", () => {
    const file = path.join(dir, "nested", "chat.md");
    appendBenchmarkRun("chat", "## Chat: `npm run bench:chat`\n\nfirst run\n\n\n", file, new Date("2026-12-06T10:01:30Z"));
    appendBenchmarkRun("chat", "## Chat: `npm run bench:chat`\n\nsecond run", file, new Date("2026-12-07T08:00:00Z"));
    const text = fs.readFileSync(file, "utf8");
    expect(text).toBe(
      "# History: chat\n\nRuns of this benchmark, oldest first.\n\n" +
        "## 2026-12-06 10:01 UTC: Chat: `npm run bench:chat`\n\nfirst run\n\n" +
        "## 2026-12-07 08:00 UTC: Chat: `npm run bench:chat`\n\nsecond run\n",
    );
  });

  it("keeps what was there before the runs it appends", () => {
    const file = path.join(dir, "pages.md");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(file, "# History: bench:pages\n\n## 2026-11-27: `npm run bench:pages`\n\nolder\n");
    appendBenchmarkRun("pages", "## Pages: `npm run bench:pages`\n\nnewer\n", file, new Date("2026-12-06T00:00:00Z"));
    expect(fs.readFileSync(file, "utf8")).toBe(
      "# History: bench:pages\n\n## 2026-11-27: `npm run bench:pages`\n\nolder\n\n## 2026-12-06 00:00 UTC: Pages: `npm run bench:pages`\n\nnewer\n",
    );
  });
});

describe("a run recorded as the text it printed", () => {
  it("is appended with its heading, commit, machine, the command with this process's arguments, and the text", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "soko-bench-printed-")), "catalog.md");
    try {
      appendPrintedRun("catalog", "Catalog: `npm run bench:catalog`", "npm run bench:catalog", "\nLoad average before measuring: 0.5\n| a | b |\n\n", file);
      const text = fs.readFileSync(file, "utf8");
      const args = process.argv.slice(2).join(" ");
      expect(text).toMatch(/^# History: catalog\n/);
      expect(text).toMatch(/\n## \d{4}-\d\d-\d\d \d\d:\d\d UTC: Catalog: `npm run bench:catalog`\n\nCommit \S+.* on \d+ × .+; Node v\d+/);
      expect(text).toContain(`\n\`\`\`\nnpm run bench:catalog${args ? ` -- ${args}` : ""}\n\`\`\`\n`);
      expect(text).toMatch(/\n```\nLoad average before measuring: 0.5\n\| a \| b \|\n```\n$/);
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });
});

describe("keepConsole", () => {
  it("keeps what console.log prints from then on, and still prints it", () => {
    const original = console.log;
    const seen: unknown[][] = [];
    console.log = (...args: unknown[]) => void seen.push(args);
    try {
      const printed = keepConsole();
      console.log("a", 1);
      console.log("\nb");
      expect(printed()).toBe("a 1\n\nb");
      expect(seen).toEqual([["a", 1], ["\nb"]]);
    } finally {
      console.log = original;
    }
  });
});

describe("a process tree (a cluster primary and its children)", () => {
  it("holds the process and the processes it started, and sums their CPU and memory", async () => {
    const child = spawn("sleep", ["10"]);
    try {
      await new Promise((resolve) => child.once("spawn", resolve));
      const tree = processTree(process.pid);
      expect(tree[0]).toBe(process.pid);
      expect(tree).toContain(child.pid);
      expect(processTree(child.pid!)).toEqual([child.pid]);
      expect(treeCpuSecondsOf(process.pid)!).toBeGreaterThanOrEqual(cpuSecondsOf(process.pid)!);
      expect(treeRssMbOf(process.pid)!).toBeGreaterThan(0);
      expect(treeCpuSecondsOf(2 ** 22 + 1)).toBeNull();
    } finally {
      child.kill();
    }
  });
});
