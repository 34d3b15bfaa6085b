/**
 * The categories' words in the reader's language (ADR 047), for the root loader: nothing for English (the rows'
 * own), else the translations, read at most once every few seconds per language (a category renamed by an
 * admin shows within that time, as the page cache's pages do; in the process that saved it, at once:
 * the category operations forget what this process read).
 */
import { categoryTranslations, type CategoryWords } from "~/models/category.server";
import { getDb } from "~/server/db.server";
import type { Locale } from "~/i18n/locales";

const FRESH_MS = 5_000;
const cache = new Map<Locale, { at: number; words: Promise<CategoryWords> }>();

/** Forgets the words read so far: the next page reads them again (after an admin changed a category). */
export function forgetCategoryWords() {
  cache.clear();
}

export function categoryWords(locale: Locale): Promise<CategoryWords> | null {
  if (locale === "en") return null;
  const now = Date.now();
  const hit = cache.get(locale);
  if (hit && now - hit.at < FRESH_MS) return hit.words;
  const words = categoryTranslations(getDb(), locale);
  cache.set(locale, { at: now, words });
  // A failed read is not kept: the next page asks again.
  words.catch(() => cache.get(locale)?.words === words && cache.delete(locale));
  return words;
}

/**
 * A category's name and description in the reader's language, for answers that carry them (the JSON API):
 * the translation where there is one, else the row's own English. Read once per answer.
 */
export async function categoryWordsIn(locale: Locale) {
  const words = (await categoryWords(locale)) ?? {};
  return <C extends { slug: string; name: string; description?: string }>(category: C): C => {
    const own = words[category.slug];
    if (!own) return category;
    return { ...category, name: own.name, ...(own.description !== undefined && category.description !== undefined ? { description: own.description } : {}) };
  };
}
