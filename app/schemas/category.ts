/**
 * The admin Categories screen's forms (ADR 026), shared by the server (which decides) and the browser (which
 * only helps). Each form carries its `intent`: add, rename (name and description; the slug never changes),
 * move up or down, hide, show, delete. Adding and renaming also take the name and description in Luganda and
 * Swahili (`nameLg`, `descriptionLg`, `nameSw`, `descriptionSw`), each optional: a language without a name
 * shows the English.
 */
import { z } from "~/schemas/zod";
import { msg } from "~/i18n/message-key";
import { NAME_TAKEN, NAME_NEEDS_LETTERS } from "~/content/refusal-words";

export { NAME_TAKEN, NAME_NEEDS_LETTERS };

export const CATEGORY_NAME_MAX = 50;
export const CATEGORY_DESCRIPTION_MAX = 200;

/** The forms' messages, as catalogue keys of namespace `admin` (ErrorList says them in the reader's language). */
export const NAME_REQUIRED = "admin.categories.nameRequired";
export const NAME_TOO_LONG = msg("admin.categories.nameTooLong", { max: CATEGORY_NAME_MAX });
export const DESCRIPTION_TOO_LONG = msg("admin.categories.descriptionTooLong", { max: CATEGORY_DESCRIPTION_MAX });
const CHOOSE_CATEGORY = "admin.categories.chooseCategory";
export const TRANSLATION_NEEDS_NAME = "admin.categories.translationNeedsName";

const name = z.string({ required_error: NAME_REQUIRED }).trim().min(1, NAME_REQUIRED).max(CATEGORY_NAME_MAX, NAME_TOO_LONG);
const description = z.string().trim().max(CATEGORY_DESCRIPTION_MAX, DESCRIPTION_TOO_LONG).default("");
/** A name in another language: optional (empty is none), as long as the English one may be. */
const otherName = z.string().trim().max(CATEGORY_NAME_MAX, NAME_TOO_LONG).default("");
const translations = { nameLg: otherName, descriptionLg: description, nameSw: otherName, descriptionSw: description };

/** The languages a category is translated into, with each one's form fields. */
export const CATEGORY_LANGUAGES = [
  { locale: "lg", name: "nameLg", description: "descriptionLg" },
  { locale: "sw", name: "nameSw", description: "descriptionSw" },
] as const;

const categoryId = z.coerce
  .number({ invalid_type_error: CHOOSE_CATEGORY, required_error: CHOOSE_CATEGORY })
  .int(CHOOSE_CATEGORY)
  .positive(CHOOSE_CATEGORY)
  .max(2_147_483_647, CHOOSE_CATEGORY);

/** A new category: its name and description (the slug is made from the name, once). */
export const AddCategorySchema = z.object({ intent: z.literal("add"), name, description, ...translations });
export type AddCategoryInput = z.output<typeof AddCategorySchema>;

/** A category's new name and description. */
export const RenameCategorySchema = z.object({ intent: z.literal("rename"), categoryId, name, description, ...translations });
export type RenameCategoryInput = z.output<typeof RenameCategorySchema>;

/** One step up or down the display order. */
export const MoveCategorySchema = z.object({
  intent: z.literal("move"),
  categoryId,
  direction: z.enum(["up", "down"], { errorMap: () => ({ message: "admin.categories.chooseDirection" }) }),
});
export type MoveCategoryInput = z.output<typeof MoveCategorySchema>;

/** Hidden from browsing and the gig form, or shown again. */
export const CategoryVisibilitySchema = z.object({ intent: z.enum(["hide", "show"]), categoryId });
export type CategoryVisibilityInput = z.output<typeof CategoryVisibilitySchema>;

export const DeleteCategorySchema = z.object({ intent: z.literal("delete"), categoryId });
export type DeleteCategoryInput = z.output<typeof DeleteCategorySchema>;

/**
 * Every form of the screen: the action parses with this, each form validates with its own. A description in
 * Luganda or Swahili needs that language's name (the pages show a language's words only with its name); the
 * server checks it, beside the name's field.
 */
export const CategoryActionSchema = z
  .discriminatedUnion("intent", [AddCategorySchema, RenameCategorySchema, MoveCategorySchema, CategoryVisibilitySchema, DeleteCategorySchema])
  .superRefine((input, ctx) => {
    if (input.intent !== "add" && input.intent !== "rename") return;
    for (const language of CATEGORY_LANGUAGES) {
      if (input[language.description] && !input[language.name])
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: [language.name], message: TRANSLATION_NEEDS_NAME });
    }
  });
export type CategoryAction = z.output<typeof CategoryActionSchema>;
