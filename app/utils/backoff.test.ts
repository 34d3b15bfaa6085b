import { describe, expect, it } from "vitest";
import { backoffDelay, retryDelay } from "./backoff";

describe("backoff", () => {
  it("doubles from initialMs up to maxMs", () => {
    expect([0, 1, 2, 3, 4, 10, 1_000].map((n) => backoffDelay(n, { initialMs: 100, maxMs: 1_000 }))).toEqual([100, 200, 400, 800, 1_000, 1_000, 1_000]);
  });
  it("spreads each wait over ±jitter", () => {
    for (let i = 0; i < 100; i++) {
      const delay = backoffDelay(2, { initialMs: 100, maxMs: 10_000, jitter: 0.2 });
      expect(delay).toBeGreaterThanOrEqual(320);
      expect(delay).toBeLessThanOrEqual(480);
    }
  });
  it("gives up after maxAttempts", () => {
    const policy = { initialMs: 1_000, maxMs: 10_000, maxAttempts: 3 };
    expect([1, 2, 3, 4].map((n) => retryDelay(n, policy))).toEqual([1_000, 2_000, null, null]);
  });
});
