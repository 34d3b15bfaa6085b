/**
 * The languages Soko speaks (ADR 047): English, Luganda and Swahili. Zod-free and tiny: the header, the
 * switcher, the server's negotiation and the settings form all read it.
 */
export const LOCALES = ["en", "lg", "sw"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "en";

export const isLocale = (value: unknown): value is Locale => value === "en" || value === "lg" || value === "sw";

/** The Intl locale each language formats numbers, dates and plurals with: Uganda's variant of each. */
export const INTL_LOCALES: Record<Locale, string> = { en: "en-UG", lg: "lg-UG", sw: "sw-UG" };

/** Each language's name in itself, as the switcher shows it (a reader looks for their own language's name). */
export const LANGUAGE_NAMES: Record<Locale, string> = { en: "English", lg: "Luganda", sw: "Kiswahili" };

/** All three are written left to right; `<html dir>` follows this all the same. */
export const LANGUAGE_DIRECTION: Record<Locale, "ltr" | "rtl"> = { en: "ltr", lg: "ltr", sw: "ltr" };

/** The visitor's choice of language, set by the switcher (a member's is also saved with their preferences). */
export const LANGUAGE_COOKIE = "soko_lang";
