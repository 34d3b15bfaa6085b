/**
 * How a page's words reach the browser (ADR 048). A document names each of its catalogues by reference, a
 * path under /words/ with the catalogue's content hash (`sw/orders.checkout~orders.timeline.3kq9x0b1ZQ`): the
 * page loads `/words/<ref>.js` with a deferred script, which the browser keeps for a year and which registers
 * the messages here before the app's own script runs. The document itself then carries none of them, so the
 * server neither encodes nor compresses them with every page it renders. A navigation's data (`.data`
 * requests) still carries its new page's messages inline, as JSON text.
 *
 * The register is one object on `globalThis` in both places: the server's catalogue (catalog.server.ts) fills
 * it as it makes a reference, the script files fill it in the browser.
 */
import type { Messages } from "@lingui/core";

/** Where the catalogue files are served. */
export const WORDS_PATH = "/words/";

declare global {
  // eslint-disable-next-line no-var -- the register the word files write to, by name: `self.__sokoWords`.
  var __sokoWords: Record<string, Messages> | undefined;
}

const register = (): Record<string, Messages> => (globalThis.__sokoWords ??= {});

/** A loader's `i18n`: inline JSON text (an object, so it starts with "{"), or else a reference. */
export const isWordsRef = (i18n: string): boolean => i18n.length > 0 && i18n[0] !== "{";

/** The file a reference names. */
export const wordsUrl = (ref: string): string => `${WORDS_PATH}${ref}.js`;

/** The messages a reference names, once registered (by the server's catalogue, or by the file in the browser). */
export const registeredWords = (ref: string): Messages | undefined => register()[ref];

export function registerWords(ref: string, messages: Messages): void {
  register()[ref] = messages;
}
