/**
 * Which currency a visitor sees prices in: a signed-in member's stored preference, else the `soko_currency`
 * cookie an anonymous visitor sets, else UGX. USD figures use the stored exchange rate.
 */
import type { SessionUser } from "~/models/session.server";
import { readCookie } from "~/server/cookies.server";
import type { Db } from "~/server/db.server";
import type { Currency, DisplayCurrency } from "~/domain/money";

export const CURRENCY_COOKIE = "soko_currency";

export function currencyFromCookie(request: Request): Currency | null {
  const value = readCookie(request.headers.get("Cookie"), CURRENCY_COOKIE);
  return value === "UGX" || value === "USD" ? value : null;
}

export async function getUgxPerUsd(db: Db): Promise<number> {
  const row = await db("exchange_rates").where({ currency: "USD" }).first("ugx_per_unit");
  return row ? Number(row.ugx_per_unit) : 0;
}

const displayed = new WeakMap<Request, Promise<DisplayCurrency>>();

/** The request's display currency, worked out once per request (the root loader and a page's own ask for it alike). */
export function getDisplayCurrency(db: Db, request: Request, user: SessionUser | null): Promise<DisplayCurrency> {
  let found = displayed.get(request);
  if (!found) {
    const code: Currency = user?.preferredCurrency ?? currencyFromCookie(request) ?? "UGX";
    found = code === "USD" ? getUgxPerUsd(db).then((ugxPerUsd) => ({ code, ugxPerUsd })) : Promise.resolve({ code, ugxPerUsd: 0 });
    displayed.set(request, found);
  }
  return found;
}
