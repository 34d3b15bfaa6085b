/** What a keyed message (a schema's, an operation's field issue: app/i18n/message-key.ts) says in a language. */
import { serverI18n } from "~/i18n/catalog.server";
import type { Locale } from "~/i18n/locales";
import { sayMessage } from "~/i18n/message-key";

export function words(text: string, locale: Locale = "en"): string {
  const i18n = serverI18n(locale);
  return sayMessage(i18n._.bind(i18n), text);
}
