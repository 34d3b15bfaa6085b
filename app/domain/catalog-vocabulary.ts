/**
 * The catalog's vocabulary without zod, for the pages a visitor lands on (browse, search, the gig page): the
 * package tiers and the catalog URL's parameters. zod is 13 KB gzipped, and the gig form (app/schemas/gig.ts, which
 * re-exports all of this) is the only catalog screen that needs it in the browser (page weight: docs/benchmarks.md).
 */

// The package tiers, in a module of their own that the order pages can load without the catalog's words.
export { isUnnamedPackage, TIER_KEY, TIER_LABEL, TIERS, type Tier } from "~/domain/package-tiers";

// A seller's level and a rating as people read it, kept apart so a page can say them without this module's words.
export { LEVELS, LEVEL_KEY, ONE_DECIMAL, sayLevel, type Level } from "~/domain/seller-vocabulary";

/** "Web Development" → "WD", "Graphics & Design" → "GD": a category's badge on the placeholder of a gig without images, and on its cover. */
export function categoryInitials(name: string): string {
  return name
    .split(/\s+/)
    .filter((word) => /^\p{L}/u.test(word))
    .slice(0, 2)
    .map((word) => word[0]!.toUpperCase())
    .join("");
}

// ---- The catalog's URL: /browse and /search read the same parameters. Unknown values are ignored. ----
// Each choice's label is the catalogue key of its words (app/locales/<language>/catalog.json).

export const SORTS = {
  relevance: "catalog.sort.relevance",
  rating: "catalog.sort.rating",
  "price-low": "catalog.sort.priceLow",
  "price-high": "catalog.sort.priceHigh",
  newest: "catalog.sort.newest",
} as const;
export type Sort = keyof typeof SORTS;

/** Price ranges, on the starting (lowest package) price. */
export const PRICE_RANGES = {
  "under-100000": { label: "catalog.price.under100k", min: null, max: 99_999 },
  "100000-500000": { label: "catalog.price.100kTo500k", min: 100_000, max: 500_000 },
  "above-500000": { label: "catalog.price.above500k", min: 500_001, max: null },
} as const;
export type PriceRange = keyof typeof PRICE_RANGES;

export const RATING_FILTERS = { "4.5": "catalog.minRating.4_5", "4": "catalog.minRating.4", "3.5": "catalog.minRating.3_5" } as const;
export type RatingFilter = keyof typeof RATING_FILTERS;

/** Delivery within N days: the gig's fastest package delivers in at most N days. */
export const DELIVERY_FILTERS = { "1": "catalog.delivery.1", "3": "catalog.delivery.3", "7": "catalog.delivery.7" } as const;
export type DeliveryFilter = keyof typeof DELIVERY_FILTERS;

export const QUERY_MAX = 100;

export type CatalogQuery = {
  q: string;
  category: string | null;
  price: PriceRange | null;
  rating: RatingFilter | null;
  delivery: DeliveryFilter | null;
  /** Only gigs of sellers an admin vetted (ADR 051): `vetted=1` in the URL. */
  vetted: boolean;
  sort: Sort;
  cursor: string | null;
};

const pick = <T extends string>(options: Record<T, unknown>, value: string | null): T | null =>
  value !== null && Object.hasOwn(options, value) ? (value as T) : null;

/** Reads the catalog's state from a URL. A value we do not know is ignored, never an error. */
export function parseCatalogQuery(params: URLSearchParams): CatalogQuery {
  // Control characters (a NUL above all) are never part of a search, and Postgres refuses NUL in text.
  const q = (params.get("q") ?? "")
    .replace(/[\u0000-\u001f\u007f]/g, " ")
    .trim()
    .replace(/\s+/g, " ")
    .slice(0, QUERY_MAX);
  const category = params.get("category");
  return {
    q,
    category: category && /^[a-z0-9-]{1,60}$/.test(category) ? category : null,
    price: pick(PRICE_RANGES, params.get("price")),
    rating: pick(RATING_FILTERS, params.get("rating")),
    delivery: pick(DELIVERY_FILTERS, params.get("delivery")),
    vetted: params.get("vetted") === "1",
    sort: pick(SORTS, params.get("sort")) ?? "relevance",
    cursor: params.get("cursor")?.slice(0, 200) ?? null,
  };
}

/** The URL of a catalog state (without the cursor unless given), omitting defaults. */
export function catalogSearch(query: Omit<CatalogQuery, "cursor" | "vetted"> & { cursor?: string | null; vetted?: boolean }): string {
  const params = new URLSearchParams();
  if (query.q) params.set("q", query.q);
  if (query.category) params.set("category", query.category);
  if (query.price) params.set("price", query.price);
  if (query.rating) params.set("rating", query.rating);
  if (query.delivery) params.set("delivery", query.delivery);
  if (query.vetted) params.set("vetted", "1");
  if (query.sort !== "relevance") params.set("sort", query.sort);
  if (query.cursor) params.set("cursor", query.cursor);
  const s = params.toString();
  return s ? `?${s}` : "";
}
