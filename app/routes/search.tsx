import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { CatalogScreen } from "~/components/catalog";
import { pageMessages } from "~/i18n/messages.server";
import { metaI18n, useT } from "~/i18n/react";
import { loadCatalog } from "~/server/catalog.server";

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: data?.query.q ? _("catalog.search.metaQuery", { query: data.query.q }) : _("catalog.search.metaTitle") }];
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  // The rate limit first (loadCatalog throws a 429 or 503), then the page's words.
  const catalog = await loadCatalog(request, context.clientIp);
  return { ...catalog, ...(await pageMessages(request, ["catalog"])) };
}
export { actionHeaders as headers } from "~/utils/headers";

export default function Search() {
  const data = useLoaderData<typeof loader>();
  const { t } = useT();
  const q = data.query.q;
  return <CatalogScreen action="/search" title={q ? t("catalog.search.resultsFor", { query: q }) : t("catalog.search.title")} noun="results" data={data} />;
}
