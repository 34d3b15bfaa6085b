/**
 * The page's words in React (ADR 047). The root loader sends the common catalogue and each page's loader its
 * own namespaces (`i18n` in its data, from `pageMessages`); `I18nScope` in the root puts them together in one
 * Lingui instance, on the server and in the browser alike, so both render the same words. Components read it
 * with `useT()` or `<T>`.
 */
import { setupI18n, type I18n, type Messages } from "@lingui/core";
import { LinguiContext, Trans } from "@lingui/react";
import { useMatches, useRouteLoaderData } from "@remix-run/react";
import { createContext, useContext, useRef, type ReactNode } from "react";
import { DEFAULT_LOCALE, INTL_LOCALES, isLocale, type Locale } from "~/i18n/locales";

/** What a loader adds to its data for its page's words: the compiled messages of its namespaces, as JSON text. */
export type PageMessages = { i18n: string };

/** Loader data's messages, parsed once per text (a page's few texts come back with every navigation). */
const unpacked = new Map<string, Messages>();
function unpack(text: string): Messages {
  let messages = unpacked.get(text);
  if (!messages) {
    messages = JSON.parse(text) as Messages;
    if (unpacked.size >= 32) unpacked.delete(unpacked.keys().next().value!);
    unpacked.set(text, messages);
  }
  return messages;
}

type Scope = { locale: Locale; parts: Messages[]; i18n: I18n };

/**
 * The language and common words of a page drawn without the root loader's data (an action threw before the
 * loaders ran, and its error page is drawn): the server's entry provides them, the document carries them in
 * a JSON script (`FALLBACK_ID`) for the browser.
 */
export type Fallback = { locale: Locale; i18n: Messages };
export const FallbackWords = createContext<Fallback | null>(null);
export const FALLBACK_ID = "soko-words";

/** In the browser: the fallback words the server wrote into the document, read once. */
let written: Fallback | null | undefined;
function writtenFallback(): Fallback | null {
  if (written === undefined) {
    const text = typeof document === "undefined" ? null : document.getElementById(FALLBACK_ID)?.textContent;
    try {
      written = text ? (JSON.parse(text) as Fallback) : null;
    } catch {
      written = null;
    }
  }
  return written;
}

/** The fallback words for a page without the root's data: the server's (context) or the document's. */
export function useFallbackWords(rootData: unknown): Fallback | null {
  const server = useContext(FallbackWords);
  if (rootData) return null;
  return server ?? writtenFallback();
}

/** An instance holding these messages in this language. */
export function i18nOf(locale: Locale, parts: readonly Messages[]): I18n {
  const messages: Messages = Object.assign({}, ...parts);
  return setupI18n({ locale, locales: INTL_LOCALES[locale], messages: { [locale]: messages } });
}

/** The messages every matched route's loader sent, in route order (a child's replace a parent's). */
export function matchedMessages(matches: readonly { data?: unknown }[]): Messages[] {
  return matches
    .map((m) => (m.data as Partial<PageMessages> | null | undefined)?.i18n)
    .filter((m): m is string => typeof m === "string" && m.length > 0)
    .map(unpack);
}

/** The root's language and the pages' messages, as one Lingui instance for everything below. */
export function I18nScope({ children }: { children: ReactNode }) {
  const root = useRouteLoaderData<{ locale?: string }>("root");
  const fallback = useFallbackWords(root);
  const locale: Locale = isLocale(root?.locale) ? root.locale : (fallback?.locale ?? DEFAULT_LOCALE);
  const matched = matchedMessages(useMatches());
  const parts = fallback ? [fallback.i18n, ...matched] : matched;
  const scope = useRef<Scope | null>(null);
  const last = scope.current;
  // A new instance only when the language or a page's messages changed (a navigation, a revalidation).
  if (!last || last.locale !== locale || last.parts.length !== parts.length || last.parts.some((p, i) => p !== parts[i])) {
    scope.current = { locale, parts, i18n: i18nOf(locale, parts) };
  }
  const { i18n } = scope.current!;
  return <LinguiContext.Provider value={{ i18n, _: i18n._.bind(i18n) }}>{children}</LinguiContext.Provider>;
}

const fallback = i18nOf(DEFAULT_LOCALE, []);

/**
 * The words of the page: `t("ns.key", { values })` returns the message in the reader's language, with ICU
 * plurals, numbers and dates. `locale` is the language (for formatting numbers and dates).
 */
export function useT(): { t: I18n["_"]; locale: Locale; i18n: I18n } {
  const context = useContext(LinguiContext);
  const i18n = context?.i18n ?? fallback;
  return { t: i18n._.bind(i18n), locale: (isLocale(i18n.locale) ? i18n.locale : DEFAULT_LOCALE) as Locale, i18n };
}

/**
 * A message with markup in it: `<T id="ns.key" values={{ n }} components={{ 0: <Link to="/x" /> }} />` for
 * "Read <0>the terms</0>". Translators keep the numbered tags; the markup stays in the code.
 */
export const T = Trans;

/**
 * Words for `meta` (which runs outside React): an instance from the matched routes' messages and the root's
 * language, as I18nScope makes for the page.
 */
export function metaI18n(matches: readonly { id: string; data?: unknown }[]): { _: I18n["_"]; locale: Locale } {
  const root = matches.find((m) => m.id === "root")?.data as { locale?: string } | undefined;
  const locale = isLocale(root?.locale) ? root.locale : DEFAULT_LOCALE;
  const i18n = i18nOf(locale, matchedMessages(matches));
  // Bound: callers take `_` out of the object (`const { _ } = metaI18n(matches)`).
  return { _: i18n._.bind(i18n), locale };
}
