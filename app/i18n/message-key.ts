/**
 * Messages that travel as keys (ADR 047): a form's schema runs in the browser and on the server, and an
 * operation's field issue comes back in an action's data, so neither can hold words in one language. They
 * carry `"ns.key"` or, with values, `"ns.key|{\"max\":80}"`; the page's ErrorList says them in the reader's
 * language. Zod-free and tiny: schemas and components both import it.
 */
type Values = Record<string, string | number>;
/** A function that says a key with values: Lingui's `i18n._`, bound. */
type Say = (key: string, values?: Values) => string;

/** A message key with its values, as one string a zod issue or a field issue can carry. */
export function msg(key: string, values?: Values): string {
  return values ? `${key}|${JSON.stringify(values)}` : key;
}

const KEY = /^[a-z][a-zA-Z0-9]*(?:\.[a-zA-Z0-9_-]+)+$/;

/** The key and values of a keyed message, or null for words already written (a server's translated sentence). */
export function parseKey(text: string): { key: string; values?: Values } | null {
  const bar = text.indexOf("|");
  const key = bar === -1 ? text : text.slice(0, bar);
  if (!KEY.test(key)) return null;
  if (bar === -1) return { key };
  try {
    const values = JSON.parse(text.slice(bar + 1)) as unknown;
    return values && typeof values === "object" ? { key, values: values as Values } : null;
  } catch {
    return null;
  }
}

/** Says a message in the reader's language: a keyed one through the catalogue, any other as it is. */
export function sayMessage(t: Say, text: string): string {
  const parsed = parseKey(text);
  return parsed ? t(parsed.key, parsed.values) : text;
}
