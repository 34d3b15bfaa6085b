import { getEnv } from "./env.server";

export type SiteHost = "main" | "admin";

/** Which site a request is for: a host name starting with ADMIN_HOST_PREFIX is the admin portal. */
export function getSiteHost(request: Request): SiteHost {
  const hostname = new URL(request.url).hostname.toLowerCase();
  return hostname.startsWith(getEnv().ADMIN_HOST_PREFIX.toLowerCase()) ? "admin" : "main";
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

/** The admin portal's origin, derived the same way. */
export function getAdminSiteUrl(request: Request): string {
  const url = new URL(getMainSiteUrl(request));
  url.hostname = `${getEnv().ADMIN_HOST_PREFIX}${url.hostname}`;
  return url.origin;
}

/** Pages that exist only on the main site answer 404 on the admin host, and the reverse. */
export function requireSiteHost(request: Request, host: SiteHost) {
  if (getSiteHost(request) !== host) throw new Response("Not Found", { status: 404 });
}
