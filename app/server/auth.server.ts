/**
 * Who is asking: the one place loaders and actions learn the signed-in user.
 * The session cookie names a browser's session, an `Authorization: Bearer` token an app's (ADR 041): pages read
 * only the cookie, the JSON API only the token, and the other doors (tracking, live chat) either.
 */
import { data, redirect } from "@remix-run/node";
import type { Knex } from "knex";
import type { HeaderCounts } from "~/models/notification.server";
import { getSessionUser, getSessionUserWithCounts, SESSION_COOKIE, type SessionKind, type SessionUser } from "~/models/session.server";
import { CONSENT_COOKIE, readCookie, serializeCookie } from "~/server/cookies.server";
import { getDb } from "~/server/db.server";
import { getEnv } from "~/server/env.server";
import { getSiteHost } from "~/server/host.server";
import { deviceCookie } from "~/server/sign-in-device.server";
import { keepSessionAlive } from "~/operations/accounts.server";
import type { Actor, Client } from "~/operations/core.server";
import { log } from "~/server/log.server";
import { heldSessionUser } from "~/server/token-cache.server";
import { noteActor, REQUEST_ID_HEADER } from "~/server/request-context.server";

/**
 * The session cookie's name. Over https it carries the `__Host-` prefix: browsers then accept it only with
 * Secure, Path=/ and no Domain, so a neighbouring subdomain cannot plant a session of its choosing (cookie
 * tossing). Only the name in force is read.
 */
export function sessionCookieName(): string {
  return getEnv().isHttps ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE;
}

/** What any door (a page, a socket.io handshake, a tracking request, the JSON API) knows of who is asking. */
/** `requestId`: the request's own (X-Request-Id, set by server.ts's request log for every request it serves). */
export type Credentials = { authorization?: string | null; cookie?: string | null; ip: string; userAgent?: string | null; requestId?: string | null };

/** A page's session token: its session cookie's (a Bearer token is the JSON API's, not a page's). */
export function getSessionToken(request: Request): string | null {
  return readCookie(request.headers.get("Cookie"), sessionCookieName());
}

