/**
 * The marketplace's categories, managed by admins (ADR 026): add, rename, reorder, hide or show, and delete
 * one no gig has ever used. Each is one transaction with its admin_audit_log row; every change drops the
 * cached anonymous pages (the landing page's cards and the catalog's category select show them), and the
 * categories' words this process keeps for Luganda and Swahili pages.
 */
import type { Knex } from "knex";
import { forgetCategoryWords } from "~/i18n/categories.server";
import { slugOf, type CategoryTranslations } from "~/models/category.server";
import { adminOf, conflict, forbidden, invalid, issue, notFound, ok, transact, type Actor, type Result, type Tx } from "~/operations/core.server";
import {
  CATEGORY_LANGUAGES,
  type AddCategoryInput,
  type CategoryVisibilityInput,
  type DeleteCategoryInput,
  type MoveCategoryInput,
  type RenameCategoryInput,
} from "~/schemas/category";

type Options = { db?: Knex };

type CategoryRow = { id: number; slug: string; name: string; description: string; hidden: boolean; position: number; translations: CategoryTranslations };

async function lockCategory(tx: Tx, id: number): Promise<CategoryRow | undefined> {
  return tx.trx("categories").where({ id }).forUpdate().first("id", "slug", "name", "description", "hidden", "position", "translations");
}

/** The form's Luganda and Swahili words as the column keeps them: a language whose name is empty has no entry (it shows the English). */
function translationsOf(input: AddCategoryInput | RenameCategoryInput): CategoryTranslations {
  const out: CategoryTranslations = {};
  for (const language of CATEGORY_LANGUAGES) {
    const name = input[language.name];
    const description = input[language.description];
    if (name) out[language.locale] = description ? { name, description } : { name };
  }
  return out;
}

/** Whether two translations say the same (jsonb keeps no key order). */
const sameTranslations = (a: CategoryTranslations, b: CategoryTranslations) =>
  CATEGORY_LANGUAGES.every(({ locale }) => a[locale]?.name === b[locale]?.name && (a[locale]?.description ?? "") === (b[locale]?.description ?? ""));

/** A change's result, once committed: this process's category words are read again (other processes' within seconds). */
function afterChange<T>(result: Result<T>): Result<T> {
  if (result.ok) forgetCategoryWords();
  return result;
}

/** Whether another category has this name, whatever its case (a unique index says the same). */
async function nameTaken(tx: Tx, name: string, exceptId?: number) {
  const query = tx.trx("categories").whereRaw("lower(name) = lower(?)", [name]);
  if (exceptId !== undefined) query.whereNot({ id: exceptId });
  return Boolean(await query.first("id"));
}

/**
 * Adds a category at the end of the order, shown. Its slug comes from its name and never changes after
 * (links and filters use it); a slug already taken (by a category renamed since) gets a number.
 */
export async function addCategory(actor: Actor, input: AddCategoryInput, { db }: Options = {}): Promise<Result<{ id: number; slug: string }>> {
  if (!adminOf(actor)) return forbidden("access.admins_only");
  const base = slugOf(input.name);
  if (!base) return invalid({ name: [issue("category.name_needs_letters")] });
  const translations = translationsOf(input);
  const result = await transact(
    actor,
    async (tx) => {
      // One add at a time, so two admins adding the same name meet the check rather than the unique index.
      await tx.trx.raw("LOCK TABLE categories IN SHARE ROW EXCLUSIVE MODE");
      if (await nameTaken(tx, input.name)) return invalid({ name: [issue("category.name_taken")] });
      const slugs = new Set(await tx.trx("categories").where("slug", "like", `${base}%`).pluck("slug"));
      let slug = base;
      for (let n = 2; slugs.has(slug); n++) slug = `${base}-${n}`;
      const last = await tx.trx("categories").max<{ max: number | null }>("position as max").first();
      const [row] = await tx
        .trx("categories")
        .insert({ slug, name: input.name, description: input.description, translations: JSON.stringify(translations), position: (last?.max ?? -1) + 1 })
        .returning("id");
      const id = Number(row.id);
      const details: Record<string, unknown> = { name: input.name, slug };
      if (Object.keys(translations).length) details.translations = translations;
      await tx.audit({ action: "category.add", targetType: "category", targetId: id, details });
      tx.pagesChanged();
      return ok({ id, slug });
    },
    { db },
  );
  return afterChange(result);
}

