/**
 * An answer whose body a person reads as it is, with no page around it (a file's link that leads nowhere, a
 * form refused before its action, a POST to a page that takes none): plain text in the request's language
 * (ADR 047: the member's, else the switcher's cookie, else Accept-Language), said from the `ops` catalogue.
 */
import type { Request as ExpressRequest, Response as ExpressResponse } from "express";
import { sayIn } from "~/content/operation-messages";
import { requestLocale } from "~/i18n/locale.server";
import { visitorLocale } from "~/i18n/negotiate.server";

export async function plainWords(
  request: Request,
  status: number,
  key: string,
  { values, headers = {} }: { values?: Record<string, string | number>; headers?: Record<string, string> } = {},
): Promise<Response> {
  const locale = await requestLocale(request);
  return new Response(sayIn(locale)(key, values), {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Content-Language": locale, ...headers },
  });
}

/**
 * The same for an answer Express sends before any page runs (a malformed address, a form from another site, an
 * error no page caught): the visitor's language from the request's headers alone (the switcher's cookie, which a
 * member's choice sets too, then Accept-Language), with no database lookup in front of every request.
 */
export function sendPlainWords(req: Pick<ExpressRequest, "headers">, res: ExpressResponse, status: number, key: string): void {
  const { locale, say } = headersWords(req);
  res.status(status).type("text/plain").set("Content-Language", locale).send(say(key));
}

/** The visitor's language and its words from the request's headers alone, for an answer made before any page. */
export function headersWords(req: Pick<ExpressRequest, "headers">) {
  const locale = visitorLocale(req.headers.cookie, req.headers["accept-language"]);
  return { locale, say: sayIn(locale) };
}
