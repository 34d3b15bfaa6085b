/**
 * How an HTML door answers an operation's Result (ADR 012): field issues beside their fields (400), a
 * conflict or a limit as the form's own message (409, 429/503 with Retry-After), and a missing or foreign
 * record as the error page (404, 403), never another member's data. A failure's code becomes words here,
 * with app/content/operation-messages.ts (ADR 035). The JSON API maps the same failures to JSON with the
 * same statuses, and hands the codes on.
 */
import type { SubmissionResult } from "@conform-to/react";
import { data } from "@remix-run/node";
import { issueMessages, messageOf } from "~/content/operation-messages";
import { DEFAULT_LOCALE, type Locale } from "~/i18n/locales";
import type { Failure } from "~/operations/core.server";

export const STATUS_OF: Record<Failure["error"], number> = { invalid: 400, conflict: 409, forbidden: 403, not_found: 404, limited: 429 };

export function failureStatus(failure: Failure): number {
  return failure.error === "limited" ? failure.status : STATUS_OF[failure.error];
}

type Reply = (options?: { formErrors?: string[]; fieldErrors?: Record<string, string[]>; hideFields?: string[] }) => SubmissionResult<string[]>;

/**
 * A failure as the form's reply, for `useActionData` (Conform's `submission.reply`), with its status and,
 * for a limit, Retry-After. A missing or forbidden record is thrown as the error page instead: the form
 * has nothing to show about it. `hideFields` are never echoed (passwords). The words are in `locale`, the
 * reader's (`await requestLocale(request)`, ADR 047); English unless given.
 */
export function formFailure(reply: Reply, failure: Failure, { hideFields, locale = DEFAULT_LOCALE }: { hideFields?: string[]; locale?: Locale } = {}) {
  if (failure.error === "not_found" || failure.error === "forbidden") {
    throw new Response(messageOf(failure, locale), { status: failureStatus(failure), headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  const status = failureStatus(failure);
  const headers = failure.error === "limited" ? { "Retry-After": String(failure.retryAfter) } : undefined;
  if (failure.error === "invalid") {
    const { form = [], ...fieldErrors } = issueMessages(failure.issues, locale);
    return data(reply({ formErrors: form, fieldErrors, hideFields }), { status, headers });
  }
  return data(reply({ formErrors: [messageOf(failure, locale)], hideFields }), { status, headers });
}
