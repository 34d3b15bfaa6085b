/**
 * Settings › Security's "Change email" form (ADR 051), answered for app/routes/settings.tsx's action: the new
 * address saved unverified and its link mailed, then a 303 back to the tab; or the messages beside the fields
 * (keys or words, said by ErrorList), with the operation's status. The password is never echoed.
 */
import { data, redirect } from "@remix-run/node";
import { issueMessages, messageOf } from "~/content/operation-messages";
import type { Locale } from "~/i18n/locales";
import type { Actor } from "~/operations/core.server";
import { changeEmail } from "~/operations/email-verification.server";
import { failureStatus } from "~/server/operation-results.server";
import { ChangeEmailSchema } from "~/schemas/email-change";

/** `tab`: the settings page's answers all name their tab (its component reads `actionData.tab`). */
export type EmailChangeAnswer = { tab: "security"; emailErrors: Record<string, string[] | undefined>; typedEmail: string };

export async function changeEmailAnswer(actor: Actor, formData: FormData, locale: Locale, origin: string) {
  const typedEmail = String(formData.get("email") ?? "");
  const parsed = ChangeEmailSchema.safeParse(Object.fromEntries(formData));
  if (!parsed.success) return data<EmailChangeAnswer>({ tab: "security", emailErrors: parsed.error.flatten().fieldErrors, typedEmail }, { status: 400 });
  const result = await changeEmail(actor, { email: parsed.data.email, currentPassword: parsed.data.currentPassword, origin });
  if (!result.ok) {
    const emailErrors = result.error === "invalid" ? issueMessages(result.issues, locale) : { form: [messageOf(result, locale)] };
    const headers = result.error === "limited" ? { "Retry-After": String(result.retryAfter) } : undefined;
    return data<EmailChangeAnswer>({ tab: "security", emailErrors, typedEmail }, { status: failureStatus(result), headers });
  }
  return redirect(`/settings?tab=security&saved=${result.value.changed ? "email" : "1"}`, 303);
}
