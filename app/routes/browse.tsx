import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { CatalogScreen } from "~/components/catalog";
import { loadCatalog } from "~/server/catalog.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  const category = data?.categories.find((c) => c.slug === data.query.category);
  return [{ title: `${category ? category.name : "Browse Services"} | Soko` }];
};

export const loader = ({ request, context }: LoaderFunctionArgs) => loadCatalog(request, context.clientIp);
export { actionHeaders as headers } from "~/utils/headers";

export default function Browse() {
  const data = useLoaderData<typeof loader>();
  const category = data.categories.find((c) => c.slug === data.query.category);
  return <CatalogScreen action="/browse" title={category ? category.name : "Browse Services"} noun={["service", "services"]} data={data} />;
}
