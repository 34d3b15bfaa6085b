/** A page's words for its loader to send (ADR 047, ADR 048): its namespaces, in the request's language. */
import type { I18n } from "@lingui/core";
import { packedMessagesFor, serverI18n, wordsRefFor } from "~/i18n/catalog.server";
import { requestLocale } from "~/i18n/locale.server";
import type { Locale } from "~/i18n/locales";

/**
 * Set by the web process (server.ts, and the page cache as it builds an entry) on a navigation's data request
 * (`/path.data`), whose loaders otherwise see the page's own address; any such header a client sends is removed.
 */
export const DATA_REQUEST_HEADER = "x-soko-data-request";

/**
 * A page's words as its loader sends them (`i18n`): for a document, a reference to the file the browser
 * loads and keeps (app/i18n/words.ts); for a navigation's data, the messages themselves as JSON text, since
 * the page's code is already running and needs them now.
 */
export function wordsFor(request: Request, locale: Locale, namespaces: readonly string[]): string {
  return request.headers.has(DATA_REQUEST_HEADER) ? packedMessagesFor(locale, namespaces) : wordsRefFor(locale, namespaces);
}

/** `return { ...data, ...(await pageMessages(request, ["orders"])) }`: the page's words as `i18n`. */
export async function pageMessages(request: Request, namespaces: readonly string[]): Promise<{ i18n: string }> {
  return { i18n: wordsFor(request, await requestLocale(request), namespaces) };
}

/**
 * The areas of the parts of a page it shows, for its pageMessages list: `...areasShown(STEP_WORDS, shown)` sends
 * the areas `table` gives each part in `shown` (in the table's order, so a list names one file), and none of
 * the others. tests/unit/page-messages.test.ts counts every area of the table as one the page may send.
 */
export function areasShown<K extends string>(table: Readonly<Record<K, readonly string[]>>, shown: ReadonlySet<K>): string[] {
  return (Object.keys(table) as K[]).filter((part) => shown.has(part)).flatMap((part) => table[part]);
}

/** The server's words for this request's reader: `(await requestT(request))("ns.key", values)`. */
export async function requestT(request: Request): Promise<I18n["_"]> {
  const i18n = serverI18n(await requestLocale(request));
  return i18n._.bind(i18n);
}
