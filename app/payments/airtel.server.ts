/**
 * Airtel Money Open API (ADR 015), Uganda only: collection by USSD push takes a buyer's
 * payment, a disbursement pays a seller or refunds a buyer. One OAuth2 client-credentials token serves both.
 * Our reference is Airtel's transaction id; numbers go without the country code (7XXXXXXXX).
 *
 * Airtel answers in an envelope, `status: {success, result_code, …}`, under HTTP 200 or 4xx alike. How those
 * answers become outcomes, and why:
 * - success: true → accepted.
 * - ESB000041 (the transaction id exists) → accepted: the id is a UUID we made and stored before calling, so
 *   it can only be our own earlier attempt whose answer was lost; the status read under it tells how it went.
 * - The codes Airtel documents as final refusals (bad number, country, currency, PIN, account not set up)
 *   → rejected. Every other failure code, ESB000001 "something went wrong" among them, → unknown: Airtel
 *   documents those as possibly ambiguous, and calling one rejected when it ran would cancel an order whose
 *   money was taken, or put a payout back in a balance that was in fact paid (and so pay it twice).
 * - 5xx, a timeout, a network error, an unreadable answer → unknown.
 * - No token (the token service down or refusing us) → rejected: the request itself was never sent.
 * - A status of ESB000045 (no such transaction) or HTTP 404 → failed: nothing can be taken. (Airtel asks for
 *   status enquiries to wait at least a minute after the request; an earlier "not found" may be premature.)
 *
 * Reasons are our own short text, Airtel's code and, for a failed transaction, Airtel's short message;
 * never the token, the client secret or the PIN.
 */
import type { Env } from "~/server/env.server";
import { invalidRequest, jsonExchange, tokenCache, tokenFromAnswer, UUID, type ProviderHttpOptions, type TokenResult } from "./provider-http.server";
import type { PaymentProvider, RequestOutcome, TransferRequest, TransferStatus } from "./provider.server";

export type AirtelConfig = {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** The disbursement PIN as Airtel issues it, already encrypted. Null: `disburse` is rejected without a call. */
  disbursementPin: string | null;
};

export type AirtelOptions = ProviderHttpOptions;

/** The AIRTEL_* variables as a config, or null when the base URL or the OAuth2 client is missing. */
export function airtelConfigFromEnv(
  env: Pick<Env, "AIRTEL_BASE_URL" | "AIRTEL_CLIENT_ID" | "AIRTEL_CLIENT_SECRET" | "AIRTEL_DISBURSEMENT_PIN">,
): AirtelConfig | null {
  const baseUrl = present(env.AIRTEL_BASE_URL);
  const clientId = present(env.AIRTEL_CLIENT_ID);
  const clientSecret = present(env.AIRTEL_CLIENT_SECRET);
  if (!baseUrl || !clientId || !clientSecret) return null;
  return { baseUrl, clientId, clientSecret, disbursementPin: present(env.AIRTEL_DISBURSEMENT_PIN) };
}

