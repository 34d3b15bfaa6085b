/**
 * Seller levels earned from real work (ADR 049): New Seller, Level One, Level Two and Top Rated, each with its
 * thresholds, and the rule that a seller holds the highest level whose every threshold they meet. Pure: the
 * figures come from app/models/seller-stats.server.ts, the recomputation is app/operations/seller-levels.server.ts.
 * Also the response time's words ("within 1 hour"…), which the profile, the gig page and the API share.
 */

/** The kind of the notification that tells a seller their level changed (it links to their dashboard's panel). */
export const LEVEL_NOTIFICATION = "level_changed";

/** The levels a seller can earn, lowest first (users.level's seller codes; a client or admin is `member`). */
export const SELLER_LEVELS = ["new", "level_1", "level_2", "top_rated"] as const;
export type SellerLevel = (typeof SELLER_LEVELS)[number];

/**
 * What the rules read of a seller. A rate is a share between 0 and 1, or null when there was nothing to
 * measure in its window (no reviews, no closed orders, no buyer conversations): nothing then counts against them.
 */
export type SellerStats = {
  accountAgeDays: number;
  completedOrders: number;
  /** What the ledger released to the seller (their part of completed orders, after the seller fee), in UGX. */
  earnedUgx: number;
  /** The average rating of the reviews written in the last 60 days. */
  rating60d: number | null;
  /** Completed orders of the last 60 days delivered by their due time, of those completed. */
  onTimeRate: number | null;
  /** Buyer-started conversations of the last 30 days answered within 24 hours, of those that could be. */
  responseRate: number | null;
  /** Orders of the last 60 days completed without a lost dispute, of those completed or cancelled after payment. */
  completionRate: number | null;
};

export type Criterion = "accountAge" | "completedOrders" | "earned" | "rating" | "onTime" | "response" | "completion";
export const CRITERIA: readonly Criterion[] = ["accountAge", "completedOrders", "earned", "rating", "onTime", "response", "completion"];

type Thresholds = Record<Criterion, number>;

/**
 * The thresholds of each level above New Seller, modelled on Fiverr's (ADR 049 says how they were adapted):
 * days on the platform, completed orders, UGX earned, and the least rating and rates.
 */
export const LEVEL_THRESHOLDS: Record<Exclude<SellerLevel, "new">, Thresholds> = {
  level_1: { accountAge: 60, completedOrders: 10, earned: 1_000_000, rating: 4.7, onTime: 0.9, response: 0.9, completion: 0.9 },
  level_2: { accountAge: 120, completedOrders: 50, earned: 5_000_000, rating: 4.7, onTime: 0.9, response: 0.9, completion: 0.9 },
  top_rated: { accountAge: 180, completedOrders: 100, earned: 40_000_000, rating: 4.7, onTime: 0.9, response: 0.9, completion: 0.9 },
};

/** The seller's figure for a criterion (null: not measured, which meets any threshold). */
export function figureOf(stats: SellerStats, criterion: Criterion): number | null {
  switch (criterion) {
    case "accountAge":
      return stats.accountAgeDays;
    case "completedOrders":
      return stats.completedOrders;
    case "earned":
      return stats.earnedUgx;
    case "rating":
      return stats.rating60d;
    case "onTime":
      return stats.onTimeRate;
    case "response":
      return stats.responseRate;
    case "completion":
      return stats.completionRate;
  }
}

/** One criterion of a level: what the seller has, what the level needs, and whether it is met. */
export type Requirement = { criterion: Criterion; have: number | null; need: number; met: boolean };

export function requirementsOf(stats: SellerStats, level: Exclude<SellerLevel, "new">): Requirement[] {
  const needs = LEVEL_THRESHOLDS[level];
  return CRITERIA.map((criterion) => {
    const have = figureOf(stats, criterion);
    // A rate nudged by floating point (0.8999999) still meets 90%.
    return { criterion, have, need: needs[criterion], met: have === null || have + 1e-9 >= needs[criterion] };
  });
}

/** The highest level whose every threshold the seller meets (a level above is never kept for one below missed). */
export function levelFor(stats: SellerStats): SellerLevel {
  let level: SellerLevel = "new";
  for (const next of SELLER_LEVELS.slice(1) as Exclude<SellerLevel, "new">[]) {
    if (!requirementsOf(stats, next).every((r) => r.met)) break;
    level = next;
  }
  return level;
}

/** The level after this one, or null at Top Rated. */
export function nextLevel(level: SellerLevel): Exclude<SellerLevel, "new"> | null {
  const i = SELLER_LEVELS.indexOf(level);
  return i >= 0 && i < SELLER_LEVELS.length - 1 ? (SELLER_LEVELS[i + 1] as Exclude<SellerLevel, "new">) : null;
}

/** Whether `a` is a higher level than `b`. */
export const isHigher = (a: SellerLevel, b: SellerLevel) => SELLER_LEVELS.indexOf(a) > SELLER_LEVELS.indexOf(b);

// ---- Response time ----

/** Below this many buyer-started conversations in the window, no response time is shown. */
export const RESPONSE_MIN_CONVERSATIONS = 3;
export const RESPONSE_WINDOW_DAYS = 30;
/** A first reply within this long counts as answered for the response rate. */
export const RESPONSE_ANSWERED_HOURS = 24;

/**
 * The median of the hours to a first reply, rounded up to whole hours (what users.response_time_hours holds),
 * or null below the minimum or when most of the conversations were not answered at all (Infinity).
 */
export function medianResponseHours(replyHours: number[]): number | null {
  if (replyHours.length < RESPONSE_MIN_CONVERSATIONS) return null;
  const sorted = [...replyHours].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const median = Number.isInteger(mid) ? (sorted[mid - 1]! + sorted[mid]!) / 2 : sorted[Math.floor(mid)]!;
  if (!Number.isFinite(median)) return null;
  return Math.max(1, Math.ceil(median - 1e-9));
}

export const RESPONSE_WORDS = ["hour", "hours", "day"] as const;
export type ResponseWords = (typeof RESPONSE_WORDS)[number];

/** "within 1 hour" (≤ 1), "within a few hours" (≤ 6), "within a day" (≤ 24), or nothing (null). */
export function responseWords(hours: number | null): ResponseWords | null {
  if (hours === null) return null;
  if (hours <= 1) return "hour";
  if (hours <= 6) return "hours";
  if (hours <= 24) return "day";
  return null;
}
