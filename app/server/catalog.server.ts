/** What /browse and /search load: the same catalog query, read from the URL. */
import { listCatalog } from "~/models/catalog-search.server";
import { listCategoryOptions } from "~/models/category.server";
import { getDb } from "~/server/db.server";
import { getUser } from "~/server/auth.server";
import { savedGigIdsAmong } from "~/models/saved.server";
import { parseCatalogQuery } from "~/schemas/gig";
import { addressKey, consumeCatalog } from "~/server/rate-limit.server";
import { limitedMessage } from "~/content/operation-messages";
import { requestLocale } from "~/i18n/locale.server";

/**
 * The catalog page for a request: limited per address first (LIMITS.catalog: a person never meets it, a
 * script hammering the search query does), answered with a 429 or 503 page carrying Retry-After.
 */
export async function loadCatalog(request: Request, clientIp: string) {
  const limited = await consumeCatalog(addressKey(clientIp));
  if (limited)
    throw new Response(limitedMessage(limited, await requestLocale(request)), {
      status: limited.status,
      headers: { "Retry-After": String(limited.retryAfter), "Content-Type": "text/plain; charset=utf-8" },
    });
  const db = getDb();
  const query = parseCatalogQuery(new URL(request.url).searchParams);
  const [page, categories, user] = await Promise.all([listCatalog(db, query), listCategoryOptions(db), getUser(request)]);
  // A member's hearts from their own rows (a visitor's page, which may be cached, has none: ADR 019, ADR 052).
  const savedGigIds = user
    ? await savedGigIdsAmong(
        db,
        user.id,
        page.gigs.map((g) => g.id),
      )
    : undefined;
  return { query, categories, ...page, ...(savedGigIds ? { savedGigIds } : {}) };
}
