/**
 * MTN MoMo Open API (ADR 015): Collections' request to pay takes a buyer's payment,
 * Disbursements' transfer pays a seller or refunds a buyer. Each product has its own API user, key,
 * subscription key and token. Our reference is both MoMo's X-Reference-Id and the body's externalId.
 *
 * How MoMo's answers become outcomes, and why:
 * - 202 → accepted. 409 (RESOURCE_ALREADY_EXIST) → accepted too: the reference is a UUID we made and stored
 *   before calling, so the only request that can hold it is our own earlier attempt whose answer was lost
 *   (a timeout, then a repeat); the status read under that reference tells how it went.
 * - 4xx (a bad payer, a malformed request, our credentials refused even with a fresh token, a rate limit) and
 *   the 500s MoMo documents as refusals (NOT_ALLOWED, INVALID_CURRENCY, …) → rejected: MoMo did not take it.
 * - Any other 5xx, a timeout, a network error, an unreadable answer → unknown: it may have been taken.
 * - No token (the token service down or refusing us) → rejected: the request itself was never sent.
 * - A status of 404 → failed: MoMo holds no transfer under this reference, so nothing can be taken. (After an
 *   unknown request, ask again only once the request itself would have timed out on MoMo's side.)
 *
 * Reasons are our own short text plus MoMo's error code; never a token, key or MoMo's free text.
 */
import type { Env } from "~/server/env.server";
import { invalidRequest, jsonExchange, tokenCache, tokenFromAnswer, UUID, type ProviderHttpOptions, type TokenResult } from "./provider-http.server";
import type { PaymentProvider, RequestOutcome, TransferRequest, TransferStatus } from "./provider.server";

/** One MoMo product's API user (a UUID), its API key and the subscription key of that product. */
export type MomoCredentials = { user: string; key: string; subscriptionKey: string };

export type MomoConfig = {
  baseUrl: string;
  /** "mtnuganda" in production; "sandbox" in MTN's sandbox, which only takes EUR. */
  targetEnvironment: string;
  collection: MomoCredentials;
  /** Null when payouts are not configured: `disburse` is then rejected without a call. */
  disbursement: MomoCredentials | null;
  /** Sent as X-Callback-Url; MoMo only calls hosts registered for the API user. */
  callbackUrl?: string;
};

export type MomoOptions = ProviderHttpOptions;

/** The MTN_MOMO_* variables as a config, or null when the base URL or the Collections credentials are missing. */
export function momoConfigFromEnv(
  env: Pick<
    Env,
    | "MTN_MOMO_BASE_URL"
    | "MTN_MOMO_TARGET_ENVIRONMENT"
    | "MTN_MOMO_COLLECTION_USER"
    | "MTN_MOMO_COLLECTION_KEY"
    | "MTN_MOMO_COLLECTION_SUBSCRIPTION_KEY"
    | "MTN_MOMO_DISBURSEMENT_USER"
    | "MTN_MOMO_DISBURSEMENT_KEY"
    | "MTN_MOMO_DISBURSEMENT_SUBSCRIPTION_KEY"
  >,
): MomoConfig | null {
  const baseUrl = present(env.MTN_MOMO_BASE_URL);
  const collection = credentials(env.MTN_MOMO_COLLECTION_USER, env.MTN_MOMO_COLLECTION_KEY, env.MTN_MOMO_COLLECTION_SUBSCRIPTION_KEY);
  if (!baseUrl || !collection) return null;
  return {
    baseUrl,
    targetEnvironment: present(env.MTN_MOMO_TARGET_ENVIRONMENT) ?? "mtnuganda",
    collection,
    disbursement: credentials(env.MTN_MOMO_DISBURSEMENT_USER, env.MTN_MOMO_DISBURSEMENT_KEY, env.MTN_MOMO_DISBURSEMENT_SUBSCRIPTION_KEY),
  };
}

