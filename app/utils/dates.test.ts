import { describe, expect, it } from "vitest";
import { formatDate, formatDateTime, formatDay, formatDayTime, formatTime } from "./dates";

// 22:30 UTC on 26 November is 01:30 on the 27th in Kampala (UTC+3): the day differs by zone.
const LATE_EVENING_UTC = "2026-11-26T22:30:00Z";

describe("dates in the member's time zone", () => {
  it("shows the day and time in EAT or UTC, whichever zone was asked for last", () => {
    for (let i = 0; i < 2; i++) {
      expect(formatDate(LATE_EVENING_UTC)).toBe("27 November 2026");
      expect(formatDate(LATE_EVENING_UTC, "UTC")).toBe("26 November 2026");
      expect(formatDateTime(LATE_EVENING_UTC, "EAT")).toBe("27 Nov 2026, 01:30 EAT");
      expect(formatDateTime(new Date(LATE_EVENING_UTC), "UTC")).toBe("26 Nov 2026, 22:30 UTC");
      expect(formatDate(new Date(LATE_EVENING_UTC), "EAT")).toBe("27 November 2026");
    }
  });

  it("says a near day with its weekday and no year, in the zone asked for", () => {
    expect(formatDay(LATE_EVENING_UTC)).toBe("Fri 27 Nov");
    expect(formatDay(LATE_EVENING_UTC, "UTC")).toBe("Thu 26 Nov");
    expect(formatDayTime(LATE_EVENING_UTC, "EAT")).toBe("Fri 27 Nov 01:30");
    expect(formatDayTime(LATE_EVENING_UTC, "UTC")).toBe("Thu 26 Nov 22:30");
  });

  it("writes the time of day in the zone asked for", () => {
    expect(formatTime(LATE_EVENING_UTC, "EAT")).toBe("01:30");
    expect(formatTime(new Date(LATE_EVENING_UTC), "UTC")).toBe("22:30");
  });
});
