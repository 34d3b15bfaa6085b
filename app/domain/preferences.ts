/**
 * The languages a member can choose (Settings › Preferences), without zod: the form lists them in the browser,
 * where the schema (app/schemas/account.ts, whose PreferencesSchema takes their codes) is loaded only once the
 * form is used. Not re-exported from the schema: the schema's chunk would then share this module with the page,
 * a script request of its own. Each is named in itself (a reader looks for their own language's name).
 */
import { LANGUAGE_NAMES } from "~/i18n/locales";

export const LANGUAGES = LANGUAGE_NAMES;
