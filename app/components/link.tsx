/**
 * The app's <Link> and <NavLink>: every route and component imports them from here. They are Remix's, except
 * that on the server, once the web process has installed its speed patches (app/server/speed/index.server.ts),
 * a link whose markup is a plain anchor is written by app/server/speed/server-anchors.server.ts instead. In the
 * browser they are always Remix's: the same markup to hydrate, the same navigation, prefetching and route
 * discovery.
 */
import { Link as RemixLink, NavLink as RemixNavLink, type LinkProps, type NavLinkProps } from "@remix-run/react";
import { forwardRef, type ForwardedRef, type ReactElement } from "react";

export type { LinkProps, NavLinkProps };

/** Writes a link's server markup itself, or returns null to leave it to Remix's component. */
export type ServerAnchors = {
  link(props: LinkProps, ref: ForwardedRef<HTMLAnchorElement>): ReactElement | null;
  navLink(props: NavLinkProps, ref: ForwardedRef<HTMLAnchorElement>): ReactElement | null;
};

declare global {
  /**
   * Set by installSpeedPatches in the web process (not when SPEED_PATCHES=off). A global, not a module's
   * export, because server.ts and the Remix build each bundle their own copy of the app's modules.
   */
  // eslint-disable-next-line no-var
  var __sokoServerAnchors: ServerAnchors | undefined;
}

/** The installed anchors: only ever on the server (Vite's constant leaves the lookup out of the browser's bundle). */
const serverAnchors = (): ServerAnchors | undefined => (import.meta.env.SSR ? globalThis.__sokoServerAnchors : undefined);

export const Link = forwardRef<HTMLAnchorElement, LinkProps>(function Link(props, ref) {
  return serverAnchors()?.link(props, ref) ?? <RemixLink {...props} ref={ref} />;
});
Link.displayName = "Link";

export const NavLink = forwardRef<HTMLAnchorElement, NavLinkProps>(function NavLink(props, ref) {
  return serverAnchors()?.navLink(props, ref) ?? <RemixNavLink {...props} ref={ref} />;
});
NavLink.displayName = "NavLink";
