/**
 * Categories (ADR 041, ADR 026): the categories buyers browse, each with its number of gigs a buyer can find,
 * in display order. A hidden category is shown to an admin's token only (with every gig of any status
 * counted, as the admin screen counts them); to anyone else it does not exist.
 */
import { z } from "zod";
import { categoryWordsIn } from "~/i18n/categories.server";
import type { Locale } from "~/i18n/locales";
import { listCategories, listCategoriesForAdmin } from "~/models/category.server";
import { invalid, notFound, ok, type Actor } from "~/operations/core.server";
import { getDb } from "~/server/db.server";
import { call } from "../route.server";
import { PageQuery, pageOf } from "../shapes";
import { IdOrSlug } from "./gigs-read.server";

const TAG = "Categories";

const CategorySchema = z.object({
  id: z.number().int(),
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  gigCount: z.number().int().describe("Gigs a buyer can find in it (for an admin: its gigs of any status)."),
  hidden: z.boolean().describe("Hidden from browsing and from the gig form; only an admin's token sees such a category."),
});
type CategoryAnswer = z.infer<typeof CategorySchema>;

/** The categories this actor may see, in display order, named in the reader's language. */
async function categoriesFor(actor: Actor, locale: Locale): Promise<CategoryAnswer[]> {
  const db = getDb();
  const [inWords, all] = await Promise.all([
    categoryWordsIn(locale),
    actor.kind === "member" && actor.user.role === "admin"
      ? listCategoriesForAdmin(db).then((rows) =>
          rows.map(({ id, slug, name, description, gigCount, hidden }) => ({ id, slug, name, description, gigCount, hidden })),
        )
      : listCategories(db).then((rows) => rows.map((c) => ({ ...c, hidden: false }))),
  ]);
  return all.map(inWords);
}

/** A page's cursor is how many categories came before it. */
const CategoryQuery = PageQuery.extend({
  cursor: z
    .string()
    .regex(/^\d{1,6}$/, "api.page.listCursor")
    .optional(),
});

export const categoryCalls = [
  call({
    method: "get",
    path: "/categories",
    operationId: "listCategories",
    summary: "The categories, in display order, with their gig counts",
    tag: TAG,
    access: "public",
    query: CategoryQuery,
    response: pageOf(CategorySchema),
    async handle({ actor, query, locale }) {
      const all = await categoriesFor(actor, locale);
      const from = Number(query.cursor ?? 0);
      if (from > all.length) return invalid({ "query.cursor": [{ code: "schema", message: "api.page.listCursor" }] });
      const items = all.slice(from, from + query.limit);
      return ok({ items, nextCursor: from + items.length < all.length ? String(from + items.length) : null });
    },
  }),
  call({
    method: "get",
    path: "/categories/{id}",
    operationId: "getCategory",
    summary: "A category by its number or slug",
    tag: TAG,
    access: "public",
    params: IdOrSlug,
    response: CategorySchema,
    failures: [404],
    async handle({ actor, params, locale }) {
      const byNumber = /^\d+$/.test(params.id);
      const found = (await categoriesFor(actor, locale)).find((c) => (byNumber ? c.id === Number(params.id) : c.slug === params.id));
      return found ? ok(found) : notFound();
    },
  }),
];
