/**
 * Keeps `npm start`'s processes (the web server and the worker) running: one that exits without being
 * asked is started again after a pause that doubles with each quick failure (1 s, 2 s, 4 s … at most
 * 30 s) and starts over at 1 s once the process has run for a minute. The other process keeps running
 * meanwhile: a worker that crashed must not take the marketplace down with it. `stop()` (Ctrl-C)
 * cancels pending restarts and stops every process.
 */
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";

/** A process to keep running; its own `env`, when given, replaces the options' one. */
export type Program = { name: string; command: string; args: string[]; env?: NodeJS.ProcessEnv };

export type SuperviseOptions = {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  stdio?: SpawnOptions["stdio"];
  /** The pause before the first restart; it doubles with each restart that follows a short run. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** A process that ran this long counts as healthy: its next restart waits `initialDelayMs` again. */
  stableAfterMs?: number;
  /** A process still running this long after it was asked to stop is killed. */
  killAfterMs?: number;
  log?: (line: string) => void;
};

export type Supervisor = {
  /** The running child of each program (absent while it waits for a restart). */
  children: () => Map<string, ChildProcess>;
  /** Cancels pending restarts, sends `signal` to every running process and resolves once all have exited. */
  stop: (signal?: NodeJS.Signals) => Promise<void>;
};

export function supervise(programs: Program[], options: SuperviseOptions = {}): Supervisor {
  const {
    initialDelayMs = 1000,
    maxDelayMs = 30_000,
    stableAfterMs = 60_000,
    killAfterMs = 30_000,
    log = (line: string) => console.error(`[start] ${line}`),
  } = options;
  const running = new Map<string, ChildProcess>();
  const timers = new Map<string, NodeJS.Timeout>();
  let stopping: Promise<void> | undefined;

  function start(program: Program, delayMs: number) {
    const startedAt = Date.now();
    const child = spawn(program.command, program.args, { cwd: options.cwd, env: program.env ?? options.env, stdio: options.stdio ?? "inherit" });
    running.set(program.name, child);
    // A program that cannot even be spawned (a missing binary) is retried like one that crashed.
    child.once("error", (error) => log(`${program.name} could not start: ${error.message}`));
    child.once("close", (code, signal) => {
      running.delete(program.name);
      if (stopping) return;
      const ranMs = Date.now() - startedAt;
      const delay = ranMs >= stableAfterMs ? initialDelayMs : delayMs;
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      log(`${program.name} ${how} after ${formatSeconds(ranMs)}; restarting it in ${formatSeconds(delay)} (the other processes keep running)`);
      timers.set(
        program.name,
        setTimeout(() => {
          timers.delete(program.name);
          start(program, Math.min(maxDelayMs, delay * 2));
        }, delay),
      );
    });
  }

  for (const program of programs) start(program, initialDelayMs);

  return {
    children: () => new Map(running),
    stop: (signal = "SIGTERM") => {
      stopping ??= (async () => {
        for (const timer of timers.values()) clearTimeout(timer);
        timers.clear();
        const exits = [...running.values()].map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              const kill = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
              child.once("close", () => {
                clearTimeout(kill);
                resolve();
              });
              child.kill(signal);
            }),
        );
        await Promise.all(exits);
      })();
      return stopping;
    },
  };
}

function formatSeconds(ms: number) {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
