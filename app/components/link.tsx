/**
 * Remix's <Link>, rendered on the server as the anchor it becomes when its target is a plain absolute path
 * (ADR 024: a rendered page's CPU).
 *
 * On the server a Link only renders `<a href data-discover>`, but Remix's and react-router's Links get there
 * through four path resolutions and a dozen hooks: ~10 µs a link on this machine, and a page has 20 (`/terms`) to
 * 45 (`/browse`) of them, 8–9% of a rendered page. For a `to` that is an absolute path (and props a Link does not
 * turn into something else), the href is `to` itself, so the server writes the anchor directly. In the browser it
 * is always Remix's Link: the same markup to hydrate, and the same client-side navigation, prefetching and route
 * discovery. `link.test.tsx` renders both for every kind of `to` the app uses and compares the markup.
 */
import { Link as RemixLink, NavLink as RemixNavLink, useLocation, type LinkProps, type NavLinkProps } from "@remix-run/react";
import { createElement, forwardRef } from "react";

export type { LinkProps, NavLinkProps };

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

/**
 * Whether this is the server's build: Vite's constant, so the browser's bundle leaves the server-only anchors
 * out (0.65 KB gzipped of the shell chunk, which every page's first view loads).
 */
const onServer = import.meta.env.SSR;

/** Copies the props that reach the anchor (all but `omit`), key by key and in order. */
function anchorProps(props: object, omit: Set<string>): Record<string, unknown> {
  // Key by key: an object rest of eleven names cost ~7 µs a link here, most of what the router's hooks cost.
  const anchor: Record<string, unknown> = {};
  for (const key in props) if (!omit.has(key)) anchor[key] = props[key as keyof typeof props];
  return anchor;
}

export const Link = forwardRef<HTMLAnchorElement, LinkProps>(function Link(props, ref) {
  if (onServer && rendersAsAnchor(props)) {
    const anchor = anchorProps(props, LINK_ONLY);
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

/** A path of plain characters only: react-router writes it, and compares it with the location, as it is. */
const SIMPLE_PATH = /^\/[A-Za-z0-9\-._~/]*$/;

/** What NavLink reads itself, besides a Link's own props. */
const NAV_LINK_ONLY = new Set([...LINK_ONLY, "aria-current", "caseSensitive", "className", "end", "style", "children"]);

/** NavLink props whose server markup `NavLink` below writes itself (the rest go to Remix's NavLink). */
function navRendersAsAnchor(props: NavLinkProps): props is NavLinkProps & { to: string; className?: string } {
  const { to, className, style, children, viewTransition } = props;
  return (
    typeof to === "string" &&
    SIMPLE_PATH.test(to) &&
    (className === undefined || typeof className === "string") &&
    typeof style !== "function" &&
    typeof children !== "function" &&
    !viewTransition &&
    rendersAsAnchor(props as LinkProps)
  );
}

/**
 * Remix's <NavLink>, rendered on the server as the anchor it becomes, for a `to` that is a path of plain
 * characters (as Link above). NavLink goes through a Link and more hooks besides (~9 µs a link here, this one
 * 2.3), and a member's header has seven (an admin's eight). Active as react-router decides (react-router-dom's
 * NavLink, 6.30): the location's path is `to`, or starts with it followed by a slash (unless `end`), compared
 * without case unless `caseSensitive`; then `aria-current` (default "page") and the class "active". Nothing is
 * pending while the server renders. `link.test.tsx` compares the markup with Remix's NavLink.
 */
export const NavLink = forwardRef<HTMLAnchorElement, NavLinkProps>(function NavLink(props, ref) {
  if (onServer && navRendersAsAnchor(props)) return createElement(ServerNavLink, { link: props, innerRef: ref });
  return <RemixNavLink {...props} ref={ref} />;
});
NavLink.displayName = "NavLink";

/** The anchor of a NavLink that navRendersAsAnchor accepted (its props passed whole: no copy but the anchor's). */
function ServerNavLink({ link: props, innerRef }: { link: NavLinkProps & { to: string; className?: string }; innerRef: React.ForwardedRef<HTMLAnchorElement> }) {
  let location = useLocation().pathname;
  let to = props.to;
  if (!props.caseSensitive) {
    location = location.toLowerCase();
    to = to.toLowerCase();
  }
  const endSlash = to !== "/" && to.endsWith("/") ? to.length - 1 : to.length;
  const active = location === to || (!props.end && location.startsWith(to) && location.charAt(endSlash) === "/");
  const anchor = anchorProps(props, NAV_LINK_ONLY);
  anchor["data-discover"] = "true";
  anchor["aria-current"] = active ? (props["aria-current"] ?? "page") : undefined;
  anchor.className = props.className ? (active ? `${props.className} active` : props.className) : active ? "active" : "";
  anchor.style = props.style;
  anchor.href = props.to;
  anchor.ref = innerRef;
  anchor.target = props.target;
  return createElement("a", anchor, props.children as React.ReactNode);
}
