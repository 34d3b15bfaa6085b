/**
 * bench:scale's arithmetic, apart from its processes so it can be tested: which arm runs first in each run, a
 * figure's median and worst run, the ratio of two processes to one, the drain rate of the ingest backlog, the
 * chat's rate within its target, and the table.
 */

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

/** The median: the middle value, or the mean of the two middle ones (with two runs, not the lower of them); NaN when none. */
export function middle(values: number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
}

/** A figure's median and worst run over an arm's runs (a run that did not record it is left out). */
export function summary(arm: Arm, spec: FigureSpec): { median: number; worst: number } {
  const values = arm.runs.map((run) => run[spec.key] ?? Number.NaN);
  return { median: middle(values), worst: worst(values, spec.better) };
}

export type DrainSample = { t: number; stored: number; cpu?: number };

/**
 * A backlog of `total` events draining, from the counts stored at times `t` (ms) and the CPU seconds its workers
 * had used by then: events per second, and CPU µs per event, between the moments 10% and 90% of it were stored
 * (each found by linear interpolation between two polls), so neither the workers' start nor the last partial
 * batch counts. NaN when the counts never reached 90%, or went from under 10% to over 90% between two polls.
 */
export function drain(samples: DrainSample[], total: number): { perS: number; cpuUsPerEvent: number } {
  const at = (share: number) => {
    const goal = total * share;
    const i = samples.findIndex((s) => s.stored >= goal);
    if (i < 0) return null;
    const after = samples[i]!;
    const before = samples[i - 1] ?? after;
    const f = after.stored === before.stored ? 1 : (goal - before.stored) / (after.stored - before.stored);
    const mix = (a: number, b: number) => a + f * (b - a);
    return { i, t: mix(before.t, after.t), cpu: mix(before.cpu ?? Number.NaN, after.cpu ?? Number.NaN) };
  };
  const from = at(0.1);
  const to = at(0.9);
  if (!from || !to || to.i === from.i) return { perS: Number.NaN, cpuUsPerEvent: Number.NaN };
  const events = total * 0.8;
  return { perS: events / ((to.t - from.t) / 1000), cpuUsPerEvent: ((to.cpu - from.cpu) * 1e6) / events };
}

/** The chat's latency target: a rate is carried when its delivery p99 is within this. */
export const CHAT_P99_MS = 100;

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
const hundredths = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "–");
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

/** bench:scale's figures, in the table's order. */
export const SCALE_FIGURES: FigureSpec[] = [
  { key: "catalog_off_rps", label: "Catalog, page cache off: pages/s", better: "higher", format: count },
  { key: "catalog_off_p50", label: "Catalog, page cache off: p50 ms", better: "lower", format: millis },
  { key: "catalog_off_p99", label: "Catalog, page cache off: p99 ms", better: "lower", format: millis },
  { key: "catalog_off_cpu", label: "Catalog, page cache off: web CPU ms a page", better: "lower", format: hundredths },
  { key: "catalog_on_rps", label: "Catalog, page cache on: pages/s", better: "higher", format: count },
  { key: "catalog_on_p50", label: "Catalog, page cache on: p50 ms", better: "lower", format: millis },
  { key: "catalog_on_p99", label: "Catalog, page cache on: p99 ms", better: "lower", format: millis },
  { key: "catalog_on_cpu", label: "Catalog, page cache on: web CPU ms a page", better: "lower", format: hundredths },
  { key: "tracking_rps", label: "Tracking: events/s accepted, one a request", better: "higher", format: count },
  { key: "tracking_p99", label: "Tracking: p99 ms, one a request", better: "lower", format: millis },
  { key: "tracking_cpu", label: "Tracking: web CPU µs a request", better: "lower", format: count },
  { key: "tracking_batched", label: "Tracking: events/s accepted, batched", better: "higher", format: count },
  { key: "tracking_batched_p99", label: "Tracking: p99 ms, batched", better: "lower", format: millis },
  { key: "ingest_rate", label: "Ingest: events/s stored by the workers", better: "higher", format: count },
  { key: "ingest_cpu", label: "Ingest: worker CPU µs an event", better: "lower", format: count },
  { key: "chat_within", label: `Chat: messages/s with p99 ≤ ${CHAT_P99_MS} ms`, better: "higher", format: count },
  { key: "chat_max", label: "Chat: most messages/s carried", better: "higher", format: count },
  { key: "chat_max_p99", label: "Chat: p99 ms at the most", better: "lower", format: millis },
];
