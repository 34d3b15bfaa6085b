/**
 * Cookies, read and written in one place with the `cookie` package (the parser Express and Remix use):
 * the session, the analytics choice (`soko_consent`), the tracker's tab session (`soko_sid`) and an
 * anonymous visitor's currency (`soko_currency`). The browser tracker reads `document.cookie` on its own.
 */
import { parse, serialize } from "cookie";
import { getEnv } from "~/server/env.server";

/** The visitor's analytics choice (ADR 007): not HttpOnly, since the browser tracker reads it too. */
export const CONSENT_COOKIE = "soko_consent";
export type Consent = "granted" | "denied";

/** The analytics choice a Cookie header carries, or null until the visitor makes one. */
export function readConsent(header: string | null | undefined): Consent | null {
  const value = readCookie(header, CONSENT_COOKIE);
  return value === "granted" || value === "denied" ? value : null;
}

/**
 * One cookie's value from a Cookie header, or null when it is absent or empty. The first of two cookies of
 * the same name wins (a browser sends the most specific path first); a quoted value loses its quotes.
 */
export function readCookie(header: string | null | undefined, name: string): string | null {
  if (!header) return null;
  return parse(header)[name] || null;
}

export type CookieOptions = {
  /** Seconds until the browser forgets it; without it (and `expires`) the cookie ends with the browser. */
  maxAge?: number;
  expires?: Date;
  /** Out of reach of the page's scripts: true unless a script must read it (the tracker reads the consent). */
  httpOnly?: boolean;
  /** Only over https: by default when the site is served over https (getEnv().isHttps). */
  secure?: boolean;
};

/**
 * A Set-Cookie value with our defaults: Path=/, SameSite=Lax (sent on a link from another site, never on
 * its form posts), HttpOnly, and Secure over https. Secure comes last, where our cookies have always had
 * it, so the header reads as it did before this module.
 */
export function serializeCookie(name: string, value: string, options: CookieOptions = {}): string {
  const { maxAge, expires, httpOnly = true, secure = getEnv().isHttps } = options;
  const cookie = serialize(name, value, { path: "/", maxAge, expires, httpOnly, sameSite: "lax" });
  return secure ? `${cookie}; Secure` : cookie;
}
