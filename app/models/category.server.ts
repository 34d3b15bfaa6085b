import { visibleGigs } from "~/models/gig.server";
import type { Db } from "~/server/db.server";

/**
 * The marketplace's categories: reference data a migration creates and admins manage (ADR 026). A hidden
 * category is left out of everything a buyer browses and of the gig form's choices; its gigs keep it.
 */
export type Category = {
  id: number;
  slug: string;
  name: string;
  description: string;
  gigCount: number;
};

/** The categories buyers can browse, in display order, each with its number of gigs that buyers can see. */
export async function listCategories(db: Db): Promise<Category[]> {
  // Counts what a buyer can find in /browse?category=…: the catalog's own rule of what is visible.
  const visible = visibleGigs(db).select("g.id", "g.category_id").as("g");
  const rows = await db("categories as c")
    .leftJoin(visible, "g.category_id", "c.id")
    .where("c.hidden", false)
    .groupBy("c.id")
    .orderBy([{ column: "c.position" }, { column: "c.id" }])
    .select("c.id", "c.slug", "c.name", "c.description", db.raw("count(g.id)::int as gig_count"));
  return rows.map((r) => ({
    id: r.id,
    slug: r.slug,
    name: r.name,
    description: r.description,
    gigCount: r.gig_count,
  }));
}

/**
 * The categories as choices for a select or a form (no counts: cheap enough for every catalog page): the
 * browsable ones, and `include` (a gig's current category) even when hidden, so its edit form keeps it.
 */
export async function listCategoryOptions(db: Db, { include }: { include?: string } = {}): Promise<{ slug: string; name: string }[]> {
  const query = db("categories")
    .orderBy([{ column: "position" }, { column: "id" }])
    .select("slug", "name");
  if (include) query.where((q) => q.where("hidden", false).orWhere("slug", include));
  else query.where("hidden", false);
  return query;
}

/** A category's own words in Luganda and Swahili (the `translations` column): a language without an entry shows the English. */
export type CategoryTranslations = Partial<Record<"lg" | "sw", { name: string; description?: string }>>;

export type AdminCategory = Category & { hidden: boolean; position: number; translations: CategoryTranslations };

/** Every category for the admin screen, hidden ones too, each with its number of gigs of any status. */
export async function listCategoriesForAdmin(db: Db): Promise<AdminCategory[]> {
  const rows = await db("categories as c")
    .leftJoin("gigs as g", "g.category_id", "c.id")
    .groupBy("c.id")
    .orderBy([{ column: "c.position" }, { column: "c.id" }])
    .select("c.id", "c.slug", "c.name", "c.description", "c.hidden", "c.position", "c.translations", db.raw("count(g.id)::int as gig_count"));
  return rows.map((r) => ({
    id: r.id,
    slug: r.slug,
    name: r.name,
    description: r.description,
    hidden: r.hidden,
    position: r.position,
    translations: r.translations ?? {},
    gigCount: r.gig_count,
  }));
}

/** A slug made from a category's name: "Graphics & Design" → "graphics-design" (empty if it has no letter or digit). */
export function slugOf(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 50)
    .replace(/-+$/, "");
}

/** A category's words in one language: its name, and its description where it has one there. */
export type CategoryWords = Record<string, { name: string; description?: string }>;

/**
 * The categories' names and descriptions in a language other than English (ADR 047), by slug: what the
 * `translations` column holds for it. A category without an entry there keeps its English.
 */
export async function categoryTranslations(db: Db, locale: "lg" | "sw"): Promise<CategoryWords> {
  const rows: { slug: string; words: { name?: unknown; description?: unknown } | null }[] = await db("categories").select(
    "slug",
    db.raw("translations -> ? AS words", [locale]),
  );
  const out: CategoryWords = {};
  for (const { slug, words } of rows) {
    if (!words || typeof words.name !== "string" || !words.name) continue;
    out[slug] = { name: words.name, ...(typeof words.description === "string" && words.description ? { description: words.description } : {}) };
  }
  return out;
}
