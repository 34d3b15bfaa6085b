import { describe, expect, it } from "vitest";
import { cleanPath, cleanUrl } from "./urls";

const HOST = "soko.test";

describe("cleanUrl: what of an address analytics keeps", () => {
  it.each([
    // Auth pages: never their query (a reset link's token above all), nor a fragment.
    ["/reset-password?token=SECRET", "/reset-password"],
    ["https://soko.test/reset-password?token=SECRET#top", "https://soko.test/reset-password"],
    ["https://soko.test/reset-password?TOKEN=SECRET&token=SECRET", "https://soko.test/reset-password"],
    ["/login?redirectTo=%2Fsettings&reset=1", "/login"],
    ["/forgot-password?email=ruth%40example.ug", "/forgot-password"],
    ["/register?ref=SECRET", "/register"],
    ["/freelancer/register?invite=SECRET", "/freelancer/register"],
    ["/consent?redirectTo=/reset-password%3Ftoken%3DSECRET", "/consent"],
    // Pages whose query is known: only their own keys survive, in order, and never the cursor.
    ["/search?q=logo", "/search?q=logo"],
    ["https://soko.test/search?q=logo%20design&token=SECRET&sort=newest#r", "https://soko.test/search?q=logo+design&sort=newest"],
    [
      "/browse?category=design&price=under-100000&rating=4.5&delivery=3&cursor=abc&utm_source=x",
      "/browse?category=design&price=under-100000&rating=4.5&delivery=3",
    ],
    ["/help?q=refund", "/help?q=refund"],
    ["/gig/12/order?package=standard&token=SECRET", "/gig/12/order?package=standard"],
    ["/settings?tab=preferences&saved=1", "/settings?tab=preferences"],
    // The same key on another page is not kept.
    ["/?q=SECRET", "/"],
    ["/gig/12?package=standard", "/gig/12"],
    ["/search/?q=x", "/search/"],
    // Other sites: their origin only.
    ["https://www.google.com/search?q=SECRET", "https://www.google.com"],
    ["https://mail.example.ug/inbox/SECRET#m=1", "https://mail.example.ug"],
    ["http://user:SECRET@evil.example:8080/x?y=1", "http://evil.example:8080"],
    ["https://admin.soko.test/users?search=SECRET", "https://admin.soko.test"],
    // Our own host by any spelling.
    ["https://SOKO.test/help?q=a&x=SECRET", "https://soko.test/help?q=a"],
    // Paths that name another host are absolute addresses, and not ours.
    ["//evil.example/reset?token=SECRET", ""],
    ["/\\evil.example/reset?token=SECRET", ""],
    // Not an http(s) address.
    ["", ""],
    ["search?q=SECRET", ""],
    ["javascript:alert(1)", ""],
    ["android-app://com.google.android.gm/SECRET", ""],
    ["not a url at all SECRET", ""],
  ])("%s → %s", (raw, expected) => {
    expect(cleanUrl(raw, HOST)).toBe(expected);
  });

  it("compares the host with its port, and a Host header in capitals", () => {
    expect(cleanUrl("http://localhost:3000/reset-password?token=SECRET", "localhost:3000")).toBe("http://localhost:3000/reset-password");
    expect(cleanUrl("http://localhost:4000/x?token=SECRET", "localhost:3000")).toBe("http://localhost:4000");
    expect(cleanUrl("http://localhost:3000/search?q=a", "LOCALHOST:3000")).toBe("http://localhost:3000/search?q=a");
  });
});

describe("cleanPath", () => {
  it.each([
    ["/reset-password?token=SECRET", "/reset-password"],
    ["/help#faq", "/help"],
    ["/gig/12", "/gig/12"],
    ["", ""],
  ])("%s → %s", (raw, expected) => {
    expect(cleanPath(raw)).toBe(expected);
  });
});
