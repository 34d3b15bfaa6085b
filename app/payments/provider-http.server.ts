/**
 * What the MTN MoMo and Airtel Money adapters share about calling a provider over HTTP (ADR 015): the checks
 * on our request before any call, the timed JSON exchange and the bearer token cache. What an answer means
 * stays in each adapter: the two providers say "refused" and "maybe taken" in different ways, and reading one
 * as the other would settle an order or a payout on a guess.
 */
import { PROVIDER_TIMEOUT_MS, type TransferRequest } from "./provider.server";

export type ProviderHttpOptions = {
  fetch?: typeof fetch;
  /** Each HTTP request (the token's too) gives up after this long. */
  timeoutMs?: number;
};

/** An HTTP exchange: an answer (its body parsed; undefined when it is not JSON), or none at all. */
export type Exchange = { kind: "answer"; status: number; body: unknown } | { kind: "none"; reason: string };

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MSISDN = /^\+2567\d{8}$/;

/** Why a request cannot be sent at all, or null. Caught here, it costs no call and no wallet prompt. */
export function invalidRequest(request: TransferRequest): string | null {
  if (!UUID.test(request.reference)) return "The reference is not a UUID";
  if (!Number.isSafeInteger(request.amountUgx) || request.amountUgx <= 0) return "The amount must be a whole number of UGX above zero";
  if (!MSISDN.test(request.msisdn)) return "Not a Ugandan mobile number (+2567XXXXXXXX)";
  return null;
}

/**
 * Requests to `baseUrl` that never throw: a network error or a timeout becomes `none`, with a reason that
 * names the provider, because for a payment both mean the same thing (it may or may not have been taken).
 */
export function jsonExchange(providerName: string, baseUrl: string, options: ProviderHttpOptions) {
  const fetchFn = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? PROVIDER_TIMEOUT_MS;
  const base = baseUrl.replace(/\/+$/, "");

  return async function exchange(path: string, init: RequestInit): Promise<Exchange> {
    try {
      const response = await fetchFn(`${base}${path}`, { ...init, signal: AbortSignal.timeout(timeoutMs) });
      const text = await response.text();
      return { kind: "answer", status: response.status, body: parseJson(text) };
    } catch (error) {
      const timedOut = error instanceof Error && error.name === "TimeoutError";
      return { kind: "none", reason: timedOut ? `${providerName} did not answer in time` : `${providerName} could not be reached` };
    }
  };
}

function parseJson(text: string): unknown {
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export type Token = { value: string; renewAt: number };
/** A token, or why there is none, in words fit for a reason. */
export type TokenResult = Token | { error: string };

/** The token in an OAuth2-style answer (`access_token`, `expires_in`), or null when it carries none. */
export function tokenFromAnswer(answer: { status: number; body: unknown }): Token | null {
  const body = answer.body as { access_token?: unknown; expires_in?: unknown } | null | undefined;
  if (answer.status !== 200 || typeof body?.access_token !== "string" || !body.access_token) return null;
  return { value: body.access_token, renewAt: renewAt(body.expires_in) };
}

/** When to fetch a new token: a minute before it expires, or a quarter of its life before for short ones. */
function renewAt(expiresIn: unknown): number {
  const seconds = Number(expiresIn);
  const lifeMs = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 60_000;
  return Date.now() + lifeMs - Math.min(60_000, lifeMs / 4);
}

/**
 * One bearer token, kept until shortly before it expires, so that a burst of calls costs one token request:
 * calls that arrive while it is being fetched wait for that one fetch instead of starting their own.
 */
export function tokenCache(fetchToken: () => Promise<TokenResult>) {
  let current: Token | null = null;
  let fetching: Promise<TokenResult> | null = null;

  function get(): Promise<TokenResult> {
    if (current && Date.now() < current.renewAt) return Promise.resolve(current);
    fetching ??= fetchToken()
      .then((result) => {
        if ("value" in result) current = result;
        return result;
      })
      .finally(() => {
        fetching = null;
      });
    return fetching;
  }

  return {
    /**
     * `call` with the token. A provider may revoke a token before its expiry, so a 401 drops it (unless a
     * newer one has replaced it meanwhile) and calls once more with a fresh one; a second 401 is the answer.
     * Without a token nothing is sent, and the result says so (`no-token`).
     */
    async send(call: (bearer: string) => Promise<Exchange>): Promise<Exchange | { kind: "no-token"; reason: string }> {
      for (let attempt = 1; ; attempt++) {
        const token = await get();
        if ("error" in token) return { kind: "no-token", reason: token.error };
        const answer = await call(token.value);
        if (answer.kind === "answer" && answer.status === 401 && attempt === 1) {
          if (current === token) current = null;
          continue;
        }
        return answer;
      }
    },
  };
}
