/**
 * One interface for sending texts (ADR 050), like the payment providers' (ADR 015): Africa's Talking when
 * AFRICASTALKING_API_KEY is set, otherwise the sandbox, whose texts stay in our table and show on /dev/outbox.
 * The SMS operations speak only this interface; the provider's name is stored on each text it sent.
 *
 * Numbers are E.164 (+2567XXXXXXXX). A send never throws: what the gateway said comes back as an outcome.
 */
export type SmsProviderName = "sandbox" | "africastalking";

export type SmsRequest = {
  /** +2567XXXXXXXX */
  to: string;
  message: string;
};

/** What the gateway charged for a text, as it reported it ("UGX 35.0000"). */
export type SmsCost = { currency: string; amount: string };

/**
 * What the gateway said to one text:
 * - accepted: it took the text (Processed, Sent or Queued); `messageId` names it in delivery reports;
 * - refused: it will not send this text to this number (a bad number, no balance, a blacklist): final, never
 *   sent again as it is;
 * - retry: no clear answer or a passing failure (a gateway error, a timeout, a bad key): try again later.
 */
export type SmsOutcome =
  | { outcome: "accepted"; messageId: string; statusCode: number; cost: SmsCost | null }
  | { outcome: "refused"; statusCode: number; reason: string }
  | { outcome: "retry"; statusCode: number | null; reason: string };

/** A delivery report as the gateway posts it: which of its messages, and what became of it. */
export type DeliveryReport = { messageId: string; status: string; failureReason: string | null };

export interface SmsProvider {
  readonly name: SmsProviderName;
  send(request: SmsRequest): Promise<SmsOutcome>;
}

/** A send gives up after this long: a slow gateway must not hold the worker's effects for minutes. */
export const SMS_TIMEOUT_MS = 10_000;

/** The delivery states Africa's Talking reports (ADR 050); anything else in a report is refused. */
export const DELIVERY_STATES = ["Sent", "Submitted", "Buffered", "Rejected", "Success", "Failed", "AbsentSubscriber", "Expired"] as const;

/** A report's form fields as a report, or null when they do not name a message and a known state. */
export function parseDeliveryReport(form: Record<string, unknown>): DeliveryReport | null {
  const messageId = typeof form.id === "string" ? form.id.trim() : "";
  const status = typeof form.status === "string" ? form.status.trim() : "";
  if (!messageId || messageId.length > 100 || !(DELIVERY_STATES as readonly string[]).includes(status)) return null;
  const reason = typeof form.failureReason === "string" && form.failureReason.trim() ? form.failureReason.trim().slice(0, 100) : null;
  return { messageId, status, failureReason: reason };
}
