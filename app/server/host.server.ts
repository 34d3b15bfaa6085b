import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { ServerBuild } from "@remix-run/node";
import { getEnv, type Env } from "./env.server";
import { headersWords } from "./plain-words.server";
import { hostnameOf, isLoopbackHostname } from "../utils/host-names";
import { siteServesRoute, type SiteHost } from "../utils/site-routes";
import { log } from "~/server/log.server";

export type { SiteHost };

/** Which site a host name is: one starting with ADMIN_HOST_PREFIX is the admin portal. */
export function siteOfHostname(hostname: string): SiteHost {
  return hostname.toLowerCase().startsWith(getEnv().ADMIN_HOST_PREFIX.toLowerCase()) ? "admin" : "main";
}

/** Which site a request is for (a screen's choice of words; which pages a host serves is site-routes.ts's). */
export function getSiteHost(request: Request): SiteHost {
  return siteOfHostname(new URL(request.url).hostname);
}

const buildsBySite = new WeakMap<ServerBuild, Record<SiteHost, ServerBuild>>();

/**
 * The server build as one host sees it: only the routes that host serves (app/utils/site-routes.ts), both
 * in the server's matching (documents, data requests, resource routes) and in the route manifest the
 * browser discovers routes from, so client-side navigation matches what the server would. A path the
 * host does not serve falls to the catch-all 404 route. Made once per build.
 */
export function serverBuildForSite(build: ServerBuild, site: SiteHost): ServerBuild {
  let builds = buildsBySite.get(build);
  if (!builds) {
    const only = (host: SiteHost): ServerBuild => {
      const keep = <T>(routes: Record<string, T>) => Object.fromEntries(Object.entries(routes).filter(([id]) => siteServesRoute(host, id)));
      return { ...build, routes: keep(build.routes), assets: { ...build.assets, routes: keep(build.assets.routes) } };
    };
    builds = { main: only("main"), admin: only("admin") };
    buildsBySite.set(build, builds);
  }
  return builds[site];
}

/** The main site's origin as seen from this request (the admin host links back to it). */
export function getMainSiteUrl(request: Request): string {
  const env = getEnv();
  if (env.PUBLIC_URL) return env.PUBLIC_URL.replace(/\/$/, "");
  const url = new URL(request.url);
  const prefix = env.ADMIN_HOST_PREFIX.toLowerCase();
  if (url.hostname.toLowerCase().startsWith(prefix)) url.hostname = url.hostname.slice(prefix.length);
  return url.origin;
}

/** Express's compiled `trust proxy` setting (`app.get("trust proxy fn")`): whether the peer at this hop is a proxy we trust. */
export type TrustProxy = (address: string, hop: number) => boolean;

/**
 * The origin a request was sent to: its scheme as Express's `req.protocol` reads it (https on a TLS socket,
 * else http, unless a proxy TRUST_PROXY trusts says otherwise in X-Forwarded-Proto) and the host and port of
 * its Host header. Null when there is no Host, or the scheme is neither http nor https.
 */
export function requestOrigin(req: { headers: IncomingHttpHeaders; socket: { remoteAddress?: string } }, trustProxy: TrustProxy): string | null {
  const host = req.headers.host;
  if (!host) return null;
  let scheme = (req.socket as { encrypted?: boolean }).encrypted ? "https" : "http";
  const forwarded = req.headers["x-forwarded-proto"];
  if (typeof forwarded === "string" && forwarded.trim() !== "" && trustProxy(req.socket.remoteAddress ?? "", 0)) {
    scheme = forwarded.split(",")[0]!.trim().toLowerCase();
  }
  if (scheme !== "http" && scheme !== "https") return null;
  const key = `${scheme}://${host}`;
  let origin = origins.get(key);
  if (origin === undefined) {
    try {
      origin = new URL(key).origin;
    } catch {
      origin = null;
    }
    if (origins.size < 1000) origins.set(key, origin);
  }
  return origin;
}

/** Origins by scheme and Host value: few distinct ones, and tracking posts (thousands a second) each ask. */
const origins = new Map<string, string | null>();

/**
 * Whether a request's Origin (or Referer) is the origin the request was sent to (`requestOrigin`): scheme,
 * host and port alike, so neither another site nor our own host over another scheme or port passes. No
 * source at all (an API client, curl, an old browser's same-origin GET) passes; one that is not a URL does not.
 */
export function isSameOrigin(source: string | undefined, origin: string | null): boolean {
  if (!source) return true;
  if (!origin) return false;
  try {
    return new URL(source).origin === origin;
  } catch {
    return false;
  }
}

let warnedAboutMailOrigin = false;

/**
 * The origin of links we put in mail (password resets). A mail outlives the request and goes to someone
 * else's inbox, so its links must never take their host from the request's Host header, which the sender
 * chooses (host-header poisoning: "reset your password at evil.example"). PUBLIC_URL when set; otherwise,
 * only for a request to this machine (localhost, 127.0.0.1, ::1: development, tests, `npm start`), the
 * request's own origin; otherwise `http://localhost:PORT` and a warning in the log: a link that cannot
 * work for the recipient, rather than one that works for an attacker, until PUBLIC_URL is set.
 */
