import { useRouteLoaderData } from "@remix-run/react";
import type { loader as rootLoader } from "~/root";
import { formatDate, formatDateTime, formatDay, formatDayTime, formatTime } from "~/utils/dates";
import { formatPrice, formatUgx } from "~/domain/money";
import { formatNumber } from "~/i18n/format";
import { DEFAULT_LOCALE, isLocale } from "~/i18n/locales";

/** Price, number and date formatting in the visitor's chosen currency, time zone and language (from the root loader). */
export function usePreferences() {
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const currency = root?.currency ?? null;
  const zone = root?.timeZone ?? "EAT";
  const locale = isLocale(root?.locale) ? root.locale : DEFAULT_LOCALE;
  return {
    locale,
    price: (ugx: number) => formatPrice(ugx, currency, locale),
    /** Always in shillings, whatever the display currency (amounts the ledger holds: escrow, payouts). */
    ugx: (ugx: number) => formatUgx(ugx, locale),
    number: (n: number, options?: Intl.NumberFormatOptions) => formatNumber(n, locale, options),
    dateTime: (d: Date | string) => formatDateTime(d, zone, locale),
    date: (d: Date | string) => formatDate(d, zone, locale),
    /** "Fri 12 Dec", and with the time "Fri 12 Dec 14:05": for near dates (due dates, recent activity). */
    day: (d: Date | string) => formatDay(d, zone, locale),
    dayTime: (d: Date | string) => formatDayTime(d, zone, locale),
    time: (d: Date | string) => formatTime(d, zone, locale),
  };
}
