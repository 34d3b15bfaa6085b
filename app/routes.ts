import { index, route, type RouteConfig } from "@remix-run/route-config";
import { flatRoutes } from "@remix-run/fs-routes";
import { ADMIN_SCREENS, adminScreenRouteId } from "./utils/site-routes";

/**
 * Every page: the main site's files in app/routes/ (flat routes), and each admin screen of app/admin/ at
 * two addresses, `/admin/<path>` for the main host and `/<path>` for the admin host, under distinct ids.
 * Which host serves which of these is decided once, in app/utils/site-routes.ts (ADR 013): `/` and
 * `/messages` are a main-site page on one host and an admin screen on the other.
 */
const adminScreens = ADMIN_SCREENS.flatMap(({ name, path }) => {
  const file = `admin/${name}.tsx`;
  return [
    route(path ? `admin/${path}` : "admin", file, { id: adminScreenRouteId("main", name) }),
    path ? route(path, file, { id: adminScreenRouteId("admin", name) }) : index(file, { id: adminScreenRouteId("admin", name) }),
  ];
});

export default [...(await flatRoutes()), ...adminScreens] satisfies RouteConfig;
