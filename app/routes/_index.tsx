import type { LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { listCategories } from "~/models/category.server";
import { listFeaturedGigs } from "~/models/gig.server";
import { getDb } from "~/utils/db.server";
import { getSiteHost } from "~/utils/host.server";

export async function loader({ request }: LoaderFunctionArgs) {
  if (getSiteHost(request) === "admin") return { site: "admin" as const, categories: [], featured: [] };
  const db = getDb();
  const [categories, featured] = await Promise.all([listCategories(db), listFeaturedGigs(db)]);
  return { site: "main" as const, categories, featured };
}

export default function Index() {
  const data = useLoaderData<typeof loader>();
  return (
    <div className="container">
      <h1>Soko</h1>
      <ul>{data.categories.map((c) => <li key={c.id}>{c.name}</li>)}</ul>
      <ul>{data.featured.map((g) => <li key={g.id}>{g.title}</li>)}</ul>
    </div>
  );
}
