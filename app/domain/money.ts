/**
 * Money display. Amounts are whole Uganda shillings: UGX has no minor unit in use, so there are no decimals.
 * en-US grouping is used on purpose: it is identical in Node and every browser, so server-rendered and
 * hydrated text never differ (en-UG data varies between ICU builds).
 */
import { numberFormat } from "~/i18n/format";
import { DEFAULT_LOCALE, type Locale } from "~/i18n/locales";

/** Constant options: numberFormat finds their formatter by identity. */
const WHOLE: Intl.NumberFormatOptions = { maximumFractionDigits: 0 };
const CENTS: Intl.NumberFormatOptions = { minimumFractionDigits: 2, maximumFractionDigits: 2 };

/** `75000` → `"UGX 75,000"`, grouped as the reader's language groups. Fractions are rounded to the nearest shilling. */
export function formatUgx(amount: number, locale: Locale = DEFAULT_LOCALE): string {
  if (!Number.isFinite(amount)) throw new RangeError(`formatUgx: not a finite amount (${amount})`);
  const rounded = Math.round(amount);
  const sign = rounded < 0 ? "-" : "";
  return `${sign}UGX ${numberFormat(locale, WHOLE).format(Math.abs(rounded))}`;
}

export type Currency = "UGX" | "USD";
export type DisplayCurrency = { code: Currency; ugxPerUsd: number };

/** Sane bounds for shillings per US dollar: a typo (37.5, 375000) is refused rather than repricing the site. */
export const MIN_UGX_PER_USD = 1_000;
export const MAX_UGX_PER_USD = 10_000;

/** A price stored in UGX, shown in the visitor's currency: `"UGX 75,000"` or `"USD 20.27"` at the stored rate. */
export function formatPrice(amountUgx: number, currency: DisplayCurrency | null | undefined, locale: Locale = DEFAULT_LOCALE): string {
  if (!currency || currency.code === "UGX" || !(currency.ugxPerUsd > 0)) return formatUgx(amountUgx, locale);
  return `USD ${numberFormat(locale, CENTS).format(amountUgx / currency.ugxPerUsd)}`;
}

/**
 * The currency an order's amounts are shown in: in USD at the rate fixed at its checkout (orders.ugx_per_usd),
 * not today's; an order without one (or a reader in UGX) as the reader's currency says.
 */
export function orderCurrency(display: DisplayCurrency | null | undefined, orderUgxPerUsd: number): DisplayCurrency | null | undefined {
  return display?.code === "USD" && orderUgxPerUsd > 0 ? { code: "USD", ugxPerUsd: orderUgxPerUsd } : display;
}
