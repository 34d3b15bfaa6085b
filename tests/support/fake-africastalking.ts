/**
 * A local Africa's Talking SMS API on 127.0.0.1, for tests (ADR 050): it checks what the real one checks
 * (`POST /version1/messaging`, the `apiKey` header, a form with `username`, `to` and `message`, a JSON
 * `Accept`) and answers in its shapes: HTTP 401 for a wrong key, and for a good request `SMSMessageData` with
 * one recipient per number, its statusCode, cost and messageId.
 *
 * Every number is Sent (101, "UGX 35.0000") until a rule says otherwise: `setRecipientStatus(number, code)` (403
 * InvalidPhoneNumber, 405 InsufficientBalance, 500 InternalServerError…). The unhappy paths of the transport are
 * the shared controls (`respondNext`, `holdNext`). `report(messageId, status)` posts a delivery report to
 * `callbackUrl` as the gateway does (a form). Everything received is in `requests`; `sent` lists the accepted texts.
 */
import { randomUUID } from "node:crypto";
import { startFakeServer, type FakeServer, type ReceivedRequest } from "./fake-provider-http";

export type { ReceivedRequest };

const STATUS_WORDS: Record<number, string> = {
  100: "Processed",
  101: "Success",
  102: "Queued",
  401: "RiskHold",
  402: "InvalidSenderId",
  403: "InvalidPhoneNumber",
  404: "UnsupportedNumberType",
  405: "InsufficientBalance",
  406: "UserInBlacklist",
  407: "CouldNotRoute",
  500: "InternalServerError",
  501: "GatewayError",
  502: "RejectedByGateway",
};

export type SentText = { messageId: string; to: string; message: string; from: string | null };

export type FakeAfricasTalking = FakeServer & {
  apiKey: string;
  username: string;
  /** The same as AFRICASTALKING_* variables. */
  env: Record<string, string>;
  /** From now on, texts to this number get this recipient status code. */
  setRecipientStatus: (number: string, code: number) => void;
  sent: SentText[];
  /** Posts a delivery report for `messageId` to `callbackUrl`, as the gateway does; resolves to our answer's status. */
  report: (callbackUrl: string, fields: Record<string, string>) => Promise<number>;
};

export async function startFakeAfricasTalking(options: { apiKey?: string; username?: string } = {}): Promise<FakeAfricasTalking> {
  const apiKey = options.apiKey ?? `atsk_${randomUUID().replace(/-/g, "")}`;
  const username = options.username ?? "soko";
  const rules = new Map<string, number>();
  const sent: SentText[] = [];

  function handle(req: ReceivedRequest): [number, unknown?] {
    if (req.method !== "POST" || req.path !== "/version1/messaging") return [404, { error: "Not found" }];
    // The gateway answers a wrong or missing key with HTTP 401 and a plain body.
    if (req.headers.apikey !== apiKey) return [401, "The supplied authentication is invalid"];
    if (!String(req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) return [415, "Unsupported content type"];
    if (!String(req.headers.accept ?? "").includes("application/json")) return [406, "Not acceptable"];
    const form = new URLSearchParams(typeof req.body === "string" ? req.body : "");
    if (form.get("username") !== username) return [401, "The supplied authentication is invalid"];
    const message = form.get("message") ?? "";
    const numbers = (form.get("to") ?? "")
      .split(",")
      .map((n) => n.trim())
      .filter(Boolean);
    if (!message || numbers.length === 0) return [400, "Request is missing required form field"];
    let accepted = 0;
    const recipients = numbers.map((number) => {
      const code = rules.get(number) ?? (/^\+\d{10,15}$/.test(number) ? 101 : 403);
      const ok = code >= 100 && code <= 102;
      const messageId = ok ? `ATXid_${randomUUID().replace(/-/g, "")}` : "None";
      if (ok) {
        accepted++;
        sent.push({ messageId, to: number, message, from: form.get("from") });
      }
      return { statusCode: code, number, status: STATUS_WORDS[code] ?? "Unknown", cost: ok ? "UGX 35.0000" : "0", messageId };
    });
    const total = accepted
      ? `Sent to ${accepted}/${numbers.length} Total Cost: UGX ${(35 * accepted).toFixed(4)}`
      : `Sent to 0/${numbers.length} Total Cost: 0`;
    return [201, { SMSMessageData: { Message: total, Recipients: recipients } }];
  }

  const server = await startFakeServer({ tokenPath: "/__no-token__", tokenLifetimeS: 3600, handle: (req) => handle(req) });
  return {
    ...server,
    apiKey,
    username,
    env: { AFRICASTALKING_API_KEY: apiKey, AFRICASTALKING_USERNAME: username, AFRICASTALKING_BASE_URL: server.url },
    setRecipientStatus: (number, code) => void rules.set(number, code),
    sent,
    report: async (callbackUrl, fields) => {
      const response = await fetch(callbackUrl, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields).toString(),
        signal: AbortSignal.timeout(5000),
      });
      return response.status;
    },
  };
}
