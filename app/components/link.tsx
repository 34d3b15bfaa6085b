/**
 * Remix's <Link>, rendered on the server as the anchor it becomes when its target is a plain absolute path
 * (issue 14 item 1, ADR 024).
 *
 * On the server a Link only renders `<a href data-discover>`, but Remix's and react-router's Links get there
 * through four path resolutions and a dozen hooks: ~10 µs a link on this machine, and a page has 20 (`/terms`) to
 * 45 (`/browse`) of them, 8–9% of a rendered page. For a `to` that is an absolute path (and props a Link does not
 * turn into something else), the href is `to` itself, so the server writes the anchor directly. In the browser it
 * is always Remix's Link: the same markup to hydrate, and the same client-side navigation, prefetching and route
 * discovery. `link.test.tsx` renders both for every kind of `to` the app uses and compares the markup.
 */
import { Link as RemixLink, type LinkProps } from "@remix-run/react";
import { forwardRef } from "react";

export type { LinkProps };

/** An absolute path, a query and a fragment (neither empty: react-router drops a lone `?` or `#`), no whitespace. */
const ABSOLUTE_PATH = /^(\/[^?#\s]*)(?:\?[^#\s]+)?(?:#\S+)?$/;

/**
 * Whether react-router would write `to` as its href unchanged: an absolute path it does not normalise (no empty
 * segment, which it folds, and no `.` or `..` segment, which it resolves).
 */
export function isPlainPath(to: string): boolean {
  const path = ABSOLUTE_PATH.exec(to)?.[1];
  return path !== undefined && !path.includes("//") && !path.split("/").some((segment) => segment === "." || segment === "..");
}

/** Props a Link reads and does not render, all with their default (or no effect on the server's markup). */
function rendersAsAnchor({ to, prefetch, reloadDocument, relative, discover }: LinkProps): boolean {
  return typeof to === "string" && isPlainPath(to) && (prefetch === undefined || prefetch === "none") && !reloadDocument && relative === undefined && discover === undefined;
}

const onServer = typeof document === "undefined";

export const Link = forwardRef<HTMLAnchorElement, LinkProps>(function Link(props, ref) {
  if (onServer && rendersAsAnchor(props)) {
    // What Remix's Link renders there: its own props and the router's (replace, state, preventScrollReset,
    // viewTransition, onClick) stay out of the markup; data-discover="true" asks for the route's discovery.
    const { to, prefetch, reloadDocument, relative, discover, replace, state, preventScrollReset, viewTransition, onClick, target, ...rest } = props;
    return <a {...rest} data-discover="true" href={to as string} ref={ref} target={target} />;
  }
  return <RemixLink {...props} ref={ref} />;
});
Link.displayName = "Link";
