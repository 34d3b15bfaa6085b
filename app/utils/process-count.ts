import os from "node:os";

/** The most processes of one kind a machine is given: far beyond any core count we run on, and a typo's guard. */
export const MAX_PROCESSES = 64;

/**
 * WEB_PROCESSES and WORKER_PROCESSES: unset or empty is 1, `auto` one per core (os.availableParallelism),
 * otherwise a whole number from 1 to MAX_PROCESSES. Null for anything else, for the caller to refuse.
 */
export function parseProcessCount(value: string | undefined, cores = os.availableParallelism()): number | null {
  const text = (value ?? "").trim().toLowerCase();
  if (text === "") return 1;
  if (text === "auto") return Math.min(MAX_PROCESSES, Math.max(1, cores));
  if (!/^\d+$/.test(text)) return null;
  const n = Number(text);
  return n >= 1 && n <= MAX_PROCESSES ? n : null;
}
