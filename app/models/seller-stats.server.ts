/**
 * A seller's figures for their level (ADR 049, rules in app/domain/seller-levels.ts), read from what happened:
 * orders, the ledger, reviews and conversations, as of `now` (a test or a script may pass an earlier or later
 * clock). Reads only; the recomputation that stores the level is app/operations/seller-levels.server.ts.
 */
import {
  nextLevel,
  requirementsOf,
  RESPONSE_ANSWERED_HOURS,
  RESPONSE_WINDOW_DAYS,
  type Requirement,
  type SellerLevel,
  type SellerStats,
} from "~/domain/seller-levels";
import type { Db } from "~/server/db.server";

const DAY_MS = 24 * 60 * 60 * 1000;
/** The window of the rating, on-time and completion rates, as Fiverr's. */
export const RATES_WINDOW_DAYS = 60;

export type SellerFigures = SellerStats & {
  /** The hours to the seller's first reply in each buyer-started conversation of the window (Infinity: none yet). */
  replyHours: number[];
};

const rate = (good: number, total: number) => (total > 0 ? good / total : null);

/** The seller's figures as of `now`; null when there is no such member. */
export async function sellerFigures(db: Db, userId: number, now: Date): Promise<SellerFigures | null> {
  const user = await db("users").where({ id: userId }).first("created_at");
  if (!user) return null;
  const ratesSince = new Date(now.getTime() - RATES_WINDOW_DAYS * DAY_MS);
  const [orders, earned, rating, closed, replies] = await Promise.all([
    db.raw(
      `SELECT count(*) FILTER (WHERE o.completed_at <= :now) AS completed,
              count(*) FILTER (WHERE o.completed_at > :since AND o.completed_at <= :now AND d.first_at IS NOT NULL) AS delivered,
              count(*) FILTER (WHERE o.completed_at > :since AND o.completed_at <= :now AND d.first_at <= o.due_at) AS on_time
         FROM orders o
         LEFT JOIN LATERAL (SELECT min(created_at) AS first_at FROM deliveries WHERE order_id = o.id) d ON true
        WHERE o.seller_id = :userId AND o.status = 'completed'`,
      { userId, now, since: ratesSince },
    ),
    // What the ledger released to the seller: every credit of their pending balance (a completion's release,
    // a split's part), after the seller fee.
    db.raw(
      `SELECT coalesce(sum(e.amount_ugx), 0) AS total
         FROM ledger_entries e
         JOIN ledger_accounts a ON a.id = e.account_id
         JOIN ledger_journals j ON j.id = e.journal_id
        WHERE a.kind = 'seller_pending' AND a.user_id = :userId AND e.amount_ugx > 0 AND j.created_at <= :now`,
      { userId, now },
    ),
    db.raw(
      `SELECT avg(r.rating) AS average
         FROM reviews r JOIN gigs g ON g.id = r.gig_id
        WHERE g.seller_id = :userId AND r.hidden_at IS NULL AND r.created_at > :since AND r.created_at <= :now`,
      { userId, now, since: ratesSince },
    ),
    // Orders closed in the window after being paid: completed (unless a dispute took money back), or cancelled.
    db.raw(
      `SELECT count(*) AS closed,
              count(*) FILTER (WHERE o.status = 'completed' AND NOT EXISTS (
                SELECT 1 FROM disputes d WHERE d.order_id = o.id AND d.status = 'resolved' AND d.refund_ugx > 0)) AS kept
         FROM orders o
        WHERE o.seller_id = :userId AND o.paid_at IS NOT NULL
          AND ((o.status = 'completed' AND o.completed_at > :since AND o.completed_at <= :now)
            OR (o.status = 'cancelled' AND o.cancelled_at > :since AND o.cancelled_at <= :now))`,
      { userId, now, since: ratesSince },
    ),
    // Conversations a buyer started (their first message is not the seller's) in the window, and the seller's
    // first reply to each.
    db.raw(
      `SELECT f.created_at AS started_at,
              (SELECT min(m.created_at) FROM messages m
                WHERE m.conversation_id = f.conversation_id AND m.sender_id = :userId AND m.id > f.id AND m.created_at <= :now) AS replied_at
         FROM conversation_participants p
         JOIN LATERAL (SELECT id, sender_id, created_at, conversation_id FROM messages
                        WHERE conversation_id = p.conversation_id ORDER BY id LIMIT 1) f ON true
        WHERE p.user_id = :userId AND f.sender_id <> :userId
          AND f.created_at > :since AND f.created_at <= :now`,
      { userId, now, since: new Date(now.getTime() - RESPONSE_WINDOW_DAYS * DAY_MS) },
    ),
  ]);
  const o = orders.rows[0];
  const c = closed.rows[0];
  const answeredMs = RESPONSE_ANSWERED_HOURS * 60 * 60 * 1000;
  const conversations = (replies.rows as { started_at: Date; replied_at: Date | null }[]).map((r) => ({
    hours: r.replied_at ? (r.replied_at.getTime() - r.started_at.getTime()) / 3_600_000 : Infinity,
    // Unanswered and less than a day old: it may still be answered in time, so it is not counted yet.
    open: !r.replied_at && now.getTime() - r.started_at.getTime() < answeredMs,
  }));
  const decided = conversations.filter((r) => !r.open);
  const average = rating.rows[0].average;
  return {
    accountAgeDays: Math.max(0, Math.floor((now.getTime() - new Date(user.created_at).getTime()) / DAY_MS)),
    completedOrders: Number(o.completed),
    earnedUgx: Number(earned.rows[0].total),
    rating60d: average === null ? null : Number(average),
    onTimeRate: rate(Number(o.on_time), Number(o.delivered)),
    responseRate: rate(decided.filter((r) => r.hours <= RESPONSE_ANSWERED_HOURS).length, decided.length),
    completionRate: rate(Number(c.kept), Number(c.closed)),
    replyHours: decided.map((r) => r.hours),
  };
}

/** What the seller's dashboard shows (ADR 049): their level and, for the next one, each criterion's have and need. */
export type LevelProgress = { level: SellerLevel; next: Exclude<SellerLevel, "new"> | null; requirements: Requirement[] };

/** The progress of a seller whose stored level is `level`, as of `now`; null when there is no such member. */
export async function levelProgress(db: Db, userId: number, level: SellerLevel, now: Date): Promise<LevelProgress | null> {
  const next = nextLevel(level);
  if (!next) return { level, next, requirements: [] };
  const figures = await sellerFigures(db, userId, now);
  return figures ? { level, next, requirements: requirementsOf(figures, next) } : null;
}
