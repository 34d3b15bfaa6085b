import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { setDataSaver } from "~/operations/account-settings.server";
import { getActor, safeRedirect } from "~/server/auth.server";
import { serializeCookie } from "~/server/cookies.server";
import { DATA_SAVER_COOKIE } from "~/server/data-saver.server";
import { formRefusal, readFormData } from "~/server/form-data.server";
import { failureStatus } from "~/server/operation-results.server";
import { messageOf } from "~/content/operation-messages";
import { requestLocale } from "~/i18n/locale.server";

/**
 * The data-saver switch (POST only; every page's footer, and Settings › Preferences), ADR 054. A member's choice
 * is stored with their preferences; everyone's is also kept for a year in a cookie, so the phone stays in it after
 * signing out (the language switch does the same). Goes back to the page it came from.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readFormData(request);
  const choice = form.get("dataSaver");
  const back = safeRedirect(form.get("redirectTo"), "/");
  if (choice !== "on" && choice !== "off") throw await formRefusal(request, 400, "ops.dataSaver.choose");
  const actor = await getActor(request, context.clientIp);
  if (actor.kind === "member") {
    const result = await setDataSaver(actor, { dataSaver: choice === "on" });
    if (!result.ok) throw new Response(result.error === "invalid" ? null : messageOf(result, await requestLocale(request)), { status: failureStatus(result) });
  }
  return redirect(back, { headers: { "Set-Cookie": serializeCookie(DATA_SAVER_COOKIE, choice, { maxAge: 31_536_000 }) } });
}

export const loader = () => redirect("/");
