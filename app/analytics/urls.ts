/**
 * What of an address analytics may keep (ADR 007, "Addresses"). A query string can carry a secret (a
 * password-reset link is `/reset-password?token=…`), and a fragment or another site's path can too, so
 * every URL and referrer is cleaned before it is recorded, by the same rule in the browser (the tracker
 * cleans before it queues, so its outbox in localStorage never holds a secret) and on the server (its own
 * page views, and whatever a tracker sends: never trust the browser).
 *
 * The rule: an address on this host keeps its path and only the query keys its page is known to take
 * (below); every other key, on every other page (the sign-in, join and reset pages above all), is dropped,
 * and so is the fragment. An address on another host keeps only its origin (scheme and host), so a
 * referrer says which site sent the visitor and nothing of what they read there. Anything that is not an
 * http(s) address becomes "".
 *
 * No server-only imports and no zod: the tracker bundles this module (tracker-size.test.ts).
 */

/** The query keys each page reads and that say nothing about the visitor; by path. */
const KEPT_QUERY: [RegExp, string[]][] = [
  // The catalog's filters (parseCatalogQuery in app/schemas/gig.ts); never its cursor.
  [/^\/(browse|search)$/, ["q", "category", "price", "rating", "delivery", "vetted", "sort"]],
  [/^\/help$/, ["q"]],
  [/^\/gig\/\d+\/order$/, ["package"]],
  [/^\/settings$/, ["tab"]],
];

/** A page's path without a query or fragment: `/reset-password?token=x` → `/reset-password`. */
export function cleanPath(path: string): string {
  return path.split(/[?#]/)[0]!;
}

/**
 * `raw` as analytics may keep it, for a page served to `host` (the Host header, or `location.host`): a
 * path (`/search?q=logo`) stays a path, an absolute address stays absolute.
 */
export function cleanUrl(raw: string, host: string): string {
  // A path of this site; "//x" and "/\x" name another host.
  const relative = /^\/(?![/\\])/.test(raw);
  let url: URL;
  try {
    url = relative ? new URL(raw, "http://h") : new URL(raw);
  } catch {
    return "";
  }
  if (!relative) {
    if (!/^https?:$/.test(url.protocol)) return "";
    if (url.host !== host.toLowerCase()) return url.origin;
  }
  const kept = KEPT_QUERY.find(([path]) => path.test(url.pathname));
  const query = new URLSearchParams();
  url.searchParams.forEach((value, key) => kept && kept[1].includes(key) && query.append(key, value));
  const search = `${query}`;
  return (relative ? "" : url.origin) + url.pathname + (search ? `?${search}` : "");
}
