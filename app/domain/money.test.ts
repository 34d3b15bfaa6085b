import { describe, expect, it } from "vitest";
import { formatPrice, formatUgx, orderCurrency } from "./money";

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

describe("orderCurrency", () => {
  it("shows an order's amounts in USD at the rate fixed at its checkout, not today's", () => {
    const today = { code: "USD" as const, ugxPerUsd: 3_900 };
    expect(formatPrice(370_000, orderCurrency(today, 3_700))).toBe("USD 100.00");
    // An order without a rate of its own: today's.
    expect(formatPrice(390_000, orderCurrency(today, 0))).toBe("USD 100.00");
  });

  it("leaves a reader in shillings, or without a choice, in shillings", () => {
    expect(formatPrice(370_000, orderCurrency({ code: "UGX", ugxPerUsd: 0 }, 3_700))).toBe("UGX 370,000");
    expect(formatPrice(370_000, orderCurrency(null, 3_700))).toBe("UGX 370,000");
  });
});
