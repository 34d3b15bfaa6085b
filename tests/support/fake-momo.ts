/**
 * A local MTN MoMo Open API (Collections and Disbursements) on 127.0.0.1, for tests: it checks what the
 * real one checks (Basic and Bearer credentials per product, subscription keys, X-Target-Environment, a UUID
 * X-Reference-Id, the body's shape, the currency of the environment) and answers in MoMo's shapes, so an
 * adapter that gets a header or a field wrong fails here as it would there.
 *
 * A transfer is PENDING until a rule says otherwise: `setOutcome(reference or number, status)` plays the
 * payer approving or declining, at any time; a transfer that turns final and named an X-Callback-Url gets
 * MoMo's callback (a PUT of its status object). Controls for the unhappy paths: `respondNext` (a given
 * answer instead of the real one), `holdNext` (the request is taken, its answer held back), `expireTokens`,
 * `setTokenLifetime`. Everything received is in `requests`.
 */
import { randomUUID } from "node:crypto";
import type { MomoConfig, MomoCredentials } from "~/payments/momo.server";
import { sendCallback, startFakeServer, type Answer, type FakeServer, type FakeTokens, type ReceivedRequest } from "./fake-provider-http";

export type { ReceivedRequest };

export type MomoStatus = "PENDING" | "SUCCESSFUL" | "FAILED" | "REJECTED" | "TIMEOUT" | "EXPIRED" | "CREATED" | "ONGOING";
/** MoMo's failure reason: a code, or an object with a code and a message (both shapes occur). */
export type MomoReason = string | { code: string; message: string };

type Product = "collection" | "disbursement";
type Transfer = {
  product: Product;
  reference: string;
  body: Record<string, unknown>;
  partyId: string;
  callbackUrl: string | null;
  financialTransactionId: string;
  calledBack: boolean;
};
type Rule = { status: MomoStatus; reason?: MomoReason };

export type FakeMomo = FakeServer & {
  /** A config for `createMomoProvider` pointing here, with the credentials this fake accepts. */
  config: MomoConfig;
  /** The same as MTN_MOMO_* variables. */
  env: Record<string, string>;
  /**
   * From now on, transfers under this reference (a UUID) or to this number (+2567… or 2567…) stand at
   * `status`; a reference's rule wins over a number's. FAILED comes with `reason` (APPROVAL_REJECTED unless given).
   */
  setOutcome: (rule: string, status: MomoStatus, reason?: MomoReason) => void;
  /** The transfers MoMo holds, as it would show them. */
  transfer: (product: Product, reference: string) => Record<string, unknown> | null;
};

