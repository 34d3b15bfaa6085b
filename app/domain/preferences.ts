/**
 * The languages a member can choose (Settings › Preferences), without zod: the form lists them in the browser,
 * where the schema (app/schemas/account.ts) is loaded only once the form is used.
 */
export const LANGUAGES = { en: "English", lg: "Luganda", sw: "Swahili" } as const;
