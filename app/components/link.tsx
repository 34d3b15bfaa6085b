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
import { createElement, forwardRef } from "react";

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

/** Whether each `to` seen is a plain path: a page's links are mostly the same few (header, footer, cards). */
const plainPaths = new Map<string, boolean>();

/** Props a Link reads and does not render, all with their default (or no effect on the server's markup). */
function rendersAsAnchor({ to, prefetch, reloadDocument, relative, discover }: LinkProps): boolean {
  if (typeof to !== "string" || (prefetch !== undefined && prefetch !== "none") || reloadDocument || relative !== undefined || discover !== undefined) return false;
  let plain = plainPaths.get(to);
  if (plain === undefined) {
    if (plainPaths.size >= 1_000) plainPaths.clear();
    plain = isPlainPath(to);
    plainPaths.set(to, plain);
  }
  return plain;
}

/**
 * What Remix's Link leaves out of the anchor (its own props and the router's); `target` is written after the
 * href, as react-router writes it.
 */
const LINK_ONLY = new Set(["to", "prefetch", "reloadDocument", "relative", "discover", "replace", "state", "preventScrollReset", "viewTransition", "onClick", "target"]);

const onServer = typeof document === "undefined";

export const Link = forwardRef<HTMLAnchorElement, LinkProps>(function Link(props, ref) {
  if (onServer && rendersAsAnchor(props)) {
    // Copied key by key: an object rest of eleven names cost ~7 µs a link here, most of what the router's hooks cost.
    const anchor: Record<string, unknown> = {};
    for (const key in props) if (!LINK_ONLY.has(key)) anchor[key] = props[key as keyof LinkProps];
    // data-discover="true" asks the browser's router to discover the route, as Remix's Link does.
    anchor["data-discover"] = "true";
    anchor.href = props.to;
    anchor.ref = ref;
    anchor.target = props.target;
    return createElement("a", anchor);
  }
  return <RemixLink {...props} ref={ref} />;
});
Link.displayName = "Link";
