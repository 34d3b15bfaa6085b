/** What /browse and /search load: the same catalog query, read from the URL. */
import { listCategoryOptions } from "~/models/category.server";
import { listCatalog } from "~/models/gig.server";
import { getDb } from "~/utils/db.server";
import { parseCatalogQuery } from "~/utils/gig-schemas";
import { requireSiteHost } from "~/utils/host.server";

export async function loadCatalog(request: Request) {
  requireSiteHost(request, "main");
  const db = getDb();
  const query = parseCatalogQuery(new URL(request.url).searchParams);
  const [page, categories] = await Promise.all([listCatalog(db, query), listCategoryOptions(db)]);
  return { query, categories, ...page };
}
