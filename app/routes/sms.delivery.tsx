import type { ActionFunctionArgs } from "@remix-run/node";
import { recordDeliveryReport } from "~/operations/sms.server";
import { systemActor } from "~/operations/core.server";
import { addressKey, consume } from "~/server/rate-limit.server";
import { parseDeliveryReport } from "~/sms/provider.server";

/**
 * Where Africa's Talking posts delivery reports (ADR 050; the callback URL set on the account): a form naming
 * the gateway's message id and what became of it. Like the payment callbacks, a report is only a hint: it
 * updates the delivery state of a text we sent, and nothing else; a report naming a text we never sent is
 * answered 200 and ignored (the gateway has done its part either way). Counted per address with the payment
 * callbacks' limit, and at most 8 KB read (a report is a few short fields).
 */
const MAX_BODY_BYTES = 8 * 1024;

const text = (body: string, status: number, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", ...headers } });

export function loader() {
  return text("Send delivery reports with POST.", 405, { Allow: "POST" });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const limited = await consume("callback", [addressKey(context.clientIp)]);
  if (limited) return text(limited.message, limited.status, { "Retry-After": String(limited.retryAfter) });
  if (request.method !== "POST") return text("Send delivery reports with POST.", 405, { Allow: "POST" });
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > MAX_BODY_BYTES) return text("The report is too large.", 413);
  const body = await request.text();
  if (Buffer.byteLength(body) > MAX_BODY_BYTES) return text("The report is too large.", 413);
  const report = parseDeliveryReport(Object.fromEntries(new URLSearchParams(body)));
  if (!report) return text("The report names no message and known status.", 400);
  // Known or not, the gateway has done its part: 200 (an unknown id changes nothing).
  await recordDeliveryReport(systemActor("sms-delivery"), report);
  return text("OK", 200);
}
