/**
 * The primary of a cluster of web processes or workers (ADR 059): it forks `count` children of one compiled
 * entry, starts again one that exits without being asked (after a pause that doubles with quick failures),
 * and on SIGTERM/SIGINT asks every child to stop and waits for them. SIGHUP restarts the children one at a
 * time, each replaced only once its successor says it is ready: a rolling restart, with no moment when no
 * process serves.
 *
 * For web processes it also owns the public port: connections are handed to the children by the sticky
 * router (sticky.server.ts). The primary runs none of the app's code.
 */
import cluster, { type Worker } from "node:cluster";
import { once } from "node:events";
import { stickyRouter, type StickyMessage, type StickyRouter } from "./sticky.server";

export type PrimaryOptions = {
  name: "web" | "worker";
  count: number;
  /** The compiled entry the children run, and its Node flags. */
  exec: string;
  execArgv: string[];
  /** Web processes: where the primary listens for them. */
  listen?: { port: number; host?: string };
  /** How long a child has to stop after SIGTERM before it is killed (the children's own limits are shorter). */
  killAfterMs?: number;
  /** How long a new child has to say it is ready during a rolling restart. */
  readyTimeoutMs?: number;
  log?: (line: string) => void;
};

export type Primary = {
  /** Restarts every child, one at a time (what SIGHUP does). */
  roll: () => Promise<void>;
  stop: () => Promise<void>;
  router: StickyRouter | null;
};

/** The child's number (1…count) in its environment: logs and the ingest's consumer names say which one it is. */
export const PROCESS_INDEX = "SOKO_PROCESS_INDEX";

export async function startPrimary(options: PrimaryOptions): Promise<Primary> {
  const { name, count, killAfterMs = 30_000, readyTimeoutMs = 90_000 } = options;
  const log = options.log ?? ((line: string) => console.log(`[${name} primary] ${line}`));
  cluster.setupPrimary({ exec: options.exec, execArgv: options.execArgv });
  const router = options.listen ? stickyRouter() : null;
  const slots = new Map<Worker, number>();
  const replaced = new Set<Worker>();
  const readyWaiters = new Map<Worker, () => void>();
  const quickFailures = new Map<number, number>();
  let stopping = false;

  const fork = (slot: number): Worker => {
    const startedAt = Date.now();
    const worker = cluster.fork({ [PROCESS_INDEX]: String(slot) });
    slots.set(worker, slot);
    worker.on("message", (message: StickyMessage) => {
      if (message?.type === "soko:ready") {
        router?.ready(worker);
        readyWaiters.get(worker)?.();
      } else if (message?.type === "soko:draining") router?.drain(worker);
      else if (message?.type === "soko:session") router?.session(worker, message.sid, message.open);
    });
    // Its channel closed (it died, or is about to exit): no further connection is handed to it.
    worker.once("disconnect", () => router?.remove(worker));
    worker.once("exit", (code, signal) => {
      router?.remove(worker);
      slots.delete(worker);
      readyWaiters.get(worker)?.();
      if (stopping || replaced.delete(worker)) return;
      // Not asked to stop: start it again, after 1 s doubling to 30 s while it keeps failing within a minute.
      const failures = Date.now() - startedAt < 60_000 ? (quickFailures.get(slot) ?? 0) + 1 : 1;
      quickFailures.set(slot, failures);
      const delay = Math.min(30_000, 1000 * 2 ** (failures - 1));
      log(
        `${name} ${slot} (pid ${worker.process.pid}) ${signal ? `was killed by ${signal}` : `exited with code ${code}`}; starting it again in ${delay / 1000} s`,
      );
      setTimeout(() => {
        if (!stopping) fork(slot);
      }, delay).unref();
    });
    return worker;
  };

  const readyOf = (worker: Worker) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), readyTimeoutMs);
      readyWaiters.set(worker, () => {
        clearTimeout(timer);
        readyWaiters.delete(worker);
        resolve(!worker.isDead());
      });
    });

  /** Asks a child to stop (it drains first) and waits for it to exit, killing it after killAfterMs. */
  const retire = async (worker: Worker) => {
    if (worker.isDead()) return;
    router?.drain(worker);
    const exited = once(worker, "exit");
    const killer = setTimeout(() => worker.process.kill("SIGKILL"), killAfterMs);
    worker.process.kill("SIGTERM");
    await exited;
    clearTimeout(killer);
  };

  const firstReady = Array.from({ length: count }, (_, i) => readyOf(fork(i + 1)));
  if (router && options.listen) {
    // Listening once one child can take connections (until then the port refuses, as a stopped server's would).
    await Promise.race(firstReady);
    router.server.listen(options.listen.port, options.listen.host);
    await once(router.server, "listening");
  }
  await Promise.all(firstReady);
  log(`${count} ${name} processes ready${options.listen ? ` on port ${options.listen.port}` : ""}`);

  let rolling: Promise<void> | null = null;
  const roll = () => {
    rolling ??= (async () => {
      for (const [old, slot] of [...slots]) {
        if (stopping) break;
        const successor = fork(slot);
        if (!(await readyOf(successor))) {
          log(`${name} ${slot}: the new process did not become ready; the old one keeps running`);
          replaced.add(successor);
          await retire(successor);
          break;
        }
        replaced.add(old);
        await retire(old);
        log(`${name} ${slot} restarted (pid ${old.process.pid} → ${successor.process.pid})`);
      }
    })().finally(() => (rolling = null));
    return rolling;
  };

  let stopped: Promise<void> | null = null;
  const stop = () => {
    stopped ??= (async () => {
      stopping = true;
      router?.server.close();
      await Promise.all([...slots.keys()].map(retire));
    })();
    return stopped;
  };

  process.on("SIGHUP", () => {
    log("SIGHUP: restarting the processes one at a time");
    void roll();
  });
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      log(`${signal}: stopping the ${name} processes`);
      void stop().then(() => process.exit(0));
    });
  }
  return { roll, stop, router };
}
