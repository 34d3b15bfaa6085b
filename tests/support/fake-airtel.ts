/**
 * A local Airtel Money Open API (Uganda) on 127.0.0.1, for tests: it checks what the real one checks (the
 * OAuth2 client, the Bearer token, X-Country and X-Currency, the body's shape, a 9-digit number without the
 * country code, the disbursement PIN) and answers in Airtel's envelope, `status: {success, result_code, …}`,
 * so an adapter that gets a header or a field wrong fails here as it would there.
 *
 * A transaction is in progress (TIP) until a rule says otherwise: `setOutcome(reference or number, status)`
 * plays the payer approving or declining, at any time; a transaction that turns final is posted to the
 * callback URL, when one is set (Airtel's is configured per account, not per request). Controls for the
 * unhappy paths: `respondNext` (a given answer instead of the real one), `holdNext` (the request is taken,
 * its answer held back), `expireTokens`, `setTokenLifetime`. Everything received is in `requests`.
 */
import { randomUUID } from "node:crypto";
import type { AirtelConfig } from "~/payments/airtel.server";
import { sendCallback, startFakeServer, type Answer, type FakeServer, type FakeTokens, type ReceivedRequest } from "./fake-provider-http";

export type { ReceivedRequest };

/** Airtel's transaction statuses, and the names the MoMo fake uses for the same three outcomes. */
export type AirtelStatus = "TS" | "TF" | "TA" | "TIP" | "TE" | "SUCCESSFUL" | "FAILED" | "PENDING";

type Kind = "payment" | "disbursement";
type Transaction = {
  kind: Kind;
  id: string;
  msisdn: string;
  body: Record<string, unknown>;
  airtelMoneyId: string;
  calledBack: boolean;
};
type Rule = { status: "TS" | "TF" | "TA" | "TIP" | "TE"; message?: string };

export type FakeAirtel = FakeServer & {
  /** A config for `createAirtelProvider` pointing here, with the client and PIN this fake accepts. */
  config: AirtelConfig;
  /** The same as AIRTEL_* variables. */
  env: Record<string, string>;
  /**
   * From now on, transactions under this id (a UUID) or to this number (+2567…, 2567… or 7…) stand at
   * `status`; an id's rule wins over a number's. `message` is Airtel's text for the payer's outcome.
   */
  setOutcome: (rule: string, status: AirtelStatus, message?: string) => void;
  /** Where final transactions are posted (Airtel's account-wide callback URL); null stops callbacks. */
  setCallbackUrl: (url: string | null) => void;
};

export type FakeAirtelOptions = { clientId?: string; clientSecret?: string; pin?: string; callbackUrl?: string };

const ALIAS: Record<AirtelStatus, Rule["status"]> = { TS: "TS", TF: "TF", TA: "TA", TIP: "TIP", TE: "TE", SUCCESSFUL: "TS", FAILED: "TF", PENDING: "TIP" };
const FINAL = new Set(["TS", "TF", "TE"]);

const asObject = (value: unknown) => (value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined);

function routeOf(path: string): { kind: Kind; id: string | null } | null {
  if (/^\/merchant\/v2\/payments\/?$/.test(path)) return { kind: "payment", id: null };
  if (/^\/standard\/v1\/disbursements\/?$/.test(path)) return { kind: "disbursement", id: null };
  const m = /^\/standard\/v1\/(payments|disbursements)\/([^/]+)$/.exec(path);
  return m ? { kind: m[1] === "payments" ? "payment" : "disbursement", id: decodeURIComponent(m[2]!) } : null;
}

const envelope = (success: boolean, resultCode: string, message: string, code = success ? "200" : "400", responseCode?: string) => ({
  status: { code, message, result_code: resultCode, ...(responseCode ? { response_code: responseCode } : {}), success },
});

