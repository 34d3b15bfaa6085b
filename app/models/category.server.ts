import type { Db } from "~/utils/db.server";

export type Category = {
  id: number;
  slug: string;
  name: string;
  description: string;
  gigCount: number;
};

/** The six categories (spec §9) in display order, each with its number of published gigs. */
export async function listCategories(db: Db): Promise<Category[]> {
  const rows = await db("categories as c")
    .leftJoin("gigs as g", function () {
      this.on("g.category_id", "c.id").andOnVal("g.status", "published");
    })
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
