/**
 * The languages a member can choose (Settings › Preferences), without zod: the form lists them in the browser,
 * where the schema (app/schemas/account.ts, whose PreferencesSchema takes their codes) is loaded only once the
 * form is used. Not re-exported from the schema: the schema's chunk would then share this module with the page,
 * a script request of its own.
 */
export const LANGUAGES = { en: "English", lg: "Luganda", sw: "Swahili" } as const;
