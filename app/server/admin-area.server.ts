import { requireAdmin } from "~/server/auth.server";
import { plainWords } from "~/server/plain-words.server";

/**
 * The loader of an admin screen, on either host (which paths a host serves is app/utils/site-routes.ts's
 * business): admins only. Members are sent home on the main host and see Access Denied on the admin host.
 */
export async function adminScreenLoader(request: Request) {
  const admin = await requireAdmin(request);
  return { adminName: admin.name };
}

/**
 * A POST to an admin screen: the same rule as its loader (so a POST learns no more than a GET), then 405,
 * since the screens have no forms yet. Without an action Remix would answer 405 before any rule ran.
 */
export async function adminScreenAction(request: Request): Promise<never> {
  await adminScreenLoader(request);
  throw await notAllowed(request);
}

/**
 * The answer to a POST where a page has nothing to submit: a browser shows the error page (in the reader's
 * language); anything else reads this text, in the request's language too.
 */
export function notAllowed(request: Request) {
  return plainWords(request, 405, "ops.page.readOnly", { headers: { Allow: "GET, HEAD" } });
}
