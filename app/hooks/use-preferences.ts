import { useRouteLoaderData } from "@remix-run/react";
import type { loader as rootLoader } from "~/root";
import { formatDate, formatDateTime, formatDay, formatDayTime } from "~/utils/dates";
import { formatPrice } from "~/domain/money";

/** Price and date formatting in the visitor's chosen currency and time zone (from the root loader). */
export function usePreferences() {
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const currency = root?.currency ?? null;
  const zone = root?.timeZone ?? "EAT";
  return {
    price: (ugx: number) => formatPrice(ugx, currency),
    dateTime: (d: Date | string) => formatDateTime(d, zone),
    date: (d: Date | string) => formatDate(d, zone),
    /** "Fri 12 Dec", and with the time "Fri 12 Dec 14:05": for near dates (due dates, recent activity). */
    day: (d: Date | string) => formatDay(d, zone),
    dayTime: (d: Date | string) => formatDayTime(d, zone),
  };
}
