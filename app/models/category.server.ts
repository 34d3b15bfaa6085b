import { visibleGigs } from "~/models/gig.server";
import type { Db } from "~/utils/db.server";

export type Category = {
  id: number;
  slug: string;
  name: string;
  description: string;
  gigCount: number;
};

/** The six categories (spec §9) in display order, each with its number of gigs that buyers can see. */
export async function listCategories(db: Db): Promise<Category[]> {
  // Counts what a buyer can find in /browse?category=…: the catalog's own rule of what is visible.
  const visible = visibleGigs(db).select("g.id", "g.category_id").as("g");
  const rows = await db("categories as c")
    .leftJoin(visible, "g.category_id", "c.id")
    .groupBy("c.id")
    .orderBy("c.position")
    .select("c.id", "c.slug", "c.name", "c.description", db.raw("count(g.id)::int as gig_count"));
  return rows.map((r) => ({
    id: r.id,
    slug: r.slug,
    name: r.name,
    description: r.description,
    gigCount: r.gig_count,
  }));
}

/** The categories as choices for a select or a form (no counts: cheap enough for every catalog page). */
export async function listCategoryOptions(db: Db): Promise<{ slug: string; name: string }[]> {
  return db("categories").orderBy("position").select("slug", "name");
}
