/**
 * Host names as a request names them (a Host header) and as configuration lists them (PUBLIC_URL,
 * ALLOWED_HOSTS): plain functions shared by the environment's checks and the server's host rules
 * (host.server.ts). No server code here.
 */

/**
 * The host name in a Host header (`localhost:3000`, `[::1]:4000`, `Soko.UG.`), as a browser's URL parser
 * reads it: lower case, IDN as punycode, IPv4 in dotted form, IPv6 in brackets, without a trailing dot.
 * Null for anything that is not a host and an optional port (a path, user info, spaces, a bad port).
 */
export function hostnameOf(host: string): string | null {
  if (host === "" || /[\s/\\?#@]/.test(host)) return null;
  try {
    const hostname = new URL(`http://${host}`).hostname.replace(/\.$/, "");
    return hostname === "" ? null : hostname;
  } catch {
    return null;
  }
}

/** A name configuration may list: letters, digits, `-` and `_` in dot-separated labels, or an IP address. */
const LISTABLE = /^(?:\[[0-9a-f:.]+\]|[a-z0-9_-]+(?:\.[a-z0-9_-]+)*)$/;

/**
 * A host name as configuration lists it (`soko.example`, `192.0.2.10`, `[2001:db8::1]`): normalized as
 * `hostnameOf` does, or null when it is not a bare name (a scheme, a port, a path, a wildcard).
 */
export function listedHostname(entry: string): string | null {
  if (/:\d*$/.test(entry)) return null;
  const hostname = hostnameOf(entry);
  return hostname !== null && LISTABLE.test(hostname) ? hostname : null;
}

/**
 * Host names that can only be this machine: localhost and its subdomains (admin.localhost), 127.0.0.1 and
 * [::1]. A browser resolves them itself, never through DNS, so no other site can rebind them, and a link to
 * them can never lead anyone to a stranger's site.
 */
export function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || h === "127.0.0.1" || h === "[::1]";
}
