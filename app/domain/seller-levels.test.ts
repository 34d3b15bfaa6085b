import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CRITERIA,
  LEVEL_THRESHOLDS,
  levelFor,
  medianResponseHours,
  nextLevel,
  requirementsOf,
  responseWords,
  SELLER_LEVELS,
  type SellerStats,
} from "./seller-levels";

const rank = (level: string) => SELLER_LEVELS.indexOf(level as (typeof SELLER_LEVELS)[number]);
const share = fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null });
const stats: fc.Arbitrary<SellerStats> = fc.record({
  accountAgeDays: fc.integer({ min: 0, max: 2000 }),
  completedOrders: fc.integer({ min: 0, max: 500 }),
  earnedUgx: fc.integer({ min: 0, max: 100_000_000 }),
  rating60d: fc.option(fc.double({ min: 1, max: 5, noNaN: true }), { nil: null }),
  onTimeRate: share,
  responseRate: share,
  completionRate: share,
});

/** Exactly what Level One needs, and no more. */
const levelOne: SellerStats = {
  accountAgeDays: 60,
  completedOrders: 10,
  earnedUgx: 1_000_000,
  rating60d: 4.7,
  onTimeRate: 0.9,
  responseRate: 0.9,
  completionRate: 0.9,
};

describe("seller levels", () => {
  it("gives New Seller to a seller with nothing done, and each level at exactly its thresholds", () => {
    expect(levelFor({ ...levelOne, accountAgeDays: 0, completedOrders: 0, earnedUgx: 0 })).toBe("new");
    expect(levelFor(levelOne)).toBe("level_1");
    const at = (t: (typeof LEVEL_THRESHOLDS)["level_2"]): SellerStats => ({
      accountAgeDays: t.accountAge,
      completedOrders: t.completedOrders,
      earnedUgx: t.earned,
      rating60d: t.rating,
      onTimeRate: t.onTime,
      responseRate: t.response,
      completionRate: t.completion,
    });
    expect(levelFor(at(LEVEL_THRESHOLDS.level_2))).toBe("level_2");
    expect(levelFor(at(LEVEL_THRESHOLDS.top_rated))).toBe("top_rated");
  });

  it("withholds Level One for any one criterion missed, and says which", () => {
    const misses: [keyof SellerStats, number][] = [
      ["accountAgeDays", 59],
      ["completedOrders", 9],
      ["earnedUgx", 999_999],
      ["rating60d", 4.6],
      ["onTimeRate", 0.89],
      ["responseRate", 0.89],
      ["completionRate", 0.89],
    ];
    for (const [field, value] of misses) {
      const short = { ...levelOne, [field]: value };
      expect(levelFor(short), field).toBe("new");
      expect(requirementsOf(short, "level_1").filter((r) => !r.met)).toHaveLength(1);
    }
  });

  it("counts a rate with nothing to measure as met: no reviews yet is not a bad rating", () => {
    expect(levelFor({ ...levelOne, rating60d: null, onTimeRate: null, responseRate: null, completionRate: null })).toBe("level_1");
  });

  it("never asks less of a level than of the one below it", () => {
    const levels = ["level_1", "level_2", "top_rated"] as const;
    for (let i = 1; i < levels.length; i++) {
      for (const c of CRITERIA) expect(LEVEL_THRESHOLDS[levels[i]!][c], `${levels[i]} ${c}`).toBeGreaterThanOrEqual(LEVEL_THRESHOLDS[levels[i - 1]!][c]);
    }
  });

  it("is monotonic: more of any criterion never lowers the level", () => {
    fc.assert(
      fc.property(stats, stats, (a, b) => {
        const better: SellerStats = {
          accountAgeDays: Math.max(a.accountAgeDays, b.accountAgeDays),
          completedOrders: Math.max(a.completedOrders, b.completedOrders),
          earnedUgx: Math.max(a.earnedUgx, b.earnedUgx),
          rating60d: a.rating60d === null || b.rating60d === null ? a.rating60d : Math.max(a.rating60d, b.rating60d),
          onTimeRate: a.onTimeRate === null || b.onTimeRate === null ? a.onTimeRate : Math.max(a.onTimeRate, b.onTimeRate),
          responseRate: a.responseRate === null || b.responseRate === null ? a.responseRate : Math.max(a.responseRate, b.responseRate),
          completionRate: a.completionRate === null || b.completionRate === null ? a.completionRate : Math.max(a.completionRate, b.completionRate),
        };
        expect(rank(levelFor(better))).toBeGreaterThanOrEqual(rank(levelFor(a)));
      }),
    );
  });

  it("holds a level only when every level below it is met too, and the next level is one not yet met", () => {
    fc.assert(
      fc.property(stats, (s) => {
        const level = levelFor(s);
        for (const below of SELLER_LEVELS.slice(1, rank(level) + 1)) {
          expect(requirementsOf(s, below as "level_1").every((r) => r.met)).toBe(true);
        }
        const next = nextLevel(level);
        if (next) expect(requirementsOf(s, next).some((r) => !r.met)).toBe(true);
      }),
    );
  });
});

describe("response time", () => {
  it("says nothing below three conversations", () => {
    expect(medianResponseHours([])).toBeNull();
    expect(medianResponseHours([0.2, 0.5])).toBeNull();
    expect(medianResponseHours([0.2, 0.5, 0.4])).toBe(1);
  });

  it("is the median rounded up to whole hours; unanswered conversations count as never", () => {
    expect(medianResponseHours([0.5, 3, 30])).toBe(3);
    expect(medianResponseHours([1, 2, 5, 9])).toBe(4); // (2 + 5) / 2 = 3.5
    expect(medianResponseHours([1, Infinity, Infinity])).toBeNull();
    expect(medianResponseHours([2, 2, Infinity])).toBe(2);
  });

  it("is said as within 1 hour, a few hours, a day, or not at all", () => {
    expect([1, 2, 6, 7, 24, 25, null].map(responseWords)).toEqual(["hour", "hours", "hours", "day", "day", null, null]);
  });

  it("never falls below the fastest reply nor above the slowest", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 500, noNaN: true }), { minLength: 3, maxLength: 40 }), (hours) => {
        const median = medianResponseHours(hours)!;
        expect(median).toBeGreaterThanOrEqual(Math.max(1, Math.floor(Math.min(...hours))));
        expect(median).toBeLessThanOrEqual(Math.max(1, Math.ceil(Math.max(...hours))));
      }),
    );
  });
});