/** The session a set of credentials names: the Bearer token (an app's) if there is one, else the session cookie (a browser's). */
export function sessionTokenOf({ authorization, cookie }: Pick<Credentials, "authorization" | "cookie">): { token: string; kind: SessionKind } | null {
  const bearer = bearerTokenOf(authorization);
  if (bearer) return { token: bearer, kind: "app" };
  const token = readCookie(cookie, sessionCookieName());
  return token ? { token, kind: "browser" } : null;
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerTokenOf(authorization: string | null | undefined): string | null {
  return authorization?.match(/^Bearer\s+(\S+)$/i)?.[1] ?? null;
}

export async function getUser(request: Request): Promise<SessionUser | null> {
  const user = await getSessionUser(getDb(), getSessionToken(request));
  return user && keptAlive(user, clientOfRequest(request));
}

/** getUser with the header's unread counts, read in the same statement (the root loader's). */
export async function getUserWithHeaderCounts(request: Request): Promise<{ user: SessionUser | null; counts: HeaderCounts | null }> {
  const found = await getSessionUserWithCounts(getDb(), getSessionToken(request));
  return found ? { user: await keptAlive(found.user, clientOfRequest(request)), counts: found.counts } : { user: null, counts: null };
}

/**
 * The user of a session in use, whose browser session's end has moved 12 hours ahead if it was due
 * (keepSessionAlive, ADR 030): every door that reads a session comes through here, so activity on either
 * host keeps it. A failure to write is only logged: the session works until its old end.
 */
async function keptAlive(user: SessionUser, client: Client, db: Knex = getDb()): Promise<SessionUser> {
  // The member behind the request, for its log line (ADR 057).
  noteActor(client.requestId, user.id);
  if (!user.renewalDue) return user;
  const { renewalDue: _, ...rest } = user;
  await keepSessionAlive({ kind: "member", user: rest, client }, { db }).catch((error: unknown) =>
    log.error(`[session] could not renew session: ${(error as Error).message}`),
  );
  return rest;
}

/** The client of a request seen by a loader without its load context (no address). */
const clientOfRequest = (request: Request) =>
  clientOf({ cookie: request.headers.get("Cookie"), ip: "", userAgent: request.headers.get("User-Agent"), requestId: request.headers.get(REQUEST_ID_HEADER) });

/** The client behind a request: address, software, and the visitor's analytics choice (ADR 007). */
export function clientOf({ cookie, ip, userAgent, requestId = null }: Credentials): Client {
  const analyticsConsent = readCookie(cookie, CONSENT_COOKIE) === "granted";
  return {
    ip,
    userAgent: (userAgent ?? "").slice(0, 512),
    analyticsConsent,
    tabSessionId: analyticsConsent ? readCookie(cookie, "soko_sid") : null,
    requestId,
  };
}

/**
 * The actor of any door's credentials: a member with a live session, else an anonymous visitor. `held`: the
 * session's lookup may be one this process holds (heldSessionUser: at most a minute old, forgotten when the
 * member's sessions or account change), for a door that asks on every event (a live socket).
 */
export async function actorOf(credentials: Credentials, db: Knex = getDb(), { held = false }: { held?: boolean } = {}): Promise<Actor> {
  const client = clientOf(credentials);
  const session = sessionTokenOf(credentials);
  const user =
    session &&
    (held && getEnv().TOKEN_CACHE === "on" ? await heldSessionUser(db, session.token, session.kind) : await getSessionUser(db, session.token, session.kind));
  return user ? { kind: "member", user: await keptAlive(user, client, db), client } : { kind: "anonymous", client };
}

/** The actor of a page request (its session cookie); `clientIp` is the load context's. */
export function getActor(request: Request, clientIp: string, db?: Knex): Promise<Actor> {
  const h = request.headers;
  return actorOf({ cookie: h.get("Cookie"), ip: clientIp, userAgent: h.get("User-Agent"), requestId: h.get(REQUEST_ID_HEADER) }, db);
}

type HeaderValue = string | string[] | undefined;
const one = (v: HeaderValue) => (Array.isArray(v) ? v.join(", ") : v) ?? null;

/**
 * The actor of a socket.io handshake, from the socket's peer address: an app's token (`auth: { token }`, or an
 * Authorization header) or a page's session cookie. Asked again on every event the socket sends, so its session's
 * lookup is a held one (ADR 016).
 */
export function getSocketActor(
  handshake: { headers: Record<string, HeaderValue>; address: string; auth?: Record<string, unknown> },
  db?: Knex,
): Promise<Actor> {
  const h = handshake.headers;
  const token = typeof handshake.auth?.token === "string" ? handshake.auth.token : null;
  const authorization = token ? `Bearer ${token}` : one(h.authorization);
  return actorOf({ authorization, cookie: one(h.cookie), ip: handshake.address, userAgent: one(h["user-agent"]) }, db, { held: true });
}

/** The socket.io room of a member's sockets (every tab they have open). */
export const memberRoom = (userId: number) => `member:${userId}`;

/**
 * A member-only door for HTML: the member's actor, or a redirect to /login that brings them back here.
 * (The JSON API's guard answers 401 instead.)
 */
export async function requireMemberActor(request: Request, clientIp: string): Promise<Extract<Actor, { kind: "member" }>> {
  const actor = await getActor(request, clientIp);
  if (actor.kind !== "member") throw redirect(`/login?redirectTo=${encodeURIComponent(returnPath(request))}`);
  return actor;
}

/** Where to come back to after signing in: the path and query of this request. */
export function returnPath(request: Request): string {
  const url = new URL(request.url);
  return `${url.pathname}${url.search}`;
}

/**
 * The signed-in user, or a redirect to /login that brings them back here afterwards.
 * With `roles`, a signed-in user of another role is sent to the home page.
 */
export async function requireUser(request: Request, { roles }: { roles?: SessionUser["role"][] } = {}): Promise<SessionUser> {
  const user = await getUser(request);
  if (!user) {
    throw redirect(`/login?redirectTo=${encodeURIComponent(returnPath(request))}`);
  }
  if (roles && !roles.includes(user.role)) throw redirect("/");
  return user;
}

/** For pages only a visitor who is not signed in may use (joining): a signed-in member goes to the dashboard. */
export async function requireAnonymous(request: Request): Promise<void> {
  if (await getUser(request)) throw redirect("/dashboard");
}

/**
 * The Set-Cookie value that carries a session token (the account operations start sessions): httpOnly,
 * SameSite=Lax, Secure and `__Host-` over https. Without an expiry ("remember me" off, an admin, the admin
 * host) it ends with the browser; the row still expires after 12 hours without activity.
 */
export function sessionCookie(token: string, expiresAt: Date | null): string {
  return serializeCookie(sessionCookieName(), token, { expires: expiresAt ?? undefined });
}

/** The Set-Cookie headers of a sign-in or a join: the session's cookie, and the browser's device cookie (ADR 030). */
export function signedInHeaders({ token, expiresAt, persistent, device }: { token: string; expiresAt: Date; persistent: boolean; device: string }): Headers {
  const headers = new Headers();
  headers.append("Set-Cookie", sessionCookie(token, persistent ? expiresAt : null));
  headers.append("Set-Cookie", deviceCookie(device));
  return headers;
}

export function clearSessionCookie(): string {
  return sessionCookie("", new Date(0));
}

/** Whitespace, control characters and backslashes: browsers drop or rewrite them (`/\t/evil.example` is read as `//evil.example`). */
const UNSAFE_IN_REDIRECT = /[\s\u0000-\u001f\u007f\\]/;
const PROBE_ORIGIN = "http://soko.invalid";

/**
 * Only a path on this site may be a place to return to after signing in. It is refused (the fallback is
 * used) unless it starts with `/`, has no whitespace, control character or backslash, and resolves to the
 * same origin to a path that does not itself begin with `//`: so `//evil.example`, `https://…`,
 * `/\t/evil.example`, `/.//evil.example`, `/%2e//evil.example` and a `\n` (an invalid Location header) all fall back. The path comes back as the URL parser writes it, so it is always a valid header value.
 */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback = "/dashboard"): string {
  if (typeof to !== "string" || !to.startsWith("/") || UNSAFE_IN_REDIRECT.test(to)) return fallback;
  let url: URL;
  try {
    url = new URL(to, PROBE_ORIGIN);
  } catch {
    return fallback;
  }
  // Dot segments are resolved by the parser (`/.//x`, `/a/..//x`, `/%2e//x` all become `//x`): a result that
  // starts with two slashes (or a slash and a backslash) is a protocol-relative URL to the browser.
  if (url.origin !== PROBE_ORIGIN || /^\/[/\\]/.test(url.pathname)) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}

/**
 * The admin area's rule, on both hosts. Anonymous: to /login (and back). Signed in without the admin role:
 * on the main host to `/`; on the admin host a 403 whose page is the Access Denied panel.
 */
export async function requireAdmin(request: Request): Promise<SessionUser> {
  const user = await getUser(request);
  if (!user) throw redirect(`/login?redirectTo=${encodeURIComponent(returnPath(request))}`);
  if (user.role !== "admin") {
    if (getSiteHost(request) === "admin") throw data({ accessDenied: true }, { status: 403 });
    throw redirect("/");
  }
  return user;
}
