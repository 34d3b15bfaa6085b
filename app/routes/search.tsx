import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { CatalogScreen } from "~/components/catalog";
import { loadCatalog } from "~/server/catalog.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data?.query.q ? `${data.query.q} | Search | Soko` : "Search | Soko" }];

export const loader = ({ request, context }: LoaderFunctionArgs) => loadCatalog(request, context.clientIp);
export { actionHeaders as headers } from "~/utils/headers";

export default function Search() {
  const data = useLoaderData<typeof loader>();
  const q = data.query.q;
  return <CatalogScreen action="/search" title={q ? `Results for “${q}”` : "Search services"} noun={["result", "results"]} data={data} />;
}
