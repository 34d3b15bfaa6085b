import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { setCurrency } from "~/operations/account-settings.server";
import { getActor, safeRedirect } from "~/server/auth.server";
import { serializeCookie } from "~/server/cookies.server";
import { CURRENCY_COOKIE } from "~/server/currency.server";
import { formRefusal, readFormData } from "~/server/form-data.server";
import { failureStatus } from "~/server/operation-results.server";
import { messageOf } from "~/content/operation-messages";
import { requestLocale } from "~/i18n/locale.server";

/**
 * The footer's currency switch (POST only). A member's choice is stored with their preferences; an
 * anonymous visitor's is kept for a year in a cookie. Goes back to the page it came from.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readFormData(request);
  const currency = form.get("currency");
  const back = safeRedirect(form.get("redirectTo"), "/");
  if (currency !== "UGX" && currency !== "USD") throw await formRefusal(request, 400, "ops.currency.choose");
  const actor = await getActor(request, context.clientIp);
  if (actor.kind === "member") {
    const result = await setCurrency(actor, { preferredCurrency: currency });
    if (!result.ok) throw new Response(result.error === "invalid" ? null : messageOf(result, await requestLocale(request)), { status: failureStatus(result) });
    return redirect(back);
  }
  return redirect(back, { headers: { "Set-Cookie": serializeCookie(CURRENCY_COOKIE, currency, { maxAge: 31_536_000 }) } });
}

export const loader = () => redirect("/");
