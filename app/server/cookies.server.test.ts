import { describe, expect, it } from "vitest";
import { clientOf, sessionCookie, sessionTokenOf } from "./auth.server";
import { readConsent, readCookie, serializeCookie } from "./cookies.server";

describe("readCookie", () => {
  it("finds a cookie among others, whatever the spacing, and the first of two of one name", () => {
    const header = "soko_consent=granted;soko_sid=1764000000000-k3j9x2;  soko_session=abc_DEF-123 ; soko_session=second";
    expect(readCookie(header, "soko_sid")).toBe("1764000000000-k3j9x2");
    expect(readCookie(header, "soko_session")).toBe("abc_DEF-123");
    expect(readCookie(header, "soko_currency")).toBeNull();
    expect(readCookie("xsoko_session=abc", "soko_session")).toBeNull();
    expect(readCookie("soko_session=", "soko_session")).toBeNull();
    expect(readCookie(null, "soko_session")).toBeNull();
  });

  it("reads a quoted value (RFC 6265 allows one), which the hand-written parsers did not", () => {
    expect(readCookie('soko_currency="USD"', "soko_currency")).toBe("USD");
    expect(readConsent('soko_consent="granted"')).toBe("granted");
    expect(clientOf({ cookie: 'soko_consent="granted"; soko_sid=1-a', ip: "" })).toMatchObject({ analyticsConsent: true, tabSessionId: "1-a" });
  });

  it("takes only the two choices as consent", () => {
    expect(readConsent("soko_consent=denied")).toBe("denied");
    expect(readConsent("soko_consent=yes")).toBeNull();
    expect(readConsent("soko_consent=grantedx")).toBeNull();
  });

  it("prefers a Bearer token (an app's session) to the session cookie (a browser's)", () => {
    expect(sessionTokenOf({ authorization: "Bearer tok-1", cookie: "soko_session=tok-2" })).toEqual({ token: "tok-1", kind: "app" });
    expect(sessionTokenOf({ cookie: "a=1; soko_session=tok-2" })).toEqual({ token: "tok-2", kind: "browser" });
  });
});

describe("serializeCookie", () => {
  it("writes Path=/, SameSite=Lax and HttpOnly by default, and Secure last over https", () => {
    expect(serializeCookie("soko_currency", "USD", { maxAge: 31_536_000, secure: false })).toBe(
      "soko_currency=USD; Max-Age=31536000; Path=/; HttpOnly; SameSite=Lax",
    );
    expect(serializeCookie("soko_consent", "granted", { maxAge: 31_536_000, httpOnly: false, secure: true })).toBe(
      "soko_consent=granted; Max-Age=31536000; Path=/; SameSite=Lax; Secure",
    );
    expect(serializeCookie("__Host-soko_session", "tok", { secure: true })).toBe("__Host-soko_session=tok; Path=/; HttpOnly; SameSite=Lax; Secure");
  });

  it("writes the session cookie as before: an expiry only when remembered", () => {
    expect(sessionCookie("tok", null)).toBe("soko_session=tok; Path=/; HttpOnly; SameSite=Lax");
    expect(sessionCookie("", new Date(0))).toBe("soko_session=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax");
  });

  it("refuses a value that would break the header instead of writing it", () => {
    expect(serializeCookie("n", "a;b", { secure: false })).toBe("n=a%3Bb; Path=/; HttpOnly; SameSite=Lax");
    expect(() => serializeCookie("bad name", "v")).toThrow(TypeError);
  });
});
