import { useRouteLoaderData } from "@remix-run/react";
import type { loader as rootLoader } from "~/root";

/**
 * A category's name and description in the reader's language (ADR 047): the root loader's translations, else
 * the English the row holds. `categoryName("web-development", "Web Development")`.
 */
export function useCategoryWords() {
  const words = useRouteLoaderData<typeof rootLoader>("root")?.categoryWords ?? null;
  return {
    categoryName: (slug: string, name: string) => words?.[slug]?.name ?? name,
    categoryDescription: (slug: string, description: string) => words?.[slug]?.description ?? description,
  };
}
