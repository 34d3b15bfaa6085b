/**
 * Device cookies (ADR 030, after OWASP's "device cookies" against account lock-out): a browser that signed
 * in to an account is given a long-lived cookie, signed with the server's key (app/models/sign-in-device.server.ts),
 * that names that account. Its sign-in attempts to that account are then counted per account and device,
 * so other people's failures (from other addresses, or its own address) cannot lock it out.
 *
 * The value is `v1.<device id>.<tag>[.<tag>…]`: a random device id kept for the browser's life, and one tag per
 * account it signed in to (the five most recent), each an HMAC-SHA256 of the device id and the account's
 * lower-cased email. A tag proves this browser signed in to that account; it does not show the email to
 * whoever reads the cookie, and a tag made without the key, or for another account, proves nothing.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { readCookie, serializeCookie } from "~/server/cookies.server";
import { getEnv } from "~/server/env.server";

export const DEVICE_COOKIE = "soko_device";
/** A year: the browser keeps its standing as long as it keeps signing in now and then. */
export const DEVICE_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60;
/** Accounts one browser is remembered for (a shared family phone). */
const ACCOUNTS_PER_DEVICE = 5;
const TAG_BYTES = 16;

/** `__Host-` over https, as the session cookie (app/server/auth.server.ts), so a subdomain cannot plant one. */
export function deviceCookieName(): string {
  return getEnv().isHttps ? `__Host-${DEVICE_COOKIE}` : DEVICE_COOKIE;
}

/** The device cookie a Cookie header carries (unchecked), or null. */
export function readDeviceCookie(header: string | null | undefined): string | null {
  return readCookie(header, deviceCookieName());
}

/** The email as accounts are matched: trimmed and lower-cased. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

function tagOf(key: Buffer, deviceId: string, email: string): string {
  return createHmac("sha256", key)
    .update(`soko-device-v1\n${deviceId}\n${normaliseEmail(email)}`)
    .digest()
    .subarray(0, TAG_BYTES)
    .toString("base64url");
}

function parse(value: string | null | undefined): { deviceId: string; tags: string[] } | null {
  if (!value || value.length > 400) return null;
  const [version, deviceId, ...tags] = value.split(".");
  if (version !== "v1" || !deviceId || !/^[A-Za-z0-9_-]{22}$/.test(deviceId)) return null;
  return { deviceId, tags: tags.filter((t) => /^[A-Za-z0-9_-]{22}$/.test(t)).slice(0, ACCOUNTS_PER_DEVICE) };
}

/** The device id of a cookie that proves its browser signed in to this email's account before; null otherwise. */
export function trustedDevice(key: Buffer, value: string | null | undefined, email: string): string | null {
  const cookie = parse(value);
  if (!cookie) return null;
  const expected = Buffer.from(tagOf(key, cookie.deviceId, email));
  return cookie.tags.some((tag) => tag.length === expected.length && timingSafeEqual(Buffer.from(tag), expected)) ? cookie.deviceId : null;
}

/**
 * The cookie value after a sign-in to this email's account: the browser's device id (a new one if it had no
 * valid cookie), this account's tag first, then the other accounts it holds, at most five.
 */
export function deviceAfterSignIn(key: Buffer, value: string | null | undefined, email: string): string {
  const cookie = parse(value);
  const deviceId = cookie?.deviceId ?? randomBytes(16).toString("base64url");
  const tag = tagOf(key, deviceId, email);
  const tags = [tag, ...(cookie?.tags ?? []).filter((t) => t !== tag)].slice(0, ACCOUNTS_PER_DEVICE);
  return ["v1", deviceId, ...tags].join(".");
}

/** The Set-Cookie value of a device cookie: httpOnly, SameSite=Lax, Secure over https, kept for a year. */
export function deviceCookie(value: string): string {
  return serializeCookie(deviceCookieName(), value, { maxAge: DEVICE_COOKIE_MAX_AGE_S });
}
