import { useRouteLoaderData } from "@remix-run/react";
import type { loader as rootLoader } from "~/root";
import { formatDate, formatDateTime } from "~/utils/dates";
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
  };
}
