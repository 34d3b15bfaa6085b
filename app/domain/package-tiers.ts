/**
 * A gig's package tiers and their names (re-exported by catalog-vocabulary.ts). Apart, and tiny, because the
 * order pages (checkout, an order's page) need them and nothing else of the catalog's vocabulary.
 */

export const TIERS = ["basic", "standard", "premium"] as const;
export type Tier = (typeof TIERS)[number];
/**
 * A package's name when its seller leaves it unnamed: stored with the gig (and copied to its orders) in English,
 * as it always was, so that rows and the API's `name` stay what they were. Never shown as it is: see isUnnamedPackage.
 * To show a tier to a person, say `t(TIER_KEY[tier])`.
 */
export const TIER_LABEL: Record<Tier, string> = { basic: "Basic", standard: "Standard", premium: "Premium" };
/**
 * Whether a stored package name is its tier's default, a package its seller left unnamed: then readers get the
 * tier's own name in their language instead. Any other name is the seller's words, shown as written.
 */
export const isUnnamedPackage = (tier: Tier, name: string) => name === TIER_LABEL[tier];
/** The tiers' names people read, as catalogue keys (app/locales/<language>/catalog.json). */
export const TIER_KEY: Record<Tier, string> = { basic: "catalog.tier.basic", standard: "catalog.tier.standard", premium: "catalog.tier.premium" };
