import { describe, expect, it } from "vitest";
import { ADMIN_SCREENS, adminScreenRouteId, hostsOfRoute, siteServesRoute } from "./site-routes";

describe("which host serves which route", () => {
  it("serves the root, sign-in, sign-out, the privacy choice, the language switch and the 404 page on both hosts", () => {
    for (const id of ["root", "routes/login", "routes/logout", "routes/consent", "routes/privacy", "routes/language", "routes/media.$name", "routes/$"]) {
      expect(hostsOfRoute(id), id).toEqual(["main", "admin"]);
    }
  });

  it("serves every other page of app/routes/ on the main host only", () => {
    for (const id of [
      "routes/_index",
      "routes/messages",
      "routes/help",
      "routes/browse",
      "routes/settings",
      "routes/gig.$id_.edit",
      "routes/dev.outbox",
      "routes/terms",
    ]) {
      expect(hostsOfRoute(id), id).toEqual(["main"]);
    }
  });

  it("serves each admin screen at /x on the admin host and /admin/x on the main host, under two ids", () => {
    expect(ADMIN_SCREENS.map((s) => s.name)).toEqual([
      "dashboard",
      "users",
      "messages",
      "analytics",
      "analytics-export",
      "disputes",
      "audit",
      "pipeline",
      "rates",
      "categories",
      "heatmap",
      "funnel",
      "journey",
      "member-analytics",
      "reviews",
    ]);
    for (const { name } of ADMIN_SCREENS) {
      expect(adminScreenRouteId("admin", name)).toBe(`admin-host/${name}`);
      expect(adminScreenRouteId("main", name)).toBe(`admin/${name}`);
      expect(hostsOfRoute(adminScreenRouteId("admin", name))).toEqual(["admin"]);
      expect(hostsOfRoute(adminScreenRouteId("main", name))).toEqual(["main"]);
    }
    expect(siteServesRoute("admin", "admin-host/users")).toBe(true);
    expect(siteServesRoute("main", "admin-host/users")).toBe(false);
    expect(siteServesRoute("admin", "admin/users")).toBe(false);
  });
});