/** A category's new name and description, in English and in Luganda and Swahili; its slug stays, so links and gigs are unchanged. */
export async function renameCategory(actor: Actor, input: RenameCategoryInput, { db }: Options = {}): Promise<Result<{ id: number }>> {
  if (!adminOf(actor)) return forbidden("access.admins_only");
  const translations = translationsOf(input);
  const result = await transact(
    actor,
    async (tx) => {
      // As when adding: names are checked under the table's lock, so two admins choosing one name at once get
      // "taken" for the second, never the unique index's error.
      await tx.trx.raw("LOCK TABLE categories IN SHARE ROW EXCLUSIVE MODE");
      const before = await lockCategory(tx, input.categoryId);
      if (!before) return notFound("category.not_found");
      if (await nameTaken(tx, input.name, before.id)) return invalid({ name: [issue("category.name_taken")] });
      const translated = !sameTranslations(before.translations ?? {}, translations);
      if (before.name === input.name && before.description === input.description && !translated) return ok({ id: before.id });
      await tx
        .trx("categories")
        .where({ id: before.id })
        .update({ name: input.name, description: input.description, translations: JSON.stringify(translations) });
      const details: Record<string, unknown> = { slug: before.slug };
      if (before.name !== input.name) Object.assign(details, { from: before.name, to: input.name });
      if (before.description !== input.description) details.description = input.description;
      if (translated) details.translations = translations;
      await tx.audit({ action: "category.rename", targetType: "category", targetId: before.id, details });
      tx.pagesChanged();
      return ok({ id: before.id });
    },
    { db },
  );
  return afterChange(result);
}

/**
 * Moves a category one place up or down the display order (the first cannot go up nor the last down: nothing
 * changes). The whole order is numbered again 0, 1, 2…, so equal positions left by older data sort out too.
 */
export async function moveCategory(actor: Actor, input: MoveCategoryInput, { db }: Options = {}): Promise<Result<{ id: number; moved: boolean }>> {
  if (!adminOf(actor)) return forbidden("access.admins_only");
  return transact<{ id: number; moved: boolean }>(
    actor,
    async (tx) => {
      const rows: { id: number; name: string; position: number }[] = await tx
        .trx("categories")
        .orderBy([{ column: "position" }, { column: "id" }])
        .forUpdate()
        .select("id", "name", "position");
      const from = rows.findIndex((r) => r.id === input.categoryId);
      if (from === -1) return notFound("category.not_found");
      const to = input.direction === "up" ? from - 1 : from + 1;
      if (to < 0 || to >= rows.length) return ok({ id: input.categoryId, moved: false });
      const order = rows.slice();
      [order[from], order[to]] = [order[to]!, order[from]!];
      for (const [position, row] of order.entries()) {
        if (row.position !== position) await tx.trx("categories").where({ id: row.id }).update({ position });
      }
      await tx.audit({
        action: "category.move",
        targetType: "category",
        targetId: input.categoryId,
        details: { name: rows[from]!.name, direction: input.direction, from: from + 1, to: to + 1 },
      });
      tx.pagesChanged();
      return ok({ id: input.categoryId, moved: true });
    },
    { db },
  );
}

/** Hides a category from browsing and the gig form (its gigs keep it), or shows it again. */
export async function setCategoryHidden(actor: Actor, input: CategoryVisibilityInput, { db }: Options = {}): Promise<Result<{ id: number; hidden: boolean }>> {
  if (!adminOf(actor)) return forbidden("access.admins_only");
  const hidden = input.intent === "hide";
  return transact(
    actor,
    async (tx) => {
      const before = await lockCategory(tx, input.categoryId);
      if (!before) return notFound("category.not_found");
      if (before.hidden === hidden) return ok({ id: before.id, hidden });
      await tx.trx("categories").where({ id: before.id }).update({ hidden });
      await tx.audit({
        action: hidden ? "category.hide" : "category.show",
        targetType: "category",
        targetId: before.id,
        details: { name: before.name, slug: before.slug },
      });
      tx.pagesChanged();
      return ok({ id: before.id, hidden });
    },
    { db },
  );
}

/** Deletes a category no gig uses, draft or not; one with gigs is refused (hide it instead). */
export async function deleteCategory(actor: Actor, input: DeleteCategoryInput, { db }: Options = {}): Promise<Result<{ id: number; name: string }>> {
  if (!adminOf(actor)) return forbidden("access.admins_only");
  return transact(
    actor,
    async (tx) => {
      const before = await lockCategory(tx, input.categoryId);
      if (!before) return notFound("category.not_found");
      // The row lock holds off a gig being saved into it meanwhile (its foreign key check waits for the lock).
      if (await tx.trx("gigs").where({ category_id: before.id }).first("id")) return conflict("category.has_gigs");
      await tx.trx("categories").where({ id: before.id }).delete();
      await tx.audit({ action: "category.delete", targetType: "category", targetId: before.id, details: { name: before.name, slug: before.slug } });
      tx.pagesChanged();
      return ok({ id: before.id, name: before.name });
    },
    { db },
  );
}
