/**
 * Africa's Talking's SMS API (its contract: ADR 050), over plain fetch: `POST {base}/version1/messaging` with
 * the `apiKey` header and a form (`username`, `to`, `message`, optional `from`), answered with JSON that has
 * one recipient per number. A recipient's status code says what happened to our one number: 100/101/102 taken,
 * 401–407 refused for good (a bad number, no balance, a blacklist: the same text to the same number would fail
 * again), 500–502 a passing gateway failure. An HTTP 401 means the key is wrong; other HTTP failures and
 * timeouts are retried later. The key never appears in a reason or a log.
 */
import type { SmsCost, SmsOutcome, SmsProvider, SmsRequest } from "./provider.server";
import { SMS_TIMEOUT_MS } from "./provider.server";

export type AfricasTalkingConfig = {
  apiKey: string;
  username: string;
  baseUrl: string;
  /** An approved sender id or short code; without it the gateway's default sender. */
  senderId?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
};

export const AFRICASTALKING_LIVE_URL = "https://api.africastalking.com";
export const AFRICASTALKING_SANDBOX_URL = "https://api.sandbox.africastalking.com";

const ACCEPTED = new Set([100, 101, 102]);
const REFUSED = new Set([401, 402, 403, 404, 405, 406, 407]);

type Recipient = { statusCode?: unknown; status?: unknown; number?: unknown; cost?: unknown; messageId?: unknown };

export function createAfricasTalkingProvider(config: AfricasTalkingConfig): SmsProvider {
  const fetchFn = config.fetch ?? fetch;
  const url = `${config.baseUrl.replace(/\/+$/, "")}/version1/messaging`;
  return {
    name: "africastalking",
    async send(request: SmsRequest): Promise<SmsOutcome> {
      const form = new URLSearchParams({ username: config.username, to: request.to, message: request.message });
      if (config.senderId) form.set("from", config.senderId);
      let status: number;
      let text: string;
      try {
        const response = await fetchFn(url, {
          method: "POST",
          headers: { apiKey: config.apiKey, Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded" },
          body: form.toString(),
          signal: AbortSignal.timeout(config.timeoutMs ?? SMS_TIMEOUT_MS),
        });
        status = response.status;
        text = await response.text();
      } catch (error) {
        const timedOut = error instanceof Error && error.name === "TimeoutError";
        return { outcome: "retry", statusCode: null, reason: timedOut ? "Africa's Talking did not answer in time" : "Africa's Talking could not be reached" };
      }
      if (status === 401)
        return {
          outcome: "retry",
          statusCode: null,
          reason: "Africa's Talking refused the API key (HTTP 401): check AFRICASTALKING_API_KEY and AFRICASTALKING_USERNAME",
        };
      if (status < 200 || status >= 300) return { outcome: "retry", statusCode: null, reason: `Africa's Talking answered HTTP ${status}` };
      const recipient = recipientOf(text, request.to);
      if (!recipient) return { outcome: "retry", statusCode: null, reason: "Africa's Talking's answer named no recipient" };
      const code = Number(recipient.statusCode);
      const said = typeof recipient.status === "string" ? recipient.status.slice(0, 60) : "unknown";
      if (ACCEPTED.has(code) && typeof recipient.messageId === "string" && recipient.messageId) {
        return { outcome: "accepted", messageId: recipient.messageId, statusCode: code, cost: parseCost(recipient.cost) };
      }
      if (REFUSED.has(code)) return { outcome: "refused", statusCode: code, reason: `${code} ${said}` };
      return { outcome: "retry", statusCode: Number.isFinite(code) ? code : null, reason: `${code} ${said}` };
    },
  };
}

/** Our number's recipient in the JSON answer, or null when the answer is not the gateway's shape. */
function recipientOf(text: string, to: string): Recipient | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  const recipients = (body as { SMSMessageData?: { Recipients?: unknown } } | null)?.SMSMessageData?.Recipients;
  if (!Array.isArray(recipients) || recipients.length === 0) return null;
  const list = recipients as Recipient[];
  return list.find((r) => r.number === to) ?? list[0]!;
}

/** "UGX 35.0000" as a currency and an amount; null for anything else ("0", an empty cost). */
export function parseCost(cost: unknown): SmsCost | null {
  const match = typeof cost === "string" ? /^([A-Z]{3})\s+(\d{1,10}(?:\.\d{1,4})?)$/.exec(cost.trim()) : null;
  return match ? { currency: match[1]!, amount: match[2]! } : null;
}