function present(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

const COUNTRY = "UG";
const CURRENCY = "UGX";
/** The payment's `reference`, a short text on the payer's prompt. */
const REFERENCE_MAX = 64;

/** Failure codes Airtel documents as final: the request was refused and will not run. */
const REFUSALS: Record<string, string> = {
  ESB000011: "Airtel Money refused the request",
  ESB000033: "Not a valid Airtel Money number",
  ESB000036: "Not a valid Airtel Money number",
  ESB000034: "Airtel Money refused the country",
  ESB000035: "Airtel Money refused the currency",
  ROUTER006: "Airtel Money refused the country",
  ROUTER112: "Airtel Money refused the currency",
  ROUTER119: "Airtel Money refused the currency",
  ESB000039: "Airtel Money has not enabled this for our account",
  ROUTER001: "Airtel Money has not enabled this for our account",
  ROUTER005: "Airtel Money has not enabled this for our account",
  ROUTER007: "Airtel Money has not enabled this for our account",
  ROUTER003: "Airtel Money found a required field missing",
  ROUTER114: "Airtel Money refused our disbursement PIN",
  ROUTER115: "Airtel Money refused our disbursement PIN",
  ROUTER116: "Airtel Money refused our disbursement PIN",
};
const DUPLICATE_ID = "ESB000041";
const NOT_FOUND = "ESB000045";

type Envelope = {
  data?: { transaction?: { id?: unknown; status?: unknown; message?: unknown; airtel_money_id?: unknown } };
  status?: { success?: unknown; result_code?: unknown; code?: unknown };
};

export function createAirtelProvider(config: AirtelConfig, options: AirtelOptions = {}): PaymentProvider {
  const exchange = jsonExchange("Airtel Money", config.baseUrl, options);

  // One token serves collections and disbursements alike.
  const tokens = tokenCache(async (): Promise<TokenResult> => {
    const answer = await exchange("/auth/oauth2/token", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "*/*" },
      body: JSON.stringify({ client_id: config.clientId, client_secret: config.clientSecret, grant_type: "client_credentials" }),
    });
    if (answer.kind === "none") return { error: answer.reason };
    if (answer.status === 400 || answer.status === 401 || answer.status === 403) {
      return { error: `Airtel Money refused our client credentials (HTTP ${answer.status})` };
    }
    return tokenFromAnswer(answer) ?? { error: `Airtel Money gave no token (HTTP ${answer.status})` };
  });

  /** A call with the token and the country headers. */
  function authorized(path: string, init: { method: string; body?: string }) {
    return tokens.send((bearer) =>
      exchange(path, {
        ...init,
        headers: {
          Authorization: `Bearer ${bearer}`,
          "X-Country": COUNTRY,
          "X-Currency": CURRENCY,
          Accept: "*/*",
          ...(init.body === undefined ? {} : { "Content-Type": "application/json" }),
        },
      }),
    );
  }

  async function send(kind: "payment" | "disbursement", request: TransferRequest): Promise<RequestOutcome> {
    if (kind === "disbursement" && !config.disbursementPin) return { outcome: "rejected", reason: "Airtel Money payouts are not configured" };
    const invalid = invalidRequest(request);
    if (invalid) return { outcome: "rejected", reason: invalid };

    const msisdn = request.msisdn.slice("+256".length);
    const reference = request.description.slice(0, REFERENCE_MAX) || "Soko";
    const answer =
      kind === "payment"
        ? await authorized("/merchant/v2/payments/", {
            method: "POST",
            body: JSON.stringify({
              reference,
              subscriber: { country: COUNTRY, currency: CURRENCY, msisdn },
              transaction: { amount: request.amountUgx, country: COUNTRY, currency: CURRENCY, id: request.reference },
            }),
          })
        : await authorized("/standard/v1/disbursements/", {
            method: "POST",
            body: JSON.stringify({
              payee: { msisdn },
              reference,
              pin: config.disbursementPin,
              transaction: { amount: request.amountUgx, id: request.reference },
            }),
          });

    if (answer.kind === "no-token") return { outcome: "rejected", reason: answer.reason };
    if (answer.kind === "none") return { outcome: "unknown", reason: answer.reason };
    const { status } = answer;
    if (status >= 500) return { outcome: "unknown", reason: `Airtel Money answered HTTP ${status}` };
    const envelope = readEnvelope(answer.body);
    if (!envelope) {
      if (status === 401 || status === 403) return { outcome: "rejected", reason: `Airtel Money refused our credentials (HTTP ${status})` };
      if (status === 429) return { outcome: "rejected", reason: "Airtel Money is busy; try again in a moment" };
      if (status >= 400 && status !== 408 && status !== 409) return { outcome: "rejected", reason: `Airtel Money refused the request (HTTP ${status})` };
      return { outcome: "unknown", reason: `Airtel Money's answer was unreadable (HTTP ${status})` };
    }
    if (envelope.success) return { outcome: "accepted" };
    const code = envelope.resultCode;
    if (code === DUPLICATE_ID) return { outcome: "accepted" };
    const refusal = code ? REFUSALS[code] : undefined;
    if (refusal) return { outcome: "rejected", reason: `${refusal} (${code})` };
    return { outcome: "unknown", reason: `Airtel Money could not say whether it was taken (${code ?? `HTTP ${status}`})` };
  }

  async function readStatus(kind: "payment" | "disbursement", reference: string): Promise<TransferStatus> {
    if (!UUID.test(reference)) return { status: "failed", reason: "Not a reference Airtel Money could hold" };
    const path = kind === "payment" ? "/standard/v1/payments/" : "/standard/v1/disbursements/";
    const answer = await authorized(`${path}${reference}`, { method: "GET" });

    if (answer.kind !== "answer") return { status: "unknown", reason: answer.reason };
    if (answer.status === 404) return { status: "failed", reason: "Not found at Airtel Money: the request never arrived" };
    if (answer.status >= 500 || answer.status === 401) return { status: "unknown", reason: `Airtel Money answered HTTP ${answer.status}` };
    const envelope = readEnvelope(answer.body);
    if (!envelope) return { status: "unknown", reason: `Airtel Money's status answer was unreadable (HTTP ${answer.status})` };
    if (!envelope.success) {
      if (envelope.resultCode === NOT_FOUND) return { status: "failed", reason: "Not found at Airtel Money: the request never arrived" };
      return { status: "unknown", reason: `Airtel Money could not tell the status (${envelope.resultCode ?? `HTTP ${answer.status}`})` };
    }
    const transaction = envelope.transaction;
    // We always send our reference as the id; an answer naming another transaction is not about ours.
    if (transaction?.id !== undefined && String(transaction.id).toLowerCase() !== reference.toLowerCase()) {
      return { status: "unknown", reason: "Airtel Money's status answer names another transaction" };
    }
    const state = typeof transaction?.status === "string" ? transaction.status.toUpperCase() : null;
    const message = safeText(transaction?.message);
    switch (state) {
      case "TS": {
        const id = transaction?.airtel_money_id;
        return { status: "successful", providerTransactionId: typeof id === "string" && id ? id : typeof id === "number" ? String(id) : null };
      }
      case "TF":
        return { status: "failed", reason: message ? `Airtel Money: ${message}` : "Airtel Money: the transaction failed" };
      case "TE":
        return { status: "failed", reason: "Airtel Money: not approved in time" };
      case "TA":
      case "TIP":
        return { status: "pending" };
      default:
        return { status: "unknown", reason: "Airtel Money gave an unexpected transaction status" };
    }
  }

  return {
    name: "airtel",
    requestPayment: (request) => send("payment", request),
    paymentStatus: (reference) => readStatus("payment", reference),
    disburse: (request) => send("disbursement", request),
    disbursementStatus: (reference) => readStatus("disbursement", reference),
    callbackReference(body) {
      // Airtel posts {transaction: {id, status_code, …}}; the id is our reference.
      if (!body || typeof body !== "object" || Array.isArray(body)) return null;
      const transaction = (body as { transaction?: unknown }).transaction;
      if (!transaction || typeof transaction !== "object" || Array.isArray(transaction)) return null;
      const id = (transaction as { id?: unknown }).id;
      return typeof id === "string" && UUID.test(id) ? id.toLowerCase() : null;
    },
  };
}

/** Airtel's envelope, or null when the body is not one. */
function readEnvelope(body: unknown): { success: boolean; resultCode: string | null; transaction: NonNullable<Envelope["data"]>["transaction"] } | null {
  if (!body || typeof body !== "object") return null;
  const { data, status } = body as Envelope;
  if (!status || typeof status !== "object" || typeof status.success !== "boolean") return null;
  const code = status.result_code;
  return {
    success: status.success,
    resultCode: typeof code === "string" && /^[A-Za-z0-9_]{1,32}$/.test(code) ? code.toUpperCase() : null,
    transaction: data && typeof data === "object" && data.transaction && typeof data.transaction === "object" ? data.transaction : undefined,
  };
}

/** Airtel's message, fit to show: printable, one line, short. */
function safeText(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const text = value
    .replace(/[^\x20-\x7E]+/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 100);
  return text || null;
}
