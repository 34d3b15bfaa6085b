import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { supervise } from "../../scripts/supervise";

const root = path.resolve(import.meta.dirname, "../..");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-supervise-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A tiny program: appends "<pid> <time>" to `log` when it starts, then runs `body`. */
function program(name: string, body: string) {
  const log = path.join(dir, `${name}.log`);
  const file = path.join(dir, `${name}.cjs`);
  fs.writeFileSync(file, `require("fs").appendFileSync(${JSON.stringify(log)}, process.pid + " " + Date.now() + "\\n");\n${body}\n`);
  const starts = () =>
    fs.existsSync(log)
      ? fs
          .readFileSync(log, "utf8")
          .trim()
          .split("\n")
          .map((l) => l.split(" ").map(Number) as [number, number])
      : [];
  return { name, command: process.execPath, args: [file], starts };
}

async function until(check: () => boolean, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("scripts/supervise.ts (npm start's web server and worker)", () => {
  it("restarts a crashing process with a doubling pause, capped, and says so; the other keeps running", async () => {
    const crasher = program("crasher", "process.exit(1);");
    const steady = program("steady", "setInterval(() => {}, 1000);");
    const lines: string[] = [];
    const supervisor = supervise([crasher, steady], { initialDelayMs: 200, maxDelayMs: 800, log: (l) => lines.push(l), stdio: "ignore" });
    await until(() => crasher.starts().length >= 6);
    await supervisor.stop();

    expect(lines[0]).toMatch(/^crasher exited with code 1 after [\d.]+ s; restarting it in 0\.2 s \(the other processes keep running\)$/);
    const pauses = lines.slice(0, 5).map((l) => Number(/restarting it in ([\d.]+) s/.exec(l)?.[1]) * 1000);
    expect(pauses).toEqual([200, 400, 800, 800, 800]);
    // Each restart really waited its pause (plus the time a node process takes to start and exit).
    const times = crasher.starts().map(([, t]) => t);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    for (const [i, pause] of pauses.entries()) expect(gaps[i], `gaps ${gaps.join(", ")}`).toBeGreaterThanOrEqual(pause);
    // The steady one was started once and never touched.
    expect(steady.starts()).toHaveLength(1);
    expect(lines.every((l) => l.startsWith("crasher"))).toBe(true);
  });

  it("waits the first pause again after a process ran stably", async () => {
    const flaky = program("flaky", "setTimeout(() => process.exit(3), 300);");
    const lines: string[] = [];
    const supervisor = supervise([flaky], { initialDelayMs: 100, maxDelayMs: 10_000, stableAfterMs: 200, log: (l) => lines.push(l), stdio: "ignore" });
    await until(() => flaky.starts().length >= 4);
    await supervisor.stop();
    expect(lines.slice(0, 3).map((l) => /restarting it in ([\d.]+) s/.exec(l)?.[1])).toEqual(["0.1", "0.1", "0.1"]);
  });

  it("on SIGTERM stops every process, cancels a pending restart, and exits", async () => {
    const web = program(
      "web",
      `process.on("SIGTERM", () => { require("fs").appendFileSync(${JSON.stringify(path.join(dir, "web.stopped"))}, "x"); process.exit(0); }); setInterval(() => {}, 1000);`,
    );
    const worker = program("worker", "process.exit(1);");
    // The supervisor in its own process, as npm start runs it (scripts/start.ts wires signals the same way).
    const runner = path.join(dir, "runner.ts");
    fs.writeFileSync(
      runner,
      `import { supervise } from ${JSON.stringify(path.join(root, "scripts", "supervise.ts"))};
const supervisor = supervise(${JSON.stringify([web, worker].map(({ name, command, args }) => ({ name, command, args })))}, { initialDelayMs: 60_000 });
process.on("SIGTERM", () => void supervisor.stop().then(() => process.exit(0)));
`,
    );
    const child = spawn(path.join(root, "node_modules", ".bin", "tsx"), [runner], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    await until(() => output.includes("worker exited with code 1") && web.starts().length === 1);
    const webPid = web.starts()[0]![0];
    expect(alive(webPid)).toBe(true);

    const started = Date.now();
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    // It did not wait for the worker's 60-second restart, and the worker was not started again.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(worker.starts()).toHaveLength(1);
    expect(fs.readFileSync(path.join(dir, "web.stopped"), "utf8")).toBe("x");
    expect(alive(webPid)).toBe(false);
  });
});