export function getMailOrigin(request: Request): string {
  return mailOriginFrom(request.url);
}

/** The same rule for a request known by the origin it was sent to (the JSON API's, through requestOrigin). */
export function mailOriginFrom(requestUrl: string | null): string {
  const env = getEnv();
  if (env.PUBLIC_URL) return env.PUBLIC_URL.replace(/\/$/, "");
  const url = requestUrl ? new URL(requestUrl) : null;
  if (url && isLoopbackHostname(url.hostname)) {
    const prefix = env.ADMIN_HOST_PREFIX.toLowerCase();
    if (url.hostname.toLowerCase().startsWith(prefix)) url.hostname = url.hostname.slice(prefix.length);
    return url.origin;
  }
  if (!warnedAboutMailOrigin) {
    warnedAboutMailOrigin = true;
    log.warn(
      `[mail] PUBLIC_URL is not set, so links in mail point at http://localhost:${env.PORT} instead of the request's host ` +
        `(${url?.host ?? "none"}), which the sender controls. Set PUBLIC_URL to the site's public address.`,
    );
  }
  return `http://localhost:${env.PORT}`;
}

/**
 * The origin of links in mail written without a request (order steps, message mail from the worker):
 * PUBLIC_URL, or `http://localhost:PORT` for a machine that has none (development, `npm start`).
 */
export function appMailOrigin(): string {
  const env = getEnv();
  return env.PUBLIC_URL ? env.PUBLIC_URL.replace(/\/$/, "") : `http://localhost:${env.PORT}`;
}

/** The admin portal's origin, derived the same way. */
export function getAdminSiteUrl(request: Request): string {
  const url = new URL(getMainSiteUrl(request));
  url.hostname = `${getEnv().ADMIN_HOST_PREFIX}${url.hostname}`;
  return url.origin;
}

// ---------------------------------------------------------------------------------------------------------
// Which host names this server answers (ADR 029).

/**
 * The host names served besides the loopback names: PUBLIC_URL's, its admin host's (ADMIN_HOST_PREFIX and
 * that name) and ALLOWED_HOSTS. Without PUBLIC_URL, only the loopback names and the list.
 */
export function servedHostnames(env: Pick<Env, "PUBLIC_URL" | "ADMIN_HOST_PREFIX" | "ALLOWED_HOSTS">): Set<string> {
  const names = new Set(env.ALLOWED_HOSTS);
  const main = env.PUBLIC_URL ? hostnameOf(new URL(env.PUBLIC_URL).host) : null;
  if (main) {
    names.add(main);
    names.add(`${env.ADMIN_HOST_PREFIX.toLowerCase()}${main}`);
  }
  return names;
}

/** Every name a request gives for its host: its Host header, then each in X-Forwarded-Host; null for one that is not a host. */
function hostnamesOf(host: string | undefined, forwardedHost: string | string[] | undefined): (string | null)[] {
  const names = host === undefined ? [] : [hostnameOf(host)];
  for (const value of [forwardedHost ?? []].flat()) {
    for (const name of value.split(",")) if (name.trim() !== "") names.push(hostnameOf(name.trim()));
  }
  return names;
}

export type HostVerdict = "served" | "misdirected" | "malformed";

/**
 * Whether a request is for a host this server answers: every name it gives (its Host header, and any
 * X-Forwarded-Host a proxy, or a page pretending to be one, added) is a loopback name or one of `served`,
 * compared by name (a loopback name on any port). A request without a Host (HTTP/1.0) is served as the main
 * site's, as before: browsers always send one, so no other site's page can send a request without it.
 */
export function hostVerdict(headers: IncomingHttpHeaders, served: ReadonlySet<string>): HostVerdict {
  let verdict: HostVerdict = "served";
  for (const name of hostnamesOf(headers.host, headers["x-forwarded-host"])) {
    if (name === null) return "malformed";
    if (!isLoopbackHostname(name) && !served.has(name)) verdict = "misdirected";
  }
  return verdict;
}

/** The answers to a Host not served, their bodies in the visitor's language (plain-words.server.ts). */
const REFUSALS = {
  misdirected: { status: 421, reason: "Misdirected Request", key: "ops.request.misdirected" },
  malformed: { status: 400, reason: "Bad Request", key: "ops.request.badAddress" },
} as const;

/** GET /healthz and /readyz, asked by a load balancer or orchestrator by address: answered for any host (they say only ok or not). */
const isHealthCheck = (req: IncomingMessage) => (req.method === "GET" || req.method === "HEAD") && /^\/(?:healthz|readyz)(?:\?|$)/.test(req.url ?? "");

