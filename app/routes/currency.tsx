import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { setPreferredCurrency } from "~/models/user.server";
import { getUser, safeRedirect } from "~/utils/auth.server";
import { serializeCookie } from "~/utils/cookies.server";
import { CURRENCY_COOKIE } from "~/utils/currency.server";
import { getDb } from "~/utils/db.server";
import { readFormData } from "~/utils/form-data.server";

/**
 * The footer's currency switch (POST only). A member's choice is stored with their preferences; an
 * anonymous visitor's is kept for a year in a cookie. Goes back to the page it came from.
 */
export async function action({ request }: ActionFunctionArgs) {
  const form = await readFormData(request);
  const currency = form.get("currency");
  const back = safeRedirect(form.get("redirectTo"), "/");
  if (currency !== "UGX" && currency !== "USD") throw new Response("Choose UGX or USD", { status: 400 });
  const user = await getUser(request);
  if (user) {
    await setPreferredCurrency(getDb(), user.id, currency);
    return redirect(back);
  }
  return redirect(back, { headers: { "Set-Cookie": serializeCookie(CURRENCY_COOKIE, currency, { maxAge: 31_536_000 }) } });
}

export const loader = () => redirect("/");