function present(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

function credentials(user: string | undefined, key: string | undefined, subscriptionKey: string | undefined): MomoCredentials | null {
  const [u, k, s] = [present(user), present(key), present(subscriptionKey)];
  return u && k && s ? { user: u, key: k, subscriptionKey: s } : null;
}

/** MoMo refuses a payerMessage or payeeNote longer than this. */
const NOTE_MAX = 160;

/** MoMo's own error and failure codes, as a person reads them. */
const CODE_TEXT: Record<string, string> = {
  APPROVAL_REJECTED: "The payer declined",
  EXPIRED: "Not approved in time",
  COULD_NOT_PERFORM_TRANSACTION: "Not approved in time",
  TRANSACTION_CANCELED: "Cancelled",
  NOT_ENOUGH_FUNDS: "Not enough money in the wallet",
  PAYER_LIMIT_REACHED: "The payer's wallet limit was reached",
  PAYEE_NOT_ALLOWED_TO_RECEIVE: "This wallet may not receive the transfer",
  PAYER_NOT_FOUND: "This number has no MTN Mobile Money wallet",
  PAYEE_NOT_FOUND: "This number has no MTN Mobile Money wallet",
  INVALID_PAYER: "This number cannot pay by MTN Mobile Money",
  INTERNAL_PROCESSING_ERROR: "MTN MoMo could not complete it (often not enough money in the wallet)",
  NOT_ALLOWED: "MTN MoMo does not allow this for our account",
  NOT_ALLOWED_TARGET_ENVIRONMENT: "MTN MoMo refused our target environment",
  INVALID_CALLBACK_URL_HOST: "MTN MoMo refused our callback host",
  INVALID_CURRENCY: "MTN MoMo refused the currency",
};

/** 500 answers that MoMo documents as a refusal: nothing was created. */
const REFUSALS_AS_500 = new Set(["NOT_ALLOWED", "NOT_ALLOWED_TARGET_ENVIRONMENT", "INVALID_CALLBACK_URL_HOST", "INVALID_CURRENCY"]);

const FAILED_STATUSES = new Set(["FAILED", "REJECTED", "TIMEOUT", "EXPIRED"]);
const PENDING_STATUSES = new Set(["PENDING", "CREATED", "ONGOING"]);

export function createMomoProvider(config: MomoConfig, options: MomoOptions = {}): PaymentProvider {
  const exchange = jsonExchange("MTN MoMo", config.baseUrl, options);
  const currency = config.targetEnvironment === "sandbox" ? "EUR" : "UGX";

  /** One product's token: each product has its own API user, so its own token. */
  function tokenSource(product: "collection" | "disbursement", creds: MomoCredentials) {
    return tokenCache(async (): Promise<TokenResult> => {
      const basic = Buffer.from(`${creds.user}:${creds.key}`).toString("base64");
      const answer = await exchange(`/${product}/token/`, {
        method: "POST",
        headers: { Authorization: `Basic ${basic}`, "Ocp-Apim-Subscription-Key": creds.subscriptionKey },
      });
      if (answer.kind === "none") return { error: answer.reason };
      if (answer.status === 401 || answer.status === 403) return { error: `MTN MoMo refused our ${product} API user (HTTP ${answer.status})` };
      return tokenFromAnswer(answer) ?? { error: `MTN MoMo gave no ${product} token (HTTP ${answer.status})` };
    });
  }

  const collection = { creds: config.collection, tokens: tokenSource("collection", config.collection) };
  const disbursement = config.disbursement ? { creds: config.disbursement, tokens: tokenSource("disbursement", config.disbursement) } : null;

  /** A call with the product's token and subscription key, and our target environment. */
  function authorized(product: NonNullable<typeof disbursement>, path: string, init: { method: string; headers?: Record<string, string>; body?: string }) {
    return product.tokens.send((bearer) =>
      exchange(path, {
        ...init,
        headers: {
          ...init.headers,
          Authorization: `Bearer ${bearer}`,
          "X-Target-Environment": config.targetEnvironment,
          "Ocp-Apim-Subscription-Key": product.creds.subscriptionKey,
        },
      }),
    );
  }

  async function send(kind: "requesttopay" | "transfer", request: TransferRequest): Promise<RequestOutcome> {
    const product = kind === "requesttopay" ? collection : disbursement;
    if (!product) return { outcome: "rejected", reason: "MTN MoMo payouts are not configured" };
    const invalid = invalidRequest(request);
    if (invalid) return { outcome: "rejected", reason: invalid };

    const party = { partyIdType: "MSISDN", partyId: request.msisdn.slice(1) };
    const note = request.description.slice(0, NOTE_MAX);
    const headers: Record<string, string> = { "X-Reference-Id": request.reference, "Content-Type": "application/json" };
    if (config.callbackUrl) headers["X-Callback-Url"] = config.callbackUrl;
    const path = kind === "requesttopay" ? "/collection/v1_0/requesttopay" : "/disbursement/v1_0/transfer";
    const answer = await authorized(product, path, {
      method: "POST",
      headers,
      body: JSON.stringify({
        amount: String(request.amountUgx),
        currency,
        externalId: request.reference,
        ...(kind === "requesttopay" ? { payer: party } : { payee: party }),
        payerMessage: note,
        payeeNote: note,
      }),
    });

    if (answer.kind === "no-token") return { outcome: "rejected", reason: answer.reason };
    if (answer.kind === "none") return { outcome: "unknown", reason: answer.reason };
    const { status } = answer;
    const code = errorCode(answer.body);
    if (status >= 200 && status < 300) return { outcome: "accepted" };
    if (status === 409) return { outcome: "accepted" };
    if (status === 401 || status === 403) return { outcome: "rejected", reason: `MTN MoMo refused our credentials (HTTP ${status})` };
    if (status === 429) return { outcome: "rejected", reason: "MTN MoMo is busy; try again in a moment" };
    if (status === 408) return { outcome: "unknown", reason: "MTN MoMo did not answer in time" };
    if (status >= 400 && status < 500) return { outcome: "rejected", reason: describe(code, `MTN MoMo refused the request (HTTP ${status})`) };
    if (code && REFUSALS_AS_500.has(code)) return { outcome: "rejected", reason: describe(code, "") };
    return { outcome: "unknown", reason: `MTN MoMo answered HTTP ${status}${code ? ` (${code})` : ""}` };
  }

  async function readStatus(kind: "requesttopay" | "transfer", reference: string): Promise<TransferStatus> {
    const product = kind === "requesttopay" ? collection : disbursement;
    if (!product) return { status: "unknown", reason: "MTN MoMo payouts are not configured" };
    if (!UUID.test(reference)) return { status: "failed", reason: "Not a reference MTN MoMo could hold" };
    const path = kind === "requesttopay" ? "/collection/v1_0/requesttopay/" : "/disbursement/v1_0/transfer/";
    const answer = await authorized(product, `${path}${reference}`, { method: "GET" });

    if (answer.kind !== "answer") return { status: "unknown", reason: answer.reason };
    if (answer.status === 404) return { status: "failed", reason: "Not found at MTN MoMo: the request never arrived" };
    if (answer.status !== 200) return { status: "unknown", reason: `MTN MoMo answered HTTP ${answer.status}` };
    const body = answer.body as { status?: unknown; externalId?: unknown; financialTransactionId?: unknown; reason?: unknown } | undefined;
    if (!body || typeof body !== "object" || typeof body.status !== "string") {
      return { status: "unknown", reason: "MTN MoMo's status answer was unreadable" };
    }
    // We always send externalId = reference; an answer naming another transfer is not about ours.
    if (body.externalId !== undefined && String(body.externalId).toLowerCase() !== reference.toLowerCase()) {
      return { status: "unknown", reason: "MTN MoMo's status answer names another transfer" };
    }
    const state = body.status.toUpperCase();
    if (state === "SUCCESSFUL") {
      const id = body.financialTransactionId;
      return { status: "successful", providerTransactionId: typeof id === "string" || typeof id === "number" ? String(id) : null };
    }
    if (FAILED_STATUSES.has(state)) return { status: "failed", reason: failureReason(body.reason, state) };
    if (PENDING_STATUSES.has(state)) return { status: "pending" };
    return { status: "unknown", reason: `MTN MoMo gave an unexpected status (${safeCode(state) ?? "unreadable"})` };
  }

  return {
    name: "mtn",
    requestPayment: (request) => send("requesttopay", request),
    paymentStatus: (reference) => readStatus("requesttopay", reference),
    disburse: (request) => send("transfer", request),
    disbursementStatus: (reference) => readStatus("transfer", reference),
    callbackReference(body) {
      // MoMo sends the status object; externalId is our reference because we set it so.
      if (!body || typeof body !== "object" || Array.isArray(body)) return null;
      const externalId = (body as { externalId?: unknown }).externalId;
      return typeof externalId === "string" && UUID.test(externalId) ? externalId.toLowerCase() : null;
    },
  };
}

/** A code fit to show: letters, digits and underscores, as MoMo's codes are. Anything else is dropped. */
function safeCode(value: unknown): string | null {
  return typeof value === "string" && /^[A-Za-z0-9_]{1,64}$/.test(value) ? value.toUpperCase() : null;
}

function errorCode(body: unknown): string | null {
  return body && typeof body === "object" ? safeCode((body as { code?: unknown }).code) : null;
}

function describe(code: string | null, fallback: string): string {
  if (!code) return fallback;
  const text = CODE_TEXT[code];
  return text ? `${text} (${code})` : `${fallback || "MTN MoMo refused the request"} (${code})`;
}

/** MoMo's reason for a failure: a code string, or {code, message}, or nothing. */
function failureReason(reason: unknown, state: string): string {
  const code = safeCode(typeof reason === "object" && reason ? (reason as { code?: unknown }).code : reason);
  return describe(code ?? (state === "FAILED" ? null : state), "MTN MoMo: the transfer failed");
}
