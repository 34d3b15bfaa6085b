/**
 * Numbers, dates and relative times in the reader's language (ADR 047), through Intl with each language's
 * Ugandan locale, one formatter per kind made at first use (making one costs about 65 µs, using it 1 µs).
 *
 * English keeps the forms the site always had (en-GB dates: "7 December 2026"; en-US grouping), the same in
 * Node and every browser. Where the runtime's ICU data lacks a language (a runtime without Luganda or Swahili
 * data, or CLDR's Luganda, which has no relative-time words), `supported` falls back: dates and numbers to
 * English's forms, relative times to the catalogue's own words (common.time.*).
 */
import { DEFAULT_LOCALE, INTL_LOCALES, type Locale } from "~/i18n/locales";

const FORMATTING_LOCALE: Record<Locale, string> = { en: "en-GB", lg: INTL_LOCALES.lg, sw: INTL_LOCALES.sw };

/** The Intl locale to format with: the language's own, or English's when this runtime has no data for it. */
export function formattingLocale(locale: Locale, supportedOf?: (tags: string[]) => string[]): string {
  // The runtime's own answer never changes: asked once per language (it costs tens of microseconds).
  if (!supportedOf) return (formatting[locale] ??= formattingLocale(locale, (tags) => Intl.DateTimeFormat.supportedLocalesOf(tags)));
  const wanted = FORMATTING_LOCALE[locale] ?? FORMATTING_LOCALE[DEFAULT_LOCALE];
  return supportedOf([wanted]).length ? wanted : FORMATTING_LOCALE[DEFAULT_LOCALE];
}

const formatting: Partial<Record<Locale, string>> = {};

/**
 * Intl's relative-time words for a language, or null where CLDR has none: Luganda's "ago" comes out of ICU as
 * root data ("-2 h"), so the catalogue says it instead.
 */
export function relativeTimeFormat(locale: Locale): Intl.RelativeTimeFormat | null {
  if (locale === "lg") return null;
  const tag = formattingLocale(locale);
  let f = relative.get(tag);
  if (f === undefined) {
    f = new Intl.RelativeTimeFormat(tag, { numeric: "auto" });
    // A runtime whose data falls back to root writes a bare "-2 h": no words, so none are used.
    if (!/\p{L}{2,}/u.test(f.format(-2, "hour"))) f = null;
    relative.set(tag, f);
  }
  return f;
}

const relative = new Map<string, Intl.RelativeTimeFormat | null>();

type Formatter = Intl.DateTimeFormat | Intl.NumberFormat;
const cache = new Map<string, Formatter>();
/** The formatters already found for an options object, by language tag: a page asks hundreds of times with a few constant objects. */
const byOptions = new WeakMap<object, Map<string, Formatter>>();

/** The formatter of `kind` for these options, made once per language tag and options (compared by value). */
function formatter<F extends Formatter>(kind: "num" | "dt", tag: string, options: object, make: () => F): F {
  let held = byOptions.get(options);
  if (!held) byOptions.set(options, (held = new Map()));
  let f = held.get(tag) as F | undefined;
  if (!f) {
    // Options written inline are a new object each call: they are matched by value.
    const key = `${kind} ${tag} ${JSON.stringify(options)}`;
    f = cache.get(key) as F | undefined;
    if (!f) cache.set(key, (f = make()));
    held.set(tag, f);
  }
  return f;
}

const NO_OPTIONS: Intl.NumberFormatOptions = {};

/** A cached Intl.NumberFormat for the language. English groups as en-US (the site's UGX amounts always did). */
export function numberFormat(locale: Locale, options: Intl.NumberFormatOptions = NO_OPTIONS): Intl.NumberFormat {
  const tag = locale === "en" ? "en-US" : formattingLocale(locale);
  return formatter("num", tag, options, () => new Intl.NumberFormat(tag, options));
}

/** A cached Intl.DateTimeFormat for the language and options (the time zone among them). */
export function dateTimeFormat(locale: Locale, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const tag = formattingLocale(locale);
  return formatter("dt", tag, options, () => new Intl.DateTimeFormat(tag, options));
}

/** `1234567` → "1,234,567" in the reader's language. */
export const formatNumber = (n: number, locale: Locale = DEFAULT_LOCALE, options?: Intl.NumberFormatOptions) => numberFormat(locale, options).format(n);
