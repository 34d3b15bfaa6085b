/**
 * A payment provider whose calls are counted (ADR 057): payments (collections) and payouts (disbursements), by
 * call (request or status), provider and outcome. `ok` is a clear answer (accepted, pending, settled either way),
 * `refused` a request turned down for good, `failed` no clear answer (a timeout, a 5xx, a throw).
 */
import { providerCalls } from "~/server/metrics.server";
import type { PaymentProvider, RequestOutcome, TransferStatus } from "./provider.server";

type Outcome = "ok" | "refused" | "failed";
const ofRequest = (r: RequestOutcome): Outcome => (r.outcome === "accepted" ? "ok" : r.outcome === "rejected" ? "refused" : "failed");
const ofStatus = (s: TransferStatus): Outcome => (s.status === "unknown" ? "failed" : "ok");

export function measuredProvider(provider: PaymentProvider): PaymentProvider {
  const counted =
    <A, R>(kind: "payment" | "payout", call: "request" | "status", fn: (arg: A) => Promise<R>, outcome: (r: R) => Outcome) =>
    async (arg: A): Promise<R> => {
      try {
        const result = await fn(arg);
        providerCalls.inc({ kind, call, provider: provider.name, outcome: outcome(result) });
        return result;
      } catch (error) {
        providerCalls.inc({ kind, call, provider: provider.name, outcome: "failed" });
        throw error;
      }
    };
  return {
    name: provider.name,
    requestPayment: counted("payment", "request", (r) => provider.requestPayment(r), ofRequest),
    paymentStatus: counted("payment", "status", (ref) => provider.paymentStatus(ref), ofStatus),
    disburse: counted("payout", "request", (r) => provider.disburse(r), ofRequest),
    disbursementStatus: counted("payout", "status", (ref) => provider.disbursementStatus(ref), ofStatus),
    ...(provider.cancelPayment && { cancelPayment: (ref: string) => provider.cancelPayment!(ref) }),
    callbackReference: (body) => provider.callbackReference(body),
  };
}
