/**
 * Links to plain absolute paths written as the anchors they become, on the server (ADR 024).
 *
 * Written against: @remix-run/react 2.17 (its Link and NavLink) over react-router-dom 6.30.
 * Replaces: on the server only, Remix's <Link> and <NavLink> (app/components/link.tsx asks this module first)
 *   for a `to` that react-router writes unchanged and props that do not change the markup. Their path
 *   resolutions and hooks end in `<a href data-discover>`; this writes that anchor, attributes in
 *   react-router's order, and decides NavLink's "active" as react-router-dom's NavLink does.
 * What it saves: see ADR 024.
 * Remove it when: Remix's (react-router's) server-side Link renders without resolving its path through the
 *   router's hooks, or the app renders links some other way; then delete this file and its installation in
 *   index.server.ts, and app/components/link.tsx is Remix's components as they are.
 * `server-anchors.server.test.tsx` compares the markup with Remix's for every kind of link the app has and for
 * generated paths and locations.
 */
import { useLocation, type LinkProps, type NavLinkProps } from "@remix-run/react";
import { createElement, type ForwardedRef, type ReactNode } from "react";
import type { ServerAnchors } from "~/components/link";

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
  if (typeof to !== "string" || (prefetch !== undefined && prefetch !== "none") || reloadDocument || relative !== undefined || discover !== undefined)
    return false;
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
const LINK_ONLY = new Set([
  "to",
  "prefetch",
  "reloadDocument",
  "relative",
  "discover",
  "replace",
  "state",
  "preventScrollReset",
  "viewTransition",
  "onClick",
  "target",
]);

/** Copies the props that reach the anchor (all but `omit`), key by key (an object rest is much slower) and in order. */
function anchorProps(props: object, omit: Set<string>): Record<string, unknown> {
  const anchor: Record<string, unknown> = {};
  for (const key in props) if (!omit.has(key)) anchor[key] = props[key as keyof typeof props];
  return anchor;
}

function link(props: LinkProps, ref: ForwardedRef<HTMLAnchorElement>) {
  if (!rendersAsAnchor(props)) return null;
  const anchor = anchorProps(props, LINK_ONLY);
  // data-discover="true" asks the browser's router to discover the route, as Remix's Link does.
  anchor["data-discover"] = "true";
  anchor.href = props.to;
  anchor.ref = ref;
  anchor.target = props.target;
  return createElement("a", anchor);
}

/** A path of plain characters only: react-router writes it, and compares it with the location, as it is. */
const SIMPLE_PATH = /^\/[A-Za-z0-9\-._~/]*$/;

/** What NavLink reads itself, besides a Link's own props. */
const NAV_LINK_ONLY = new Set([...LINK_ONLY, "aria-current", "caseSensitive", "className", "end", "style", "children"]);

/** NavLink props whose server markup is written here (the rest go to Remix's NavLink). */
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

function navLink(props: NavLinkProps, ref: ForwardedRef<HTMLAnchorElement>) {
  return navRendersAsAnchor(props) ? createElement(ServerNavLink, { link: props, innerRef: ref }) : null;
}

/**
 * The anchor of a NavLink that navRendersAsAnchor accepted (its props passed whole: no copy but the anchor's).
 * Active as react-router-dom 6.30's NavLink decides: the location's path is `to`, or starts with it followed
 * by a slash (unless `end`), compared without case unless `caseSensitive`; then `aria-current` (default
 * "page") and the class "active". Nothing is pending while the server renders.
 */
function ServerNavLink({ link: props, innerRef }: { link: NavLinkProps & { to: string; className?: string }; innerRef: ForwardedRef<HTMLAnchorElement> }) {
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
  return createElement("a", anchor, props.children as ReactNode);
}

export const serverAnchors: ServerAnchors = { link, navLink };

/** Makes app/components/link.tsx write plain anchors on the server; `false` puts Remix's components back. */
export function installServerAnchors(on = true): boolean {
  globalThis.__sokoServerAnchors = on ? serverAnchors : undefined;
  return on;
}
