import { describe, expect, it } from "vitest";
import { safeRedirect } from "./auth.server";

describe("safeRedirect", () => {
  it("keeps a path on this site, query and fragment included", () => {
    expect(safeRedirect("/settings?tab=billing")).toBe("/settings?tab=billing");
    expect(safeRedirect("/gig/12/order?package=basic#top")).toBe("/gig/12/order?package=basic#top");
    expect(safeRedirect("/login?redirectTo=%2Fdashboard", "/")).toBe("/login?redirectTo=%2Fdashboard");
  });

  it.each([
    ["//evil.example", "protocol-relative"],
    ["///evil.example", "three slashes"],
    ["https://evil.example", "absolute"],
    ["javascript:alert(1)", "script URL"],
    ["evil.example", "no leading slash"],
    ["/\\evil.example", "backslash (read as a slash)"],
    ["/\\/evil.example", "slash backslash slash"],
    ["/\t/evil.example", "tab (browsers strip it: //evil.example)"],
    ["/\n/evil.example", "newline (browsers strip it; an invalid Location header)"],
    ["/\r\n/evil.example", "CR LF"],
    ["/dashboard\nSet-Cookie: x=1", "header injection"],
    ["/ /evil.example", "space"],
    ["/\u00a0/evil.example", "no-break space"],
    ["/\u0000/evil.example", "NUL"],
    ["/\u007f/evil.example", "DEL"],
    ["", "empty"],
    ["/.//evil.example", "dot segment, then two slashes"],
    ["/..//evil.example", "dot-dot segment, then two slashes"],
    ["/%2e//evil.example", "encoded dot segment"],
    ["/%2E%2E//evil.example", "encoded dot-dot segment, upper case"],
    ["/a/..//evil.example", "a segment taken back, then two slashes"],
    ["/a/%2e%2e//evil.example", "a segment taken back by an encoded dot-dot"],
    ["/./\\evil.example", "dot segment, then a backslash"],
  ])("refuses %j (%s)", (to) => {
    expect(safeRedirect(to)).toBe("/dashboard");
    expect(safeRedirect(to, "/")).toBe("/");
  });

  it("refuses what is not a string, and writes other characters as a valid header value", () => {
    expect(safeRedirect(null)).toBe("/dashboard");
    expect(safeRedirect(undefined, "")).toBe("");
    expect(safeRedirect(new File(["/x"], "x.txt"))).toBe("/dashboard");
    expect(safeRedirect("/search?q=kampala café")).toBe("/dashboard");
    expect(safeRedirect("/search?q=café")).toBe("/search?q=caf%C3%A9");
    expect(safeRedirect("/a/../../evil.example")).toBe("/evil.example");
  });
});
