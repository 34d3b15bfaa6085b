import type { LoaderFunctionArgs } from "@remix-run/node";
import { sayIn } from "~/content/operation-messages";
import { requestLocale } from "~/i18n/locale.server";
import { headerCounts } from "~/models/notification.server";
import { getUser } from "~/server/auth.server";
import { getDb } from "~/server/db.server";

/**
 * The header's two counts as JSON, for the page's live header when a live event cannot say the new total
 * itself: when the socket connects (what happened between the page's render and then, or while it was
 * down, came without the page) and when a conversation was read (its event carries that conversation's
 * count, not the member's total). The same two counts as the root loader.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const headers = { "Cache-Control": "private, no-store" };
  const user = await getUser(request);
  if (!user) {
    const locale = await requestLocale(request);
    return Response.json({ error: sayIn(locale)("ops.notification.signInRequired") }, { status: 401, headers: { ...headers, "Content-Language": locale } });
  }
  return Response.json(await headerCounts(getDb(), user.id), { headers });
}
