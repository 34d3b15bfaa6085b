/**
 * bench:scale's arithmetic, apart from its processes so it can be tested: which arm runs first in each run, a
 * figure's median and worst run, the ratio of two processes to one, the drain rate of the ingest backlog, the
 * chat's rate within its target, and the table.
 */
import { median } from "./bench";

/** Whether a bigger value of a figure is better (requests/s) or worse (latency, CPU per request). */
export type Better = "higher" | "lower";

/** One figure of the table: its key in each run's record, what the table calls it, which way is better. */
export type FigureSpec = { key: string; label: string; better: Better; format: (value: number) => string };

/** One arm (a number of web processes and workers) and the figures each of its runs recorded, by key. */
export type Arm = { processes: number; runs: Record<string, number>[] };

/**
 * The order of the arms in run `run` (1-based): as given in odd runs, reversed in even ones, so that over two
 * runs neither arm always goes first (or right after the data was loaded).
 */
export function armOrder<T>(arms: T[], run: number): T[] {
  return run % 2 === 1 ? [...arms] : [...arms].reverse();
}

/** `two` ÷ `one`, NaN when either is not a number or `one` is 0. */
export function ratio(two: number, one: number): number {
  if (!Number.isFinite(two) || !Number.isFinite(one) || one === 0) return Number.NaN;
  return two / one;
}

/** The worst of a figure's runs: the lowest when higher is better, the highest when lower is; NaN when none. */
export function worst(values: number[], better: Better): number {
  const known = values.filter(Number.isFinite);
  if (known.length === 0) return Number.NaN;
  return better === "higher" ? Math.min(...known) : Math.max(...known);
}

/** A figure's median and worst run over an arm's runs (a run that did not record it is left out). */
export function summary(arm: Arm, spec: FigureSpec): { median: number; worst: number } {
  const values = arm.runs.map((run) => run[spec.key] ?? Number.NaN);
  return { median: median(values), worst: worst(values, spec.better) };
}

/**
 * Events per second while a backlog of `total` events drained, from the counts stored at times `t` (ms): between
 * the moments 10% and 90% of it were stored (each found by linear interpolation between two polls), so neither
 * the workers' start nor the last partial batch counts. NaN when the counts never reached 90%.
 */
export function drainRate(samples: { t: number; stored: number }[], total: number): number {
  /** The poll at which `share` of the backlog was stored, and the interpolated moment. */
  const when = (share: number) => {
    const goal = total * share;
    const i = samples.findIndex((at) => at.stored >= goal);
    if (i < 0) return { i, t: Number.NaN };
    const at = samples[i]!;
    const before = samples[i - 1];
    if (!before) return { i, t: at.t };
    return { i, t: before.t + ((goal - before.stored) / (at.stored - before.stored)) * (at.t - before.t) };
  };
  const from = when(0.1);
  const to = when(0.9);
  // Never 90% stored, or all of it between two polls (the polls cannot tell the rate then).
  if (from.i < 0 || to.i < 0 || to.i === from.i) return Number.NaN;
  return (total * 0.8) / ((to.t - from.t) / 1000);
}

/** A chat step as bench-chat's --json writes it (the figures this benchmark reads). */
export type ChatStep = { label: string; rate: number | null; deliveredPerS: number; delivery: { p50: number; p99: number }; errors: number };

/**
 * What the chat carried: the highest fixed rate delivered with p99 ≤ `p99Ms`, no errors and at least 95% of the
 * rate asked (0 when none was), and the "max" step's messages/s and p99 (as fast as acknowledgements allow).
 */
export function chatCarried(steps: ChatStep[], p99Ms: number) {
  const within = steps.filter((s) => s.rate !== null && s.errors === 0 && s.delivery.p99 <= p99Ms && s.deliveredPerS >= s.rate * 0.95);
  const max = steps.find((s) => s.rate === null);
  return {
    withinTarget: within.reduce((best, s) => Math.max(best, s.rate!), 0),
    maxPerS: max?.deliveredPerS ?? Number.NaN,
    maxP99: max?.delivery.p99 ?? Number.NaN,
  };
}

/** A whole number with thousands separators, or "–". */
export const count = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "–");
/** Milliseconds: one decimal under 10. */
export const millis = (x: number) => (Number.isFinite(x) ? (x < 10 ? x.toFixed(1) : Math.round(x).toLocaleString("en-US")) : "–");
const times = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : "–");

/**
 * The table: each figure's median with each arm, the last arm's ÷ the first's, and the worst run of each
 * (only when there was more than one run). Rows are the specs in order; a figure no arm recorded is left out.
 */
export function scaleRows(specs: FigureSpec[], arms: Arm[]): string[][] {
  const several = arms.some((arm) => arm.runs.length > 1);
  const name = (arm: Arm) => `${arm.processes} process${arm.processes === 1 ? "" : "es"}`;
  const first = arms[0]!;
  const last = arms.at(-1)!;
  const header = ["Figure", ...arms.map(name), `${last.processes} ÷ ${first.processes}`, ...(several ? arms.map((arm) => `worst run, ${name(arm)}`) : [])];
  const rows = specs
    .filter((spec) => arms.some((arm) => arm.runs.some((run) => Number.isFinite(run[spec.key] ?? Number.NaN))))
    .map((spec) => {
      const figures = arms.map((arm) => summary(arm, spec));
      return [
        spec.label,
        ...figures.map((f) => spec.format(f.median)),
        times(ratio(figures.at(-1)!.median, figures[0]!.median)),
        ...(several ? figures.map((f) => spec.format(f.worst)) : []),
      ];
    });
  return [header, ...rows];
}
