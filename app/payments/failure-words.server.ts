/**
 * What a member reads when a payment or payout fails (ADR 047): the providers' reasons are diagnoses in English
 * for us ("The payer declined (APPROVAL_REJECTED)", "Airtel Money refused our credentials (HTTP 401)"), stored as
 * they are; the member reads the `ops.reason.*` words for the case, in their language: by the provider's code at
 * the end of the reason, by the sandbox's and our own sentences, else that the provider did not complete it.
 */
import { sayStored, type Said } from "~/content/operation-messages";
import type { Locale } from "~/i18n/locales";

/** MTN MoMo's and Airtel Money's codes of a refusal a member can act on. */
const BY_CODE: Record<string, string> = {
  APPROVAL_REJECTED: "ops.reason.declined",
  EXPIRED: "ops.reason.notApprovedInTime",
  COULD_NOT_PERFORM_TRANSACTION: "ops.reason.notApprovedInTime",
  TRANSACTION_CANCELED: "ops.reason.cancelled",
  NOT_ENOUGH_FUNDS: "ops.reason.notEnoughMoney",
  PAYER_LIMIT_REACHED: "ops.reason.walletLimit",
  PAYER_NOT_FOUND: "ops.reason.noWallet",
  PAYEE_NOT_FOUND: "ops.reason.noWallet",
  INVALID_PAYER: "ops.reason.cannotPay",
  ESB000033: "ops.reason.noWallet",
  ESB000036: "ops.reason.noWallet",
};

/** The sandbox's reasons and ours, word for word. */
const BY_TEXT: Record<string, string> = {
  "Declined on the phone": "ops.reason.declined",
  "Replaced by a newer prompt": "ops.reason.replaced",
  "Not found at the provider": "ops.reason.notFoundAtProvider",
  "Airtel Money: not approved in time": "ops.reason.notApprovedInTime",
  "Payments are not available": "ops.reason.paymentsUnavailable",
  "No answer from the provider for a day": "ops.reason.noProviderAnswer",
};

/** A provider's (or our) reason for a failed transfer: stored in English as it is, read as its case's words. */
export function failureWords(reason: string): Said {
  const code = /\(([A-Z][A-Z0-9_]+)\)$/.exec(reason)?.[1];
  return { key: BY_TEXT[reason] ?? (code && BY_CODE[code]) ?? "ops.reason.providerRefused", english: reason };
}

/**
 * A failed transfer's stored reason in the reader's language: by the key stored with it, or, for a row written
 * before keys were stored (its English alone), by what failureWords reads from that English. Null stays null.
 */
export function failureIn(reason: string | null, said: Said | null, locale: Locale): string | null {
  return reason === null ? null : sayStored(reason, said ?? failureWords(reason), locale);
}
