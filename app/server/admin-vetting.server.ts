/**
 * The Users screen's vetting forms (ADR 051), answered for app/admin/users.tsx's action: the note parsed, the
 * operation called, and a 303 back to the listing (whose row then says "Vetted"), or the refusal in the
 * member's row with its status.
 */
import { data, redirect } from "@remix-run/node";
import { failureMessage } from "~/content/operation-messages";
import type { Locale } from "~/i18n/locales";
import type { Actor } from "~/operations/core.server";
import { setVetting } from "~/operations/vetting.server";
import { failureStatus } from "~/server/operation-results.server";
import { VETTING_INTENTS, VettingSchema } from "~/schemas/vetting";

/** Whether a posted form is a vetting form. */
export const isVettingForm = (formData: FormData) => (VETTING_INTENTS as readonly unknown[]).includes(formData.get("intent"));

export async function vettingAnswer(actor: Actor, formData: FormData, locale: Locale, backTo: (extra: Record<string, string>) => string) {
  const userId = Number(formData.get("userId")) || undefined;
  const parsed = VettingSchema.safeParse({
    intent: formData.get("intent"),
    userId: formData.get("userId") ?? undefined,
    note: formData.get("note") ?? undefined,
  });
  if (!parsed.success) return data({ form: "row" as const, userId, errors: parsed.error.flatten().fieldErrors }, { status: 400 });
  const result = await setVetting(actor, parsed.data);
  if (!result.ok) return data({ form: "row" as const, userId, errors: { form: [failureMessage(result, locale)] } }, { status: failureStatus(result) });
  return redirect(backTo({ done: parsed.data.intent, who: String(parsed.data.userId) }), 303);
}
