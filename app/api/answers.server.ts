/**
 * The JSON API's one contract for answers (ADR 041): `{ data, message? }` on success; on failure the status
 * that says what kind of failure it is and `{ message, code, issues? }`, where `code` is the operation's
 * stable code (app/operations/failure-codes.ts) and `message` its words (app/content/operation-messages.ts),
 * in the caller's language (ADR 047, `apiLocale`): `code` is for programs, `message` for people.
 */
import type { Request as ExpressRequest, Response as ExpressResponse } from "express";
import { issueMessage, messageOf } from "~/content/operation-messages";
import { negotiateLocale } from "~/i18n/negotiate.server";
import { DEFAULT_LOCALE, type Locale } from "~/i18n/locales";
import type { Coded, Failure, Issues } from "~/operations/core.server";

/**
 * The language an API call is answered in: the token's member's saved language (as the site's pages are, ADR
 * 047), else the request's `Accept-Language`, else English.
 */
export function apiLocale(req: Pick<ExpressRequest, "headers">, user?: { language: Locale } | null): Locale {
  return user?.language ?? negotiateLocale(req.headers["accept-language"]) ?? DEFAULT_LOCALE;
}

/** A field's problems: the code (for programs) and the words (for people). */
export type IssueBody = { code: string; message: string };
export type FailureBody = { message: string; code: string; issues?: Record<string, IssueBody[]> };

const STATUS: Record<Failure["error"], number> = { not_found: 404, forbidden: 403, conflict: 409, invalid: 400, limited: 429 };

/** An operation's failure as the API's status and body. */
export function failureAnswer(failure: Failure, locale: Locale = DEFAULT_LOCALE): { status: number; body: FailureBody; headers: Record<string, string> } {
  if (failure.error === "invalid") return { status: 400, body: invalidBody(failure.issues, locale), headers: {} };
  const body = codedBody(failure, locale);
  if (failure.error === "limited") return { status: failure.status, body, headers: { "Retry-After": String(failure.retryAfter) } };
  return { status: STATUS[failure.error], body, headers: {} };
}

export function codedBody(coded: Coded, locale: Locale = DEFAULT_LOCALE): FailureBody {
  return { message: messageOf(coded, locale), code: coded.code };
}

/**
 * Field issues: the first one's words as the message, each field's codes and words beside it. A schema's
 * issue is a key (app/schemas/zod.ts, app/i18n/message-key.ts) said in the caller's language, or words as written.
 */
export function invalidBody(issues: Issues, locale: Locale = DEFAULT_LOCALE): FailureBody {
  const byField = Object.fromEntries(
    Object.entries(issues).map(([field, list]) => [
      field,
      list.map((i) => ({ code: i.code === "schema" ? "schema" : i.code, message: issueMessage(i, locale) })),
    ]),
  );
  const first = Object.values(byField).find((list) => list.length)?.[0];
  return { message: first?.message ?? messageOf({ code: "request.invalid", params: {} }, locale), code: "request.invalid", issues: byField };
}

export function sendFailure(res: ExpressResponse, status: number, body: FailureBody, headers: Record<string, string> = {}) {
  res.status(status);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.json(body);
}

/** A door-level failure by its code: 401 without a token, 415 for a wrong body type, and so on. */
export function sendCoded(res: ExpressResponse, status: number, coded: Coded, headers: Record<string, string> = {}, locale: Locale = DEFAULT_LOCALE) {
  sendFailure(res, status, codedBody(coded, locale), headers);
}

export function sendData(res: ExpressResponse, status: number, data: unknown, message?: string) {
  res.status(status).json(message === undefined ? { data } : { data, message });
}
