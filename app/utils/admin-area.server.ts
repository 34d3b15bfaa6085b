import { requireAdmin } from "~/utils/auth.server";
import { requireSiteHost, type SiteHost } from "~/utils/host.server";

/** The loader of an admin screen on one host: 404 on the other host, then the admin rule. */
export async function adminScreenLoader(request: Request, host: SiteHost) {
  requireSiteHost(request, host);
  const admin = await requireAdmin(request);
  return { adminName: admin.name };
}

/**
 * A POST to an admin screen: the same rule as its loader (so a POST learns no more than a GET), then 405,
 * since the screens have no forms yet. Without an action Remix would answer 405 before any rule ran.
 */
export async function adminScreenAction(request: Request, host: SiteHost): Promise<never> {
  await adminScreenLoader(request, host);
  throw notAllowed();
}

/** The answer to a POST where a page has nothing to submit. */
export function notAllowed() {
  return new Response("Method Not Allowed", { status: 405, headers: { Allow: "GET, HEAD" } });
}
