/**
 * One interface for every way money comes in or goes out (ADR 015): MTN MoMo, Airtel Money, and the sandbox
 * that stands in for both when no credentials are configured. The order and payout operations speak only
 * this interface; which adapter serves a payment is decided once, when it starts, and stored on its row.
 *
 * Every call names the transfer by OUR reference (a UUID we generate and store before calling), so a call
 * repeated after a timeout asks about the same transfer instead of starting another. Amounts are whole UGX.
 * Numbers are E.164 (+2567XXXXXXXX); each adapter writes them as its provider wants them.
 *
 * A callback is only a hint: `callbackReference` tells which of our transfers it is about, and the operation
 * then asks the provider (`paymentStatus` / `disbursementStatus`) before anything moves.
 */
import type { Network } from "~/domain/mobile-money";

export type { Network };
export type ProviderName = "sandbox" | "mtn" | "airtel";

export type TransferRequest = {
  /** Our UUID for this transfer: MoMo's X-Reference-Id, Airtel's transaction id. */
  reference: string;
  amountUgx: number;
  /** +2567XXXXXXXX */
  msisdn: string;
  /** A short text the payer or payee sees on their phone. */
  description: string;
};

/**
 * What the provider said to a request:
 * - accepted: it is now pending on the provider's side (the payer is being asked, or the transfer runs);
 * - rejected: the provider refused it outright and will not run it (bad number, not allowed) — final;
 * - unknown: no clear answer (timeout, 5xx, a duplicate reference we cannot explain) — ask the status later,
 *   never send the request again under a new reference.
 */
export type RequestOutcome = { outcome: "accepted" } | { outcome: "rejected"; reason: string } | { outcome: "unknown"; reason: string };

/**
 * Where a transfer stands. `failed` is final (declined, expired, insufficient funds); `pending` may still
 * change; `unknown` means the provider could not be asked (try again later), which is never a failure.
 */
export type TransferStatus =
  | { status: "successful"; providerTransactionId: string | null }
  | { status: "failed"; reason: string }
  | { status: "pending" }
  | { status: "unknown"; reason: string };

export interface PaymentProvider {
  readonly name: ProviderName;
  /** Collection: ask the payer's phone to approve paying `amountUgx`. */
  requestPayment(request: TransferRequest): Promise<RequestOutcome>;
  paymentStatus(reference: string): Promise<TransferStatus>;
  /** Disbursement: send `amountUgx` to the payee's wallet (a seller's withdrawal, a buyer's refund). */
  disburse(request: TransferRequest): Promise<RequestOutcome>;
  disbursementStatus(reference: string): Promise<TransferStatus>;
  /**
   * Withdraws a collection's prompt that is still waiting, where the provider allows it (ADR 043): true when
   * withdrawn. MTN MoMo and Airtel Money have no such call, so their adapters leave it out; the caller reads
   * the status back either way.
   */
  cancelPayment?(reference: string): Promise<boolean>;
  /**
   * Which of our transfers a callback body is about, or null when it names none. Nothing in the body is
   * believed beyond that: the caller re-reads the status from the provider.
   */
  callbackReference(body: unknown): string | null;
}

/** Provider requests give up after this long: a slow provider must not hold a checkout for minutes. */
export const PROVIDER_TIMEOUT_MS = 10_000;
