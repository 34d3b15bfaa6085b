/**
 * Ugandan mobile-money numbers, shared by the server and the browser: how a typed number is read, and which
 * network it belongs to. MTN and Airtel together hold nearly every wallet in Uganda.
 */
export type Network = "mtn" | "airtel";
/** The networks' own product names: the same in every language. */
export const NETWORK_LABEL: Record<Network, string> = { mtn: "MTN Mobile Money", airtel: "Airtel Money" };

/** A number that is not a Ugandan mobile number, as a message key (app/locales/<language>/orders.json). */
export const MSISDN_MESSAGE = "orders.form.msisdnFormat";

/**
 * A typed number as E.164 (+2567XXXXXXXX): spaces, dashes and dots are dropped, and the local forms
 * 07XXXXXXXX and 2567XXXXXXXX are accepted. Anything else is returned cleaned but unchanged, to fail the check.
 */
export function normaliseMsisdn(typed: string): string {
  const s = typed.replace(/[\s().-]/g, "");
  if (/^07\d{8}$/.test(s)) return `+256${s.slice(1)}`;
  if (/^2567\d{8}$/.test(s)) return `+${s}`;
  return s;
}

/**
 * The network a number belongs to, from its prefix: MTN 076–079, Airtel 070, 074, 075. Null when the
 * prefix is neither's (the payer chooses).
 */
export function guessNetwork(msisdn: string): Network | null {
  const m = /^\+2567(\d)\d{7}$/.exec(normaliseMsisdn(msisdn));
  if (!m) return null;
  if ("6789".includes(m[1]!)) return "mtn";
  if ("045".includes(m[1]!)) return "airtel";
  return null;
}

/**
 * The network a payment goes to. `offered` is the network the form showed chosen when it was drawn: a radio
 * still on it may only mean the payer never touched it (without JavaScript it does not follow the typed
 * number), so the number's own network wins; a radio the payer moved is their choice. Without `offered`
 * (a client that names the network itself) the choice stands.
 */
export function resolveNetwork(msisdn: string, network: Network, offered?: string | null): Network {
  if (offered !== network) return network;
  return guessNetwork(msisdn) ?? network;
}

/** `+256772123456` → `****3456`: enough for the member to know their number, too little to copy it. */
export function maskMsisdn(msisdn: string): string {
  return `****${msisdn.slice(-4)}`;
}

/** The notification that tells a member their payout number changed; it leads to Settings → Billing. */
export const PAYOUT_NUMBER_NOTIFICATION = "payout_number_changed";

/** How long withdrawals to a newly set payout number wait (ADR 032). */
export const PAYOUT_NUMBER_HOLD_MS = 24 * 60 * 60 * 1000;

/** Until when withdrawals to a payout number set at `setAt` wait, or null when they do not (any more). */
export function payoutHoldUntil(setAt: Date | string | null, now: Date = new Date()): Date | null {
  if (!setAt) return null;
  const until = new Date(new Date(setAt).getTime() + PAYOUT_NUMBER_HOLD_MS);
  return until > now ? until : null;
}
