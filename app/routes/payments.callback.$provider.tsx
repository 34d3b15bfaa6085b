import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { systemActor } from "~/operations/core.server";
import { paymentCallback } from "~/operations/payments.server";
import { failureStatus } from "~/server/operation-results.server";
import { addressKey, consume } from "~/server/rate-limit.server";

/**
 * Where MTN MoMo (PUT) and Airtel Money (POST) tell us a transfer has moved. The body is only a hint naming
 * our reference: paymentCallback reads the status back from the provider before anything changes, so a
 * forged or replayed callback moves nothing. Providers call from their servers with no session and no Origin
 * (the same-origin check lets a request without Origin or Referer through), and the body is at most 1 MB
 * (body-limit.server.ts). Any settlement, even "still pending", is answered 200: the provider has done its part.
 */
const PROVIDERS = ["mtn", "airtel", "sandbox"] as const;
type CallbackProvider = (typeof PROVIDERS)[number];

const json = (body: unknown, status: number, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", ...headers } });

const providerOf = (name: string | undefined): CallbackProvider | undefined => PROVIDERS.find((p) => p === name);

export async function loader({ params }: LoaderFunctionArgs) {
  if (!providerOf(params.provider)) return json({ ok: false, error: "Not found" }, 404);
  return json({ ok: false, error: "Send the callback with POST or PUT." }, 405, { Allow: "POST, PUT" });
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  const provider = providerOf(params.provider);
  if (!provider) return json({ ok: false, error: "Not found" }, 404);
  const limited = await consume("callback", [addressKey(context.clientIp)]);
  if (limited) return json({ ok: false, error: limited.message }, limited.status, { "Retry-After": String(limited.retryAfter) });
  if (request.method !== "POST" && request.method !== "PUT")
    return json({ ok: false, error: "Send the callback with POST or PUT." }, 405, { Allow: "POST, PUT" });
  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch {
    return json({ ok: false, error: "The body is not JSON." }, 400);
  }
  const result = await paymentCallback(systemActor("callback"), { provider, body });
  if (result.ok) return json({ ok: true }, 200);
  return json({ ok: false, error: result.error === "invalid" ? "This callback names no payment of ours." : result.error }, failureStatus(result));
}
