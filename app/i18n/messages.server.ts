/** A page's words for its loader to send (ADR 047): its namespaces, in the request's language. */
import type { I18n } from "@lingui/core";
import { packedMessagesFor, serverI18n } from "~/i18n/catalog.server";
import { requestLocale } from "~/i18n/locale.server";

/** `return { ...data, ...(await pageMessages(request, ["orders"])) }`: the page's messages as `i18n`. */
export async function pageMessages(request: Request, namespaces: readonly string[]): Promise<{ i18n: string }> {
  return { i18n: packedMessagesFor(await requestLocale(request), namespaces) };
}

/** The server's words for this request's reader: `(await requestT(request))("ns.key", values)`. */
export async function requestT(request: Request): Promise<I18n["_"]> {
  const i18n = serverI18n(await requestLocale(request));
  return i18n._.bind(i18n);
}
