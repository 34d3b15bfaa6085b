/**
 * The heart's form (ADR 052): save or unsave (`intent`) a gig or a seller (`kind`) by id, then come back to the
 * page it was on (`redirectTo`, without JavaScript). Shared by the /saved action and the JSON API's calls.
 */
import { z } from "zod";

export const SavedKindSchema = z.enum(["gig", "seller"]);

export const SaveFormSchema = z.object({
  intent: z.enum(["save", "unsave"]),
  kind: SavedKindSchema,
  id: z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 53),
  redirectTo: z.string().max(2000).optional(),
  inPlace: z.literal("1").optional(),
});
