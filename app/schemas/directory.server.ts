/**
 * The freelancer directory's filters, sort and cursor, from a query string: one schema for the /freelancers page's
 * GET form and the JSON API's GET /users/freelancers, so both take the same words (ADR 052). An empty field is no
 * filter. Server-only: the cursor is checked by the model's decoder.
 */
import { z } from "zod";
import { LEVELS } from "~/domain/catalog-vocabulary";
import { msg } from "~/i18n/message-key";
import { decodeDirectoryCursor, DIRECTORY_SORTS } from "~/models/freelancer-directory.server";

/** "" (an empty field of a GET form) is no value. */
const blank = (v: unknown) => (v === "" ? undefined : v);

export const DirectoryFilters = z.object({
  skill: z.preprocess(blank, z.string().trim().max(40).optional()).describe("One of their skills, whatever its case."),
  category: z.preprocess(blank, z.string().trim().max(60).optional()).describe("A category's slug or id: freelancers with a published gig in it."),
  location: z.preprocess(blank, z.string().trim().max(100).optional()).describe("Part of their location, whatever its case."),
  language: z.preprocess(blank, z.string().trim().max(40).optional()).describe("One of the languages they speak, whatever its case."),
  rating: z
    .preprocess(
      blank,
      z.coerce
        .number({ invalid_type_error: msg("api.field.numberFrom", { field: "rating", min: 0, max: 5 }) })
        .min(0)
        .max(5)
        .optional(),
    )
    .describe("The lowest rating."),
  level: z.preprocess(blank, z.enum(LEVELS).optional()).describe("Their level's code: new, level_1, level_2, top_rated."),
  vetted: z
    .preprocess((v) => (v === "" || v === undefined ? undefined : v === "1" || v === "true" || v === "on"), z.boolean().optional())
    .describe("`1` (or `true`): only freelancers an admin vetted."),
  sort: z
    .preprocess(blank, z.enum(DIRECTORY_SORTS).default("rating"))
    .describe("rating (best rated first), level (highest first) or active (most recently active first)."),
  cursor: z
    .string()
    .max(500)
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text === "") return null;
      const cursor = decodeDirectoryCursor(text);
      if (!cursor) ctx.addIssue({ code: z.ZodIssueCode.custom, message: "api.profile.cursor" });
      return cursor;
    })
    .describe("A page's `nextCursor`."),
});
