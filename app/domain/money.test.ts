import { describe, expect, it } from "vitest";
import { formatUgx } from "./money";

describe("formatUgx", () => {
  it("prefixes the currency and groups thousands with commas", () => {
    expect(formatUgx(75_000)).toBe("UGX 75,000");
    expect(formatUgx(800_000)).toBe("UGX 800,000");
    expect(formatUgx(1_250_000)).toBe("UGX 1,250,000");
  });

  it("shows small amounts and zero without grouping", () => {
    expect(formatUgx(0)).toBe("UGX 0");
    expect(formatUgx(500)).toBe("UGX 500");
  });

  it("never shows decimals: fractions round to the nearest shilling", () => {
    expect(formatUgx(999.4)).toBe("UGX 999");
    expect(formatUgx(999.5)).toBe("UGX 1,000");
  });

  it("puts the minus sign before the currency", () => {
    expect(formatUgx(-1_000)).toBe("-UGX 1,000");
  });

  it("refuses amounts that are not numbers", () => {
    expect(() => formatUgx(Number.NaN)).toThrow(RangeError);
    expect(() => formatUgx(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
