import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { setLanguage } from "~/operations/account-settings.server";
import { getActor, safeRedirect } from "~/server/auth.server";
import { serializeCookie } from "~/server/cookies.server";
import { formRefusal, readFormData } from "~/server/form-data.server";
import { failureStatus } from "~/server/operation-results.server";
import { messageOf } from "~/content/operation-messages";
import { requestLocale } from "~/i18n/locale.server";
import { isLocale, LANGUAGE_COOKIE } from "~/i18n/locales";

/**
 * The language switch (POST only; every page's footer, and the admin portal's header). A member's choice is
 * stored with their preferences; everyone's is also kept for a year in a cookie, so the browser stays in it
 * after signing out. Goes back to the page it came from.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readFormData(request);
  const language = form.get("language");
  const back = safeRedirect(form.get("redirectTo"), "/");
  // In the language the request is read in now (the one it asked for is not one of ours).
  if (!isLocale(language)) throw await formRefusal(request, 400, "ops.language.choose");
  const actor = await getActor(request, context.clientIp);
  if (actor.kind === "member") {
    const result = await setLanguage(actor, { language });
    if (!result.ok) throw new Response(result.error === "invalid" ? null : messageOf(result, await requestLocale(request)), { status: failureStatus(result) });
  }
  return redirect(back, { headers: { "Set-Cookie": serializeCookie(LANGUAGE_COOKIE, language, { maxAge: 31_536_000 }) } });
}

export const loader = () => redirect("/");
