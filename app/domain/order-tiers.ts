import type { Tier } from "~/domain/catalog-vocabulary";

/**
 * The package tiers' names on the order pages (checkout, an order's page), from the `orders` catalogue those pages
 * send (ADR 047), for a package its seller left unnamed (isUnnamedPackage); a name the seller gave is shown as written.
 */
export const ORDER_TIER_KEY: Record<Tier, string> = { basic: "orders.tier.basic", standard: "orders.tier.standard", premium: "orders.tier.premium" };
