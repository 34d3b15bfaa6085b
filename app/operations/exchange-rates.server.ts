/**
 * The UGX/USD rate (docs/product.md, Money and fees): an admin sets it; USD prices across the site follow it at once
 * (app/server/currency.server.ts reads it on each request, nothing caches it); an order keeps the rate of
 * its checkout (orders.ugx_per_usd), so a change never reprices an order already placed.
 */
import type { Knex } from "knex";
import { adminOf, forbidden, ok, transact, type Actor, type Result } from "~/operations/core.server";
import { getDb, type Db } from "~/server/db.server";
import type { ExchangeRateInput } from "~/schemas/monitoring";

type Options = { db?: Knex };

export type CurrentRate = { ugxPerUsd: number; updatedAt: string };
export type RateChange = { id: number; ugxPerUsd: number; setBy: string; at: string };

/** The rate in force and when it was set (the migration's opening rate has no history row). */
export async function currentUsdRate(db: Db = getDb()): Promise<CurrentRate | null> {
  const row = await db("exchange_rates").where({ currency: "USD" }).first("ugx_per_unit", "updated_at");
  return row ? { ugxPerUsd: Number(row.ugx_per_unit), updatedAt: new Date(row.updated_at).toISOString() } : null;
}

/** Every rate an admin set, newest first, with who set it (a deleted admin's name is gone: "a former admin"). */
export async function usdRateHistory(db: Db = getDb(), limit = 100): Promise<RateChange[]> {
  const rows = await db("exchange_rate_history as h")
    .leftJoin("users as u", "u.id", "h.set_by")
    .where("h.currency", "USD")
    .orderBy([
      { column: "h.created_at", order: "desc" },
      { column: "h.id", order: "desc" },
    ])
    .limit(limit)
    .select("h.id", "h.ugx_per_unit", "h.created_at", "u.name");
  return rows.map((r) => ({
    id: Number(r.id),
    ugxPerUsd: Number(r.ugx_per_unit),
    setBy: r.name ?? "A former admin",
    at: new Date(r.created_at).toISOString(),
  }));
}

/**
 * Sets the UGX per USD rate: exchange_rates, a history row and the audit row (exchange_rate.set, from and
 * to) in one transaction. The row is locked, so two admins setting it at once leave a history in the order
 * their changes took effect.
 */
export async function setUsdRate(
  actor: Actor,
  input: ExchangeRateInput,
  { db }: Options = {},
): Promise<Result<{ ugxPerUsd: number; previous: number | null }>> {
  const admin = adminOf(actor);
  if (!admin) return forbidden("access.admins_only");
  return transact(
    actor,
    async (tx) => {
      const before = await tx.trx("exchange_rates").where({ currency: "USD" }).forUpdate().first("ugx_per_unit");
      const previous = before ? Number(before.ugx_per_unit) : null;
      await tx
        .trx("exchange_rates")
        .insert({ currency: "USD", ugx_per_unit: input.ugxPerUsd, updated_at: tx.trx.fn.now() })
        .onConflict("currency")
        .merge(["ugx_per_unit", "updated_at"]);
      tx.pagesChanged();
      await tx.trx("exchange_rate_history").insert({ currency: "USD", ugx_per_unit: input.ugxPerUsd, set_by: admin.id });
      await tx.audit({ action: "exchange_rate.set", targetType: "exchange_rate", targetId: "USD", details: { from: previous, to: input.ugxPerUsd } });
      return ok({ ugxPerUsd: input.ugxPerUsd, previous });
    },
    { db },
  );
}
