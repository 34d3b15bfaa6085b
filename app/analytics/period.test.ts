import { describe, expect, it } from "vitest";
import { parsePeriod, periodQuery } from "./period";

const parse = (params: Record<string, string>) => parsePeriod(new URLSearchParams(params));

describe("parsePeriod", () => {
  it("defaults to the last 7 days and takes the four named ranges", () => {
    expect(parse({})).toEqual({ ok: true, period: { kind: "range", range: "7d", slug: "7d" } });
    for (const range of ["1d", "7d", "30d", "90d"]) expect(parse({ range })).toMatchObject({ ok: true, period: { kind: "range", range, slug: range } });
  });

  it("takes custom days, both whole (UTC), as a window of seconds open at its start", () => {
    const parsed = parse({ range: "custom", from: "2026-03-01", to: "2026-03-31" });
    expect(parsed).toEqual({
      ok: true,
      period: {
        kind: "custom",
        from: "2026-03-01",
        to: "2026-03-31",
        window: { from: Date.parse("2026-03-01T00:00:00Z") / 1000 - 1, to: Date.parse("2026-04-01T00:00:00Z") / 1000 - 1 },
        slug: "2026-03-01_2026-03-31",
      },
    });
    if (parsed.ok) expect(periodQuery(parsed.period).toString()).toBe("range=custom&from=2026-03-01&to=2026-03-31");
    // A whole leap year is 366 days: allowed; a day more is not.
    expect(parse({ range: "custom", from: "2024-01-01", to: "2024-12-31" }).ok).toBe(true);
    expect(parse({ range: "custom", from: "2024-01-01", to: "2025-01-01" })).toMatchObject({
      ok: false,
      errors: { to: "admin.period.tooLong" },
    });
  });

  it("says what is wrong beside each field, as the catalogue's keys", () => {
    expect(parse({ range: "2d" })).toMatchObject({ ok: false, errors: { range: "admin.period.chooseRange" } });
    expect(parse({ range: "custom" })).toMatchObject({
      ok: false,
      errors: { from: "admin.period.enterFrom", to: "admin.period.enterTo" },
    });
    expect(parse({ range: "custom", from: "2026-02-30", to: "yesterday" })).toMatchObject({
      ok: false,
      errors: { from: "admin.period.fromNotDate", to: "admin.period.toNotDate" },
    });
    expect(parse({ range: "custom", from: "2026-03-02", to: "2026-03-01" })).toMatchObject({
      ok: false,
      errors: { to: "admin.period.toBeforeFrom" },
    });
    // Dates alone (no range) are a custom period.
    expect(parse({ from: "2026-03-01", to: "2026-03-01" })).toMatchObject({
      ok: true,
      period: { kind: "custom", slug: "2026-03-01" },
    });
  });
});
