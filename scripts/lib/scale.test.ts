import { describe, expect, it } from "vitest";
import { armOrder, chatCarried, count, drain, middle, ratio, scaleRows, summary, worst, type Arm, type FigureSpec } from "./scale";

const rps: FigureSpec = { key: "rps", label: "requests/s", better: "higher", format: count };
const p99: FigureSpec = { key: "p99", label: "p99 ms", better: "lower", format: (x) => String(x) };

describe("bench:scale's arithmetic", () => {
  it("runs the arms in the given order in odd runs and reversed in even ones", () => {
    expect(armOrder([1, 2], 1)).toEqual([1, 2]);
    expect(armOrder([1, 2], 2)).toEqual([2, 1]);
    expect(armOrder([1, 2], 3)).toEqual([1, 2]);
  });

  it("divides two processes' figure by one's, and says NaN rather than Infinity", () => {
    expect(ratio(3_000, 2_000)).toBe(1.5);
    expect(ratio(5, 0)).toBeNaN();
    expect(ratio(Number.NaN, 2)).toBeNaN();
  });

  it("takes the lowest run as the worst of a throughput and the highest of a latency", () => {
    expect(worst([900, 700, 800], "higher")).toBe(700);
    expect(worst([12, 30, Number.NaN, 20], "lower")).toBe(30);
    expect(worst([], "lower")).toBeNaN();
  });

  it("sums up an arm's runs as the median and the worst, leaving out runs that did not record the figure", () => {
    const arm: Arm = { processes: 2, runs: [{ rps: 100, p99: 9 }, { rps: 300, p99: 20 }, { rps: 200 }] };
    expect(summary(arm, rps)).toEqual({ median: 200, worst: 100 });
    expect(summary(arm, p99)).toEqual({ median: 14.5, worst: 20 });
  });

  it("takes the middle run as the median, or the mean of the middle two", () => {
    expect(middle([300, 100, 200])).toBe(200);
    expect(middle([521, 1_067])).toBe(794);
    expect(middle([Number.NaN])).toBeNaN();
  });

  it("measures the drain between 10% and 90% of the backlog, interpolating between polls", () => {
    // 1,000 events: 10% stored at 150 ms (halfway between the polls at 100 and 200), 90% at 1,000 ms; the workers'
    // CPU seconds interpolated the same way (0.15 s then, 1 s at 90%).
    const samples = [
      { t: 0, stored: 0, cpu: 0 },
      { t: 100, stored: 0, cpu: 0.1 },
      { t: 200, stored: 200, cpu: 0.2 },
      { t: 600, stored: 500, cpu: 0.6 },
      { t: 1_000, stored: 900, cpu: 1 },
      { t: 1_100, stored: 1_000, cpu: 1.1 },
    ];
    const { perS, cpuUsPerEvent } = drain(samples, 1_000);
    expect(perS).toBeCloseTo(800 / 0.85, 6);
    expect(cpuUsPerEvent).toBeCloseTo((0.85 * 1e6) / 800, 6);
    expect(drain(samples.slice(0, 4), 1_000).perS).toBeNaN();
    // Everything in one poll: no rate can be told.
    expect(
      drain(
        [
          { t: 0, stored: 0 },
          { t: 100, stored: 1_000 },
        ],
        1_000,
      ).perS,
    ).toBeNaN();
  });

  it("finds the highest chat rate within the target, ignoring steps with errors or short of their rate", () => {
    const step = (rate: number | null, deliveredPerS: number, p99Ms: number, errors = 0) => ({
      label: rate === null ? "max" : `${rate}/s`,
      rate,
      deliveredPerS,
      delivery: { p50: 3, p99: p99Ms },
      errors,
    });
    const steps = [step(100, 100, 20), step(200, 199, 60), step(300, 300, 90, 2), step(400, 330, 80), step(null, 350, 900)];
    expect(chatCarried(steps, 100)).toEqual({ withinTarget: 200, maxPerS: 350, maxP99: 900 });
    expect(chatCarried([step(100, 100, 150)], 100)).toEqual({ withinTarget: 0, maxPerS: Number.NaN, maxP99: Number.NaN });
  });

  it("tables each figure's medians, the ratio, and the worst runs when there were several", () => {
    const arms: Arm[] = [
      {
        processes: 1,
        runs: [
          { rps: 1_000, p99: 40 },
          { rps: 1_200, p99: 50 },
        ],
      },
      {
        processes: 2,
        runs: [
          { rps: 1_800, p99: 30 },
          { rps: 2_000, p99: 60 },
        ],
      },
    ];
    expect(scaleRows([rps, p99, { ...rps, key: "missing" }], arms)).toEqual([
      ["Figure", "1 process", "2 processes", "2 ÷ 1", "worst run, 1 process", "worst run, 2 processes"],
      ["requests/s", "1,100", "1,900", "1.73×", "1,000", "1,800"],
      ["p99 ms", "45", "45", "1.00×", "50", "60"],
    ]);
    expect(
      scaleRows(
        [rps],
        arms.map((arm) => ({ ...arm, runs: arm.runs.slice(0, 1) })),
      ),
    ).toEqual([
      ["Figure", "1 process", "2 processes", "2 ÷ 1"],
      ["requests/s", "1,000", "1,800", "1.80×"],
    ]);
  });
});
