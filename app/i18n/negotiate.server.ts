/** A visitor's language from their request's headers alone (ADR 047): no database, so the page cache keys by it. */
import Negotiator from "negotiator";
import { readCookie } from "~/server/cookies.server";
import { DEFAULT_LOCALE, isLocale, LANGUAGE_COOKIE, type Locale } from "~/i18n/locales";

/**
 * The language a browser asks for, by its `Accept-Language` in the order of its weights: a regional tag counts
 * as its language (`sw-KE`, `sw-TZ` → Swahili, `lg-UG` → Luganda, `en-GB` → English); others are passed over.
 */
export function negotiateLocale(acceptLanguage: string | null | undefined): Locale | null {
  if (!acceptLanguage) return null;
  // Bounded: a header of thousands of tags is not worth parsing whole.
  const header = acceptLanguage.slice(0, 512);
  // Browsers send a handful of headers, the same with every request: each is parsed once (in a bounded memo).
  let found = negotiated.get(header);
  if (found === undefined) {
    found = null;
    for (const tag of new Negotiator({ headers: { "accept-language": header } }).languages()) {
      const language = tag.toLowerCase().split("-")[0];
      if (isLocale(language)) {
        found = language;
        break;
      }
    }
    if (negotiated.size >= 1000) negotiated.clear();
    negotiated.set(header, found);
  }
  return found;
}

const negotiated = new Map<string, Locale | null>();

/** A visitor's language from the request's own headers alone: the switcher's cookie, else Accept-Language, else English. */
export function visitorLocale(cookieHeader: string | null | undefined, acceptLanguage: string | null | undefined): Locale {
  const chosen = readCookie(cookieHeader, LANGUAGE_COOKIE);
  if (isLocale(chosen)) return chosen;
  return negotiateLocale(acceptLanguage) ?? DEFAULT_LOCALE;
}
