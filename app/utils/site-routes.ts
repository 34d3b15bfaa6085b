/**
 * Which host serves which page: the one place the marketplace (the main host) and the admin portal (a host
 * name starting with ADMIN_HOST_PREFIX) are told apart for routing (ADR 013). app/routes.ts builds the
 * route config from it; server.ts gives each host a Remix handler that knows only that host's routes, so a
 * path the host does not serve meets the 404 page, for a document, a data request (`/x.data`) and the
 * browser's route discovery (`/__manifest`) alike. No route checks its host.
 *
 * Plain data and functions, no server code: routes.ts (at build time), server.ts and the tests read it.
 */

export type SiteHost = "main" | "admin";
export const SITE_HOSTS: readonly SiteHost[] = ["main", "admin"];

/**
 * The admin portal's screens, each one module `app/admin/<name>.tsx` (outside app/routes/, so not
 * routed by file name) served twice: at `/<path>` on the admin host and at `/admin/<path>` on the main host.
 * Links between them are relative (`to="users"`), so each lands on its own host's address.
 */
export const ADMIN_SCREENS = [
  { name: "dashboard", path: "" },
  { name: "users", path: "users" },
  { name: "messages", path: "messages" },
  { name: "analytics", path: "analytics" },
  { name: "analytics-export", path: "analytics/export" },
  { name: "disputes", path: "disputes" },
  { name: "audit", path: "audit" },
  { name: "pipeline", path: "pipeline" },
  { name: "rates", path: "rates" },
  { name: "categories", path: "categories" },
  { name: "heatmap", path: "heatmap" },
  { name: "funnel", path: "analytics/conversion-funnel" },
  { name: "journey", path: "analytics/user-journey/:id?" },
  { name: "member-analytics", path: "users/:id/analytics" },
  { name: "reviews", path: "reviews" },
] as const;

/**
 * Route files of app/routes/ (the main site) that the admin host serves too, by route id: sign-in and
 * sign-out (each words itself for its host), the privacy choice the consent banner asks for on every page
 * of both hosts (and the policy it links to), the language switch (the admin portal's header has it too),
 * uploaded images (the admin screens show members' pictures), and the 404 page for every path a host does not
 * serve.
 */
export const SHARED_ROUTES: readonly string[] = [
  "routes/login",
  "routes/logout",
  "routes/consent",
  "routes/privacy",
  "routes/language",
  "routes/media.$name",
  "routes/$",
];

/** The route id of an admin screen on a host: `admin/users` (main host, /admin/users), `admin-host/users` (admin host, /users). */
export function adminScreenRouteId(host: SiteHost, name: string): string {
  return `${host === "admin" ? "admin-host" : "admin"}/${name}`;
}

/**
 * The hosts that serve a route, by its id: the root and the shared routes on both; the admin screens'
 * admin-host routes on the admin host only; everything else (every other file in app/routes/, and the
 * admin screens under /admin) on the main host only.
 */
export function hostsOfRoute(routeId: string): SiteHost[] {
  if (routeId === "root" || SHARED_ROUTES.includes(routeId)) return ["main", "admin"];
  if (routeId.startsWith(`${adminScreenRouteId("admin", "")}`)) return ["admin"];
  return ["main"];
}

/** Whether a host serves a route (see hostsOfRoute). */
export function siteServesRoute(host: SiteHost, routeId: string): boolean {
  return hostsOfRoute(routeId).includes(host);
}