/**
 * Answers `421 Misdirected Request` to a request for a host name this server does not serve (`hostVerdict`;
 * 400 to a Host that is no host name), before anything else sees it: the tracking posts answered ahead of
 * Express (trackingFirst), Express and every route, socket.io's handshakes and WebSocket upgrades, Vite's
 * in development. Any name that resolved to this machine used to be served as the main site, so a page on
 * another domain that rebinds its name to 127.0.0.1 was same-origin with us (DNS rebinding): it could post
 * forms and read the answers, /dev/outbox's reset links included.
 *
 * It wraps the server's `emit` rather than its request listener: socket.io and Vite put their own "request"
 * and "upgrade" listeners in front of the app's, so only `emit` sees every request first, whatever is
 * attached later. Says at start which names are served. Returns the server.
 */
export function refuseMisdirected<S extends Server>(server: S, env: Env = getEnv()): S {
  const served = servedHostnames(env);
  logServedHosts(env, served);
  // Verdicts by header value: a server sees few distinct ones (its names and ports); bounded against floods.
  const verdicts = new Map<string, HostVerdict>();
  const verdictOf = (req: IncomingMessage): HostVerdict => {
    const forwarded = req.headers["x-forwarded-host"];
    const key = forwarded === undefined ? (req.headers.host ?? "") : `${req.headers.host ?? ""}\n${[forwarded].flat().join(",")}`;
    let verdict = verdicts.get(key);
    if (verdict === undefined) {
      verdict = hostVerdict(req.headers, served);
      if (verdicts.size < 1000) verdicts.set(key, verdict);
    }
    return verdict;
  };
  const emit = server.emit;
  server.emit = function (this: S, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "request" || event === "checkContinue" || event === "checkExpectation" || event === "upgrade") {
      const req = args[0] as IncomingMessage;
      const verdict = isHealthCheck(req) ? "served" : verdictOf(req);
      if (verdict !== "served") {
        const { status, reason, key } = REFUSALS[verdict];
        const { locale, say } = headersWords(req);
        const body = say(key);
        if (event === "upgrade") {
          const head = `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Language: ${locale}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
          (args[1] as Duplex).end(head + body);
        } else {
          const res = args[1] as ServerResponse;
          res.writeHead(status, reason, {
            "Content-Type": "text/plain; charset=utf-8",
            "Content-Language": locale,
            "Content-Length": Buffer.byteLength(body),
            "Cache-Control": "no-store",
            "X-Content-Type-Options": "nosniff",
            Connection: "close",
          });
          res.end(body);
        }
        return true;
      }
    }
    return (emit as (...all: unknown[]) => boolean).apply(this, [event, ...args]);
  } as S["emit"];
  return server;
}

function logServedHosts(env: Env, served: ReadonlySet<string>) {
  const names = [...served, "localhost, *.localhost, 127.0.0.1 and [::1] on any port"];
  log.info(`[web] serving the host names ${names.join(", ")}; any other Host is answered 421 Misdirected Request`);
  // On 127.0.0.1 alone (npm start) the loopback names are all anyone can reach: nothing to warn about.
  const listensLocally = env.HOST !== undefined && (isLoopbackHostname(env.HOST) || env.HOST === "::1");
  if (env.isProduction && !env.PUBLIC_URL && !listensLocally) {
    log.warn(
      `[web] PUBLIC_URL is not set: only localhost names${env.ALLOWED_HOSTS.length ? " and ALLOWED_HOSTS" : ""} are served. ` +
        "Set PUBLIC_URL to the site's address (its admin host is served with it), or list more names in ALLOWED_HOSTS.",
    );
  }
  const trustsNoProxy = env.TRUST_PROXY === false || env.TRUST_PROXY === 0;
  if (env.PUBLIC_URL?.startsWith("https:") && trustsNoProxy) {
    log.warn(
      "[web] PUBLIC_URL is https but TRUST_PROXY is unset: requests reach this server as http, so forms posted from " +
        "https pages are refused as cross-origin. Set TRUST_PROXY to the proxy that terminates TLS (it sends X-Forwarded-Proto).",
    );
  }
}

/**
 * Throws a 404 unless every name the request gives for its host (Host, and any X-Forwarded-Host) is a
 * loopback name. For the pages that belong to this machine alone (the mail outbox, the sandbox's phone
 * prompt): a browser here, led by a page whose name rebinds to 127.0.0.1, sends that name, and must not
 * reach them even where the name is served (ALLOWED_HOSTS) and the connection is loopback.
 */
export function requireLoopbackHost(request: Request): void {
  if (!isLoopbackHost(request)) throw new Response("Not Found", { status: 404 });
}

/** Whether every name the request gives for its host is a loopback name (see requireLoopbackHost). */
export function isLoopbackHost(request: Request): boolean {
  const names = hostnamesOf(request.headers.get("host") ?? undefined, request.headers.get("x-forwarded-host") ?? undefined);
  return names.length > 0 && names.every((name) => name !== null && isLoopbackHostname(name));
}
