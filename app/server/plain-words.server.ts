/**
 * An answer whose body a person reads as it is, with no page around it (a file's link that leads nowhere, a
 * form refused before its action, a POST to a page that takes none): plain text in the request's language
 * (ADR 047: the member's, else the switcher's cookie, else Accept-Language), said from the `ops` catalogue.
 */
import { sayIn } from "~/content/operation-messages";
import { requestLocale } from "~/i18n/locale.server";

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
