import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { CatalogFilters, CatalogResults, resultCount } from "~/components/catalog";
import { loadCatalog } from "~/utils/catalog.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  const category = data?.categories.find((c) => c.slug === data.query.category);
  return [{ title: `${category ? category.name : "Browse Services"} | Soko` }];
};

export const loader = ({ request }: LoaderFunctionArgs) => loadCatalog(request);

export default function Browse() {
  const data = useLoaderData<typeof loader>();
  const category = data.categories.find((c) => c.slug === data.query.category);
  return (
    <section className="container catalog" aria-labelledby="browse-title">
      <h1 id="browse-title">{category ? category.name : "Browse Services"}</h1>
      <CatalogFilters action="/browse" query={data.query} categories={data.categories} />
      <p className="result-count" role="status">
        {resultCount(data.total, ["service", "services"])}
        {data.searchedFor ? <> · Showing results for “{data.searchedFor}”</> : null}
      </p>
      <CatalogResults
        action="/browse"
        query={data.query}
        page={data}
        empty={
          <div className="empty-state">
            <h2>No results found</h2>
            <p>
              Try fewer filters, or <Link to="/browse">see every service</Link>.
            </p>
          </div>
        }
      />
    </section>
  );
}
