import { requireAdmin } from "~/utils/auth.server";
import { requireSiteHost, type SiteHost } from "~/utils/host.server";

/** The loader of an admin screen on one host: 404 on the other host, then the admin rule. */
export async function adminScreenLoader(request: Request, host: SiteHost) {
  requireSiteHost(request, host);
  const admin = await requireAdmin(request);
  return { adminName: admin.name };
}
