/**
 * Which language a request is answered in (ADR 047): the member's saved preference; for a visitor, the
 * switcher's cookie, then `Accept-Language`, then English. URLs never carry the language.
 */
import { getSessionUser } from "~/models/session.server";
import { getSessionToken } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import type { Locale } from "~/i18n/locales";
import { visitorLocale } from "~/i18n/negotiate.server";

export { negotiateLocale, visitorLocale } from "~/i18n/negotiate.server";

const resolved = new WeakMap<Request, Promise<Locale>>();

/**
 * The language of this request's pages and messages. A member's is read with their session (the lookup the
 * root loader makes is shared, app/models/session.server.ts); worked out once per request.
 */
export function requestLocale(request: Request): Promise<Locale> {
  let locale = resolved.get(request);
  if (!locale) {
    const visitor = () => visitorLocale(request.headers.get("Cookie"), request.headers.get("Accept-Language"));
    const token = getSessionToken(request);
    locale = token ? getSessionUser(getDb(), token).then((user) => user?.language ?? visitor()) : Promise.resolve(visitor());
    resolved.set(request, locale);
  }
  return locale;
}
