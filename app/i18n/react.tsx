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
import { isWordsRef, registeredWords } from "~/i18n/words";

/** What a loader adds to its data for its page's words: the compiled messages of its namespaces, as JSON text. */
export type PageMessages = { i18n: string };

const NO_WORDS: Messages = {};

/**
 * A loader's `i18n` as messages: a reference's registered messages (app/i18n/words.ts), or inline JSON text,
 * parsed once per text (a page's few texts come back with every navigation).
 */
const unpacked = new Map<string, Messages>();
function unpack(text: string): Messages {
  if (isWordsRef(text)) return registeredWords(text) ?? NO_WORDS;
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

/**
 * i18nOf for a page's messages, kept for the last few lists of parts: the page's render and its `meta` ask for
 * the same one, and on the server so does every render of the same page (its parts are the catalogue's own
 * objects). Parts are compared by identity.
 */
const recent: { locale: Locale; parts: readonly Messages[]; i18n: I18n }[] = [];
function sharedI18nOf(locale: Locale, parts: readonly Messages[]): I18n {
  const found = recent.find((r) => r.locale === locale && r.parts.length === parts.length && r.parts.every((p, i) => p === parts[i]));
  if (found) return found.i18n;
  const i18n = i18nOf(locale, parts);
  recent.unshift({ locale, parts, i18n });
  if (recent.length > 64) recent.pop();
  return i18n;
}

/** What every matched route's loader sent as `i18n`, in route order. */
function matchedTexts(matches: readonly { data?: unknown }[]): string[] {
  return matches.map((m) => (m.data as Partial<PageMessages> | null | undefined)?.i18n).filter((m): m is string => typeof m === "string" && m.length > 0);
}

/** The messages every matched route's loader sent, in route order (a child's replace a parent's). */
export function matchedMessages(matches: readonly { data?: unknown }[]): Messages[] {
  return matchedTexts(matches).map(unpack);
}

/** The references among the matched routes' words: the files the document loads (root.tsx). */
export function matchedWordsRefs(matches: readonly { data?: unknown }[]): string[] {
  return matchedTexts(matches).filter(isWordsRef);
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
    scope.current = { locale, parts, i18n: sharedI18nOf(locale, parts) };
  }
  const { i18n } = scope.current!;
  return <LinguiContext.Provider value={{ i18n, _: sayOf(i18n) }}>{children}</LinguiContext.Provider>;
}

const fallback = i18nOf(DEFAULT_LOCALE, []);

/** Lingui's own decoding applies to a message with such an escape: those go the long way. */
const ESCAPE = /\\u[a-fA-F0-9]{4}|\\x[a-fA-F0-9]{2}/;

/**
 * An instance's `_`, with a short way for the messages a page says: words, plain `{name}` values, and a
 * top-level `{n, plural, ...}` or `{x, select, ...}` whose chosen case holds only words, `#` and plain values.
 * Lingui's own `_` makes a set of formatters for every call and formats every case of a plural before choosing
 * one; a page says a few hundred messages. Anything else (nested plurals, offsets, numbers, dates, a missing id)
 * is Lingui's. The catalogue test holds the short way to Lingui's answer for every message.
 */
const says = new WeakMap<I18n, I18n["_"]>();
export function sayOf(i18n: I18n): I18n["_"] {
  let say = says.get(i18n);
  if (!say) {
    const messages = i18n.messages as Record<string, unknown>;
    const long = i18n._.bind(i18n);
    let counting: Counting | undefined;
    // Lingui's locales for plurals and `#`: the instance's, then English.
    const count = () => (counting ??= countingFor([...[i18n.locales || i18n.locale].flat(), "en"]));
    say = ((id: unknown, values?: Record<string, unknown>, options?: unknown) => {
      if (typeof id !== "string" || options !== undefined) return long(id as string, values, options as never);
      const message = messages[id];
      if (!Array.isArray(message)) return long(id, values);
      let out = "";
      for (const token of message as unknown[]) {
        if (typeof token === "string") out += token;
        else if (!Array.isArray(token)) return long(id, values);
        else if (token.length === 1) {
          const value = values?.[token[0] as string];
          if (value != null) out += String(value);
        } else {
          const said = sayChoice(token, values, count);
          if (said === undefined) return long(id, values);
          out += said;
        }
      }
      return out.includes("\\") && ESCAPE.test(out) ? long(id, values) : out;
    }) as I18n["_"];
    says.set(i18n, say);
  }
  return say;
}

type Counting = { plural: Intl.PluralRules; number: Intl.NumberFormat };
const countings = new Map<string, Counting>();
function countingFor(locales: string[]): Counting {
  const key = locales.join(" ");
  let found = countings.get(key);
  if (!found) countings.set(key, (found = { plural: new Intl.PluralRules(locales, { type: "cardinal" }), number: new Intl.NumberFormat(locales) }));
  return found;
}

/**
 * A plural's or select's words as Lingui says them, or undefined for the long way: the case for the value
 * exactly (`=0`), else its plural category (or `other`); in a plural's case `#` is the number in the language.
 */
function sayChoice(token: unknown[], values: Record<string, unknown> | undefined, count: () => Counting): string | undefined {
  const [name, type, cases] = token as [string, unknown, Record<string, unknown> | undefined];
  if (!cases || typeof cases !== "object" || (cases.offset ?? 0) !== 0) return undefined;
  const value = values?.[name];
  let chosen: unknown;
  let hash: string | null = null;
  if (type === "plural" && typeof value === "number") {
    const { plural, number } = count();
    chosen = cases[value] ?? cases[plural.select(value)] ?? cases.other;
    hash = number.format(value);
  } else if (type === "select" && (typeof value === "string" || typeof value === "number" || value === undefined)) {
    chosen = cases[value as string] ?? cases.other;
  } else return undefined;
  if (typeof chosen === "string") return chosen;
  if (!Array.isArray(chosen)) return undefined;
  let out = "";
  for (const part of chosen as unknown[]) {
    if (typeof part === "string") out += part === "#" && hash !== null ? hash : part;
    else if (Array.isArray(part) && part.length === 1) {
      const inner = values?.[part[0] as string];
      if (inner != null) out += String(inner);
    } else return undefined;
  }
  return out;
}

/**
 * The words of the page: `t("ns.key", { values })` returns the message in the reader's language, with ICU
 * plurals, numbers and dates. `locale` is the language (for formatting numbers and dates).
 */
export function useT(): { t: I18n["_"]; locale: Locale; i18n: I18n } {
  const context = useContext(LinguiContext);
  const i18n = context?.i18n ?? fallback;
  return { t: sayOf(i18n), locale: (isLocale(i18n.locale) ? i18n.locale : DEFAULT_LOCALE) as Locale, i18n };
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
  const i18n = sharedI18nOf(locale, matchedMessages(matches));
  // Bound: callers take `_` out of the object (`const { _ } = metaI18n(matches)`).
  return { _: sayOf(i18n), locale };
}