export async function startFakeAirtel(options: FakeAirtelOptions = {}): Promise<FakeAirtel> {
  const clientId = options.clientId ?? `client-${randomUUID()}`;
  const clientSecret = options.clientSecret ?? `secret-${randomUUID()}`;
  const pin = options.pin ?? `pin-${randomUUID()}`;
  let callbackUrl = options.callbackUrl ?? null;
  const transactions = new Map<string, Transaction>();
  const rules = new Map<string, Rule>();

  const key = (kind: Kind, id: string) => `${kind}:${id.toLowerCase()}`;
  /** A number as a rule's key: the 9 digits Airtel uses. */
  const localNumber = (n: string) => n.replace(/^\+?256/, "");

  function statusOf(t: Transaction): Rule {
    return rules.get(t.id.toLowerCase()) ?? rules.get(t.msisdn) ?? { status: "TIP" };
  }

  function view(t: Transaction) {
    const { status, message } = statusOf(t);
    const text = message ?? (status === "TS" ? "Paid" : status === "TF" ? "Transaction failed" : status === "TE" ? "Transaction expired" : "In process");
    return { ...(status === "TS" ? { airtel_money_id: t.airtelMoneyId } : {}), id: t.id, message: text, status };
  }

  function callBack() {
    for (const t of transactions.values()) {
      const { status } = statusOf(t);
      if (t.calledBack || !callbackUrl || !FINAL.has(status)) continue;
      t.calledBack = true;
      const { airtel_money_id, id, message } = view(t) as { airtel_money_id?: string; id: string; message: string };
      sendCallback(callbackUrl, "POST", { transaction: { id, message, status_code: status, airtel_money_id: airtel_money_id ?? "" } });
    }
  }

  /** Airtel's answer to one request. */
  function handle(req: ReceivedRequest, tokens: FakeTokens): Answer {
    const body = asObject(req.body) ?? {};
    if (req.path === "/auth/oauth2/token") {
      if (req.method !== "POST") return [405];
      if (body.client_id !== clientId || body.client_secret !== clientSecret || body.grant_type !== "client_credentials") {
        return [401, { error_description: "Invalid client authentication", error: "invalid_client" }];
      }
      const { token, lifetimeS } = tokens.issue();
      // Airtel sends expires_in as a string.
      return [200, { access_token: token, expires_in: String(lifetimeS), token_type: "bearer" }];
    }

    const route = routeOf(req.path);
    if (!route) return [404, envelope(false, "ESB000001", "No such resource", "404")];
    if (!tokens.accepts(req.headers.authorization)) return [401, { error: "invalid_token", error_description: "Access token expired or invalid" }];
    if (req.headers["x-country"] !== "UG") return [400, envelope(false, "ROUTER006", "Invalid Country")];
    if (req.headers["x-currency"] !== "UGX") return [400, envelope(false, "ROUTER112", "Invalid Currency")];

    if (route.id !== null) {
      if (req.method !== "GET") return [405];
      const t = transactions.get(key(route.kind, route.id));
      if (!t) return [200, { data: {}, ...envelope(false, "ESB000045", "No Transaction Found With Provided Transaction Id.", "404") }];
      return [200, { data: { transaction: view(t) }, ...envelope(true, "ESB000010", "SUCCESS", "200", "DP00800001001") }];
    }
    if (req.method !== "POST") return [405];
    if (!String(req.headers["content-type"]).startsWith("application/json")) return [415];

    let msisdn: unknown;
    let transaction: Record<string, unknown> | undefined;
    if (route.kind === "payment") {
      const subscriber = asObject(body.subscriber);
      transaction = asObject(body.transaction);
      if (typeof body.reference !== "string" || !body.reference || !subscriber || !transaction) {
        return [400, envelope(false, "ROUTER003", "Missing header/body params")];
      }
      if (subscriber.country !== "UG" || transaction.country !== "UG") return [400, envelope(false, "ESB000034", "Invalid Country Name")];
      if (subscriber.currency !== "UGX" || transaction.currency !== "UGX") return [400, envelope(false, "ESB000035", "Invalid Currency Code")];
      msisdn = subscriber.msisdn;
    } else {
      transaction = asObject(body.transaction);
      const payee = asObject(body.payee);
      if (typeof body.reference !== "string" || !body.reference || !payee || !transaction || typeof body.pin !== "string") {
        return [400, envelope(false, "ROUTER003", "Missing header/body params")];
      }
      if (body.pin !== pin) return [200, envelope(false, "ROUTER115", "Incorrect Pin")];
      msisdn = payee.msisdn;
    }
    if (typeof msisdn !== "string" || !/^7\d{8}$/.test(msisdn)) return [400, envelope(false, "ESB000033", "Invalid MSISDN Length")];
    if (typeof transaction.amount !== "number" || !(transaction.amount > 0) || typeof transaction.id !== "string" || !transaction.id) {
      return [400, envelope(false, "ROUTER003", "Missing header/body params")];
    }
    if (transactions.has(key(route.kind, transaction.id))) {
      return [200, envelope(false, "ESB000041", "External Transaction ID already exists.")];
    }
    const t: Transaction = {
      kind: route.kind,
      id: transaction.id,
      msisdn,
      body,
      airtelMoneyId: `${route.kind === "payment" ? "MP" : "CI"}${Date.now()}.${Math.floor(Math.random() * 1e4)}`,
      calledBack: false,
    };
    transactions.set(key(route.kind, t.id), t);
    setImmediate(callBack);
    return route.kind === "payment"
      ? [200, { data: { transaction: { id: t.id, status: "Success." } }, ...envelope(true, "ESB000010", "SUCCESS", "200", "DP00800001006") }]
      : [
          200,
          {
            data: { transaction: { reference_id: randomUUID(), id: t.id, status: view(t).status } },
            ...envelope(true, "ESB000010", "SUCCESS", "200", "DP00900001001"),
          },
        ];
  }

  const server = await startFakeServer({ tokenPath: "/auth/", tokenLifetimeS: 180, handle });
  const { url } = server;

  return {
    ...server,
    config: { baseUrl: url, clientId, clientSecret, disbursementPin: pin },
    env: { AIRTEL_BASE_URL: url, AIRTEL_CLIENT_ID: clientId, AIRTEL_CLIENT_SECRET: clientSecret, AIRTEL_DISBURSEMENT_PIN: pin },
    setOutcome(rule, status, message) {
      const ruleKey = /^\+?\d+$/.test(rule) ? localNumber(rule) : rule.toLowerCase();
      rules.set(ruleKey, { status: ALIAS[status], message });
      callBack();
    },
    setCallbackUrl(next) {
      callbackUrl = next;
    },
  };
}
