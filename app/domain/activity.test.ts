import { describe, expect, it } from "vitest";
import { serverI18n } from "~/i18n/catalog.server";
import { ACTIVITY_KINDS, ADMIN_ACTIVITY_KEY, MEMBER_ACTIVITY_KEY, sayActivity } from "./activity";

const sayer = (locale: "en" | "lg" | "sw") => {
  const i18n = serverI18n(locale);
  return i18n._.bind(i18n);
};

describe("activity in words", () => {
  it("says every kind to the member and to an admin, in each language, by its code", () => {
    for (const locale of ["en", "lg", "sw"] as const) {
      const t = sayer(locale);
      for (const kind of ACTIVITY_KINDS) {
        // A key with no message comes back as the key itself.
        expect(sayActivity(t, MEMBER_ACTIVITY_KEY, kind, "dashboard.activity.unknown")).not.toBe(MEMBER_ACTIVITY_KEY[kind]);
        expect(sayActivity(t, ADMIN_ACTIVITY_KEY, kind, "admin.activity.unknown")).not.toBe(ADMIN_ACTIVITY_KEY[kind]);
      }
    }
    expect(sayActivity(sayer("sw"), ADMIN_ACTIVITY_KEY, "order_placed", "admin.activity.unknown")).toBe("aliweka agizo");
    expect(sayActivity(sayer("lg"), MEMBER_ACTIVITY_KEY, "joined", "dashboard.activity.unknown")).toBe("Mwegatta ku Soko");
  });

  it("says a kind it does not know with the kind in the sentence", () => {
    expect(sayActivity(sayer("en"), ADMIN_ACTIVITY_KEY, "gig_boosted", "admin.activity.unknown")).toBe(
      "did something this screen does not name yet (gig_boosted)",
    );
    expect(sayActivity(sayer("sw"), MEMBER_ACTIVITY_KEY, "gig_boosted", "dashboard.activity.unknown")).toContain("(gig_boosted)");
  });
});
