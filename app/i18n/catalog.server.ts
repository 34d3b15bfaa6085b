/**
 * The message catalogues (ADR 047): `app/locales/<language>/<namespace>.json`, each a flat object of ICU
 * messages keyed `<namespace>.<name>`. Read and compiled once per process by Lingui's compiler, so the browser
 * receives compiled messages and never loads a parser. A page sends only its own namespaces, in its own
 * language (`pageMessages`); server-side words (operations' refusals, mail, notifications, the API) use the
 * whole catalogue through `serverI18n`.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { setupI18n, type I18n, type Messages } from "@lingui/core";
import { compileMessage } from "@lingui/message-utils/compileMessage";
import { DEFAULT_LOCALE, INTL_LOCALES, isLocale, LOCALES, type Locale } from "~/i18n/locales";
import { registerWords } from "~/i18n/words";

/** Where the catalogues are: the repository's `app/locales`, from the directory the processes run in. */
export const LOCALES_DIR = path.resolve(process.env.SOKO_LOCALES_DIR ?? "app/locales");

type Catalogues = Record<Locale, Map<string, Messages>>;
let catalogues: Catalogues | null = null;

/** The source catalogues as written: language → namespace → key → ICU message. */
export function readSourceCatalogues(dir = LOCALES_DIR): Record<Locale, Record<string, Record<string, string>>> {
  const out = {} as Record<Locale, Record<string, Record<string, string>>>;
  for (const locale of LOCALES) {
    out[locale] = {};
    for (const file of readdirSync(path.join(dir, locale))
      .filter((f) => f.endsWith(".json"))
      .sort()) {
      out[locale][file.slice(0, -5)] = JSON.parse(readFileSync(path.join(dir, locale, file), "utf8")) as Record<string, string>;
    }
  }
  return out;
}

function load(): Catalogues {
  if (catalogues) return catalogues;
  const source = readSourceCatalogues();
  const compiled = {} as Catalogues;
  for (const locale of LOCALES) {
    compiled[locale] = new Map();
    for (const [namespace, english] of Object.entries(source[DEFAULT_LOCALE])) {
      const own = source[locale][namespace] ?? {};
      const messages: Messages = {};
      // A key missing in a translation falls back to English (tests/unit/catalogues.test.ts fails on it first).
      for (const [key, words] of Object.entries(english)) messages[key] = compileMessage(own[key] ?? words);
      compiled[locale].set(namespace, messages);
    }
  }
  return (catalogues = compiled);
}

/** The namespaces there are (the English catalogue's files). */
export function namespaces(): string[] {
  return [...load()[DEFAULT_LOCALE].keys()];
}

const merged = new Map<string, Messages>();

/** One language's compiled messages of some namespaces or areas, merged (uncached; messagesFor keeps them). */
function mergeMessages(locale: Locale, names: readonly string[]): Messages {
  const byNamespace = load()[locale];
  const messages: Messages = {};
  for (const name of names) {
    const dot = name.indexOf(".");
    const one = byNamespace.get(dot === -1 ? name : name.slice(0, dot));
    if (!one) throw new Error(`No message catalogue "${name}" in app/locales/${locale}`);
    if (dot === -1) Object.assign(messages, one);
    else for (const [id, message] of Object.entries(one)) if (id === name || id.startsWith(`${name}.`)) messages[id] = message;
  }
  return messages;
}

/**
 * One language's compiled messages of some namespaces, merged (kept per language and list: pages share them).
 * A name is a namespace ("orders") or one area of it ("orders.checkout": its keys `orders.checkout.*`), for a
 * page that uses a few areas of a large namespace (tests/unit/page-messages.test.ts checks each page sends what
 * its components use).
 */
export function messagesFor(locale: Locale, names: readonly string[]): Messages {
  const key = `${locale} ${names.join(" ")}`;
  let messages = merged.get(key);
  if (!messages) merged.set(key, (messages = mergeMessages(locale, names)));
  return messages;
}

const packed = new Map<string, string>();

/**
 * messagesFor as JSON text, as a loader sends it (`i18n` in its data). One string travels far lighter than the
 * object: Remix's encoding of loader data writes an object's every key and value as entries of their own.
 */
export function packedMessagesFor(locale: Locale, names: readonly string[]): string {
  const key = `${locale} ${names.join(" ")}`;
  let text = packed.get(key);
  if (text === undefined) packed.set(key, (text = JSON.stringify(messagesFor(locale, names))));
  return text;
}

/** The namespaces only the server says (operations' refusals, mail, notifications, the API): never served. */
export const SERVER_ONLY_NAMESPACES: ReadonlySet<string> = new Set(["ops", "mail", "notify", "api"]);

const refs = new Map<string, string>();
const hashOf = (text: string) => createHash("sha256").update(text).digest("base64url").slice(0, 10);

/**
 * The reference to messagesFor's catalogue (app/i18n/words.ts): `<language>/<names joined by ~>.<hash>`, the
 * hash of its content, so a browser may keep the file for good. Registered, so the server's render finds it.
 */
export function wordsRefFor(locale: Locale, names: readonly string[]): string {
  const key = `${locale} ${names.join(" ")}`;
  let ref = refs.get(key);
  if (ref === undefined) {
    ref = `${locale}/${names.join("~")}.${hashOf(packedMessagesFor(locale, names))}`;
    registerWords(ref, messagesFor(locale, names));
    refs.set(key, ref);
  }
  return ref;
}

// A name is a namespace, or an area of one two levels deep at most ("orders.steps.deliver").
const REF = /^(en|lg|sw)\/([a-z]+(?:\.[a-zA-Z]+){0,2}(?:~[a-z]+(?:\.[a-zA-Z]+){0,2}){0,23})\.([A-Za-z0-9_-]{10})$/;

/**
 * What a reference's file holds, by its name alone (any web process can answer, whichever made the page):
 * `current` says whether the content still has the hash the name asks for (a page made before the catalogues
 * changed asks for the old one, and gets today's words, not to be kept). Null for a name that is not a
 * catalogue the browser may have.
 */
export function wordsOfRef(ref: string): { messages: string; current: boolean } | null {
  const match = REF.exec(ref);
  if (!match || !isLocale(match[1])) return null;
  const names = match[2]!.split("~");
  const known = new Set(namespaces());
  if (names.some((name) => !known.has(name.split(".")[0]!) || SERVER_ONLY_NAMESPACES.has(name.split(".")[0]!))) return null;
  const locale = match[1];
  // A list this process's pages use is kept; any other (a page of another version, or a made-up list) is
  // merged for this answer only, so names from outside cannot fill the memory.
  const made = refs.get(`${locale} ${names.join(" ")}`);
  if (made !== undefined) return { messages: packedMessagesFor(locale, names), current: made === ref };
  const messages = mergeMessages(locale, names);
  if (Object.keys(messages).length === 0) return null;
  const text = JSON.stringify(messages);
  return { messages: text, current: `${locale}/${names.join("~")}.${hashOf(text)}` === ref };
}

const instances = new Map<Locale, I18n>();

/** A language's whole catalogue, for words the server says (never sent to a browser whole). */
export function serverI18n(locale: Locale): I18n {
  let i18n = instances.get(locale);
  if (!i18n) {
    i18n = setupI18n({ locale, locales: INTL_LOCALES[locale], messages: { [locale]: messagesFor(locale, namespaces()) } });
    instances.set(locale, i18n);
  }
  return i18n;
}
