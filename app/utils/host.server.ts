import type { ServerBuild } from "@remix-run/node";
import { getEnv } from "./env.server";
import { siteServesRoute, type SiteHost } from "./site-routes";

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

/**
 * Whether a request's Origin (or Referer) names the host it was sent to. No source at all (an API client,
 * curl, an old browser's same-origin GET) passes; one that is not a URL, or names another host, does not.
 */
export function isSameOrigin(source: string | undefined, host: string | undefined): boolean {
  if (!source) return true;
  try {
    return host !== undefined && new URL(source).host === host;
  } catch {
    return false;
  }
}

/** Host names that can only be this machine: a link to them can never lead anyone to a stranger's site. */
function isLoopback(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || h === "127.0.0.1" || h === "[::1]";
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
  const env = getEnv();
  if (env.PUBLIC_URL) return env.PUBLIC_URL.replace(/\/$/, "");
  if (isLoopback(new URL(request.url).hostname)) return getMainSiteUrl(request);
  if (!warnedAboutMailOrigin) {
    warnedAboutMailOrigin = true;
    console.warn(
      `[mail] PUBLIC_URL is not set, so links in mail point at http://localhost:${env.PORT} instead of the request's host ` +
        `(${new URL(request.url).host}), which the sender controls. Set PUBLIC_URL to the site's public address.`,
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
