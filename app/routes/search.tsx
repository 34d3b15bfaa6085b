import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { CatalogFilters, CatalogResults, resultCount } from "~/components/catalog";
import { loadCatalog } from "~/utils/catalog.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data?.query.q ? `${data.query.q} | Search | Soko` : "Search | Soko" }];

export const loader = ({ request }: LoaderFunctionArgs) => loadCatalog(request);

export default function Search() {
  const data = useLoaderData<typeof loader>();
  const q = data.query.q;
  return (
    <section className="container catalog" aria-labelledby="search-title">
      <h1 id="search-title">{q ? `Results for “${q}”` : "Search services"}</h1>
      <CatalogFilters action="/search" query={data.query} categories={data.categories} />
      <p className="result-count" role="status">
        {resultCount(data.total, ["result", "results"])}
        {data.searchedFor ? (
          <>
            {" "}
            · Showing results for “{data.searchedFor}”
          </>
        ) : null}
      </p>
      <CatalogResults
        action="/search"
        query={data.query}
        page={data}
        empty={
          <div className="empty-state">
            <h2>No results found</h2>
            <p>
              Check the spelling, use fewer words, or <Link to="/browse">browse every category</Link>.
            </p>
          </div>
        }
      />
    </section>
  );
}