export type FakeMomoOptions = {
  targetEnvironment?: string;
  collection?: MomoCredentials;
  disbursement?: MomoCredentials;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FINAL = new Set<MomoStatus>(["SUCCESSFUL", "FAILED", "REJECTED", "TIMEOUT", "EXPIRED"]);

export async function startFakeMomo(options: FakeMomoOptions = {}): Promise<FakeMomo> {
  const targetEnvironment = options.targetEnvironment ?? "mtnuganda";
  const currency = targetEnvironment === "sandbox" ? "EUR" : "UGX";
  const creds: Record<Product, MomoCredentials> = {
    collection: options.collection ?? { user: randomUUID(), key: `ckey-${randomUUID()}`, subscriptionKey: `csub-${randomUUID()}` },
    disbursement: options.disbursement ?? { user: randomUUID(), key: `dkey-${randomUUID()}`, subscriptionKey: `dsub-${randomUUID()}` },
  };
  const transfers = new Map<string, Transfer>();
  const rules = new Map<string, Rule>();

  const key = (product: Product, reference: string) => `${product}:${reference.toLowerCase()}`;

  function statusOf(t: Transfer): Rule {
    return rules.get(t.reference.toLowerCase()) ?? rules.get(t.partyId) ?? { status: "PENDING" };
  }

  function view(t: Transfer): Record<string, unknown> {
    const { status, reason } = statusOf(t);
    const party = t.product === "collection" ? { payer: t.body.payer } : { payee: t.body.payee };
    return {
      amount: t.body.amount,
      currency: t.body.currency,
      ...(status === "SUCCESSFUL" ? { financialTransactionId: t.financialTransactionId } : {}),
      externalId: t.body.externalId,
      ...party,
      payerMessage: t.body.payerMessage,
      payeeNote: t.body.payeeNote,
      status,
      ...(FINAL.has(status) && status !== "SUCCESSFUL" ? { reason: reason ?? "APPROVAL_REJECTED" } : {}),
    };
  }

  /** MoMo's callback: once, when a transfer that named a callback URL turns final. */
  function callBack() {
    for (const t of transfers.values()) {
      if (t.calledBack || !t.callbackUrl || !FINAL.has(statusOf(t).status)) continue;
      t.calledBack = true;
      sendCallback(t.callbackUrl, "PUT", view(t));
    }
  }

  /** MoMo's answer to one request. */
  function handle(req: ReceivedRequest, tokens: FakeTokens): Answer {
    const tokenPath = /^\/(collection|disbursement)\/token\/?$/.exec(req.path);
    if (tokenPath) {
      const product = tokenPath[1] as Product;
      if (req.method !== "POST") return [405];
      if (req.headers["ocp-apim-subscription-key"] !== creds[product].subscriptionKey) {
        return [401, { statusCode: 401, message: "Access denied due to invalid subscription key." }];
      }
      const basic = Buffer.from(`${creds[product].user}:${creds[product].key}`).toString("base64");
      if (req.headers.authorization !== `Basic ${basic}`) return [401, { error: "login_failed" }];
      const { token, lifetimeS } = tokens.issue(product);
      return [200, { access_token: token, token_type: "access_token", expires_in: lifetimeS }];
    }

    const call = /^\/(collection|disbursement)\/v1_0\/(requesttopay|transfer)(?:\/([^/]+))?$/.exec(req.path);
    if (!call || (call[1] === "collection") !== (call[2] === "requesttopay")) return [404, { code: "RESOURCE_NOT_FOUND", message: "No such operation" }];
    const product = call[1] as Product;
    if (req.headers["ocp-apim-subscription-key"] !== creds[product].subscriptionKey) {
      return [401, { statusCode: 401, message: "Access denied due to invalid subscription key." }];
    }
    if (!tokens.accepts(req.headers.authorization, product)) {
      return [401, { code: "INVALID_CREDENTIALS", message: "Access token is missing, invalid or expired" }];
    }
    if (req.headers["x-target-environment"] !== targetEnvironment) {
      return [500, { code: "NOT_ALLOWED_TARGET_ENVIRONMENT", message: "Access to target environment is forbidden" }];
    }

    const reference = call[3];
    if (req.method === "GET" && reference) {
      const t = transfers.get(key(product, reference));
      return t ? [200, view(t)] : [404, { code: "RESOURCE_NOT_FOUND", message: "Requested resource was not found." }];
    }
    if (req.method !== "POST" || reference) return [405];

    const referenceId = req.headers["x-reference-id"];
    if (typeof referenceId !== "string" || !UUID.test(referenceId)) {
      return [400, { code: "INVALID_REFERENCE_ID", message: "X-Reference-Id must be a UUID" }];
    }
    if (!String(req.headers["content-type"]).startsWith("application/json")) return [415];
    const body = req.body as Record<string, unknown> | null;
    if (!body || typeof body !== "object") return [400, { code: "BAD_REQUEST", message: "The body is not JSON" }];
    const partyField = product === "collection" ? "payer" : "payee";
    const party = body[partyField] as { partyIdType?: unknown; partyId?: unknown } | undefined;
    if (typeof body.amount !== "string" || !/^\d+(\.\d+)?$/.test(body.amount) || Number(body.amount) <= 0) {
      return [400, { code: "INVALID_AMOUNT", message: "amount must be a positive number in a string" }];
    }
    if (body.currency !== currency) return [500, { code: "INVALID_CURRENCY", message: `Currency not supported (${String(body.currency)})` }];
    if (typeof body.externalId !== "string" || !body.externalId) return [400, { code: "BAD_REQUEST", message: "externalId is required" }];
    for (const note of ["payerMessage", "payeeNote"]) {
      if (typeof body[note] !== "string" || (body[note] as string).length > 160) {
        return [400, { code: "BAD_REQUEST", message: `${note} must be text of at most 160 characters` }];
      }
    }
    if (party?.partyIdType !== "MSISDN" || typeof party.partyId !== "string" || !/^2567\d{8}$/.test(party.partyId)) {
      return [400, { code: product === "collection" ? "INVALID_PAYER" : "INVALID_PAYEE", message: `${partyField} is not a valid MSISDN` }];
    }
    const callbackUrl = req.headers["x-callback-url"];
    if (callbackUrl !== undefined && (typeof callbackUrl !== "string" || !URL.canParse(callbackUrl))) {
      return [400, { code: "INVALID_CALLBACK_URL_HOST", message: "X-Callback-Url is not a URL" }];
    }
    if (transfers.has(key(product, referenceId))) {
      return [409, { code: "RESOURCE_ALREADY_EXIST", message: "Duplicated reference id. Creation of resource failed." }];
    }
    transfers.set(key(product, referenceId), {
      product,
      reference: referenceId,
      body,
      partyId: party.partyId,
      callbackUrl: callbackUrl ?? null,
      financialTransactionId: String(Math.floor(1e9 + Math.random() * 9e9)),
      calledBack: false,
    });
    setImmediate(callBack);
    return [202];
  }

  const server = await startFakeServer({ tokenPath: "/token", tokenLifetimeS: 3600, handle });
  const { url } = server;

  return {
    ...server,
    config: { baseUrl: url, targetEnvironment, collection: creds.collection, disbursement: creds.disbursement },
    env: {
      MTN_MOMO_BASE_URL: url,
      MTN_MOMO_TARGET_ENVIRONMENT: targetEnvironment,
      MTN_MOMO_COLLECTION_USER: creds.collection.user,
      MTN_MOMO_COLLECTION_KEY: creds.collection.key,
      MTN_MOMO_COLLECTION_SUBSCRIPTION_KEY: creds.collection.subscriptionKey,
      MTN_MOMO_DISBURSEMENT_USER: creds.disbursement.user,
      MTN_MOMO_DISBURSEMENT_KEY: creds.disbursement.key,
      MTN_MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: creds.disbursement.subscriptionKey,
    },
    setOutcome(rule, status, reason) {
      rules.set(rule.startsWith("+") ? rule.slice(1) : rule.toLowerCase(), { status, reason });
      callBack();
    },
    transfer(product, reference) {
      const t = transfers.get(key(product, reference));
      return t ? view(t) : null;
    },
  };
}
