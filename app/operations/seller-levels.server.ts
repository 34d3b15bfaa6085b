/**
 * Seller levels and response times, recomputed by the platform from what happened (ADR 049; the rules are in
 * app/domain/seller-levels.ts, the figures in app/models/seller-stats.server.ts):
 * - when an order completes or is cancelled after payment, and when a dispute is resolved: a `recompute_level`
 *   effect after the commit (queueLevelRecompute), carried out by the worker's effects runner;
 * - every day, for every seller (recomputeAllLevels, worker/levels-job.server.ts), so that windows that moved
 *   on (a rating older than 60 days, an account that came of age) count too.
 * A level can rise or drop; either way the seller is told (a notification, pushed to their open pages).
 *
 * Races: the recomputation locks the seller's row first and reads the figures after, each statement seeing
 * what has committed by then. Two recomputations of one seller run one after the other, the second reading
 * what the first could not have seen; an order completed while one runs queues its own recomputation, which
 * runs after that completion has committed and so stores the level the committed data gives.
 */
import type { Knex } from "knex";
import { insertNotification, sayNotice, type Notice } from "~/models/notification.server";
import { sellerFigures } from "~/models/seller-stats.server";
import * as users from "~/models/user.server";
import { forbidden, notFound, ok, transact, type Actor, type Result, type Tx } from "~/operations/core.server";
import { preferencesOf, pushUnreadCount } from "~/operations/notifications.server";
import { getDb } from "~/server/db.server";
import { isHigher, LEVEL_NOTIFICATION, levelFor, medianResponseHours, SELLER_LEVELS, type SellerLevel } from "~/domain/seller-levels";

type Options = { db?: Knex };

/**
 * Queues a recomputation of the seller's level once this transaction has committed, at most once per event:
 * `because` names it (`order:12:completed`, `review:7:deleted`). For every operation whose change a level
 * depends on (orders, disputes, reviews).
 */
export async function queueLevelRecompute(tx: Tx, sellerId: number, because: string) {
  await tx.effect({ kind: "recompute_level", userId: sellerId }, `recompute_level:${sellerId}:${because}`);
}

export type LevelOutcome = { level: SellerLevel | "member"; previous: SellerLevel | "member"; responseTimeHours: number | null; changed: boolean };

const isSellerLevel = (level: string): level is SellerLevel => (SELLER_LEVELS as readonly string[]).includes(level);

/**
 * Measures one seller as of `now` (the clock by default) and stores their level and response time; tells them
 * when the level changed. A member who is not a freelancer keeps `member`, untouched.
 */
export async function recomputeSellerLevel(actor: Actor, input: { userId: number; now?: Date }, { db }: Options = {}): Promise<Result<LevelOutcome>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "recompute_levels" });
  const now = input.now ?? new Date();
  return transact<LevelOutcome>(
    actor,
    async (tx) => {
      const before = await users.lockLevel(tx.trx, input.userId);
      if (!before) return notFound();
      if (before.role !== "freelancer") return ok({ level: before.level, previous: before.level, responseTimeHours: null, changed: false });
      const figures = (await sellerFigures(tx.trx, input.userId, now))!;
      const level = levelFor(figures);
      const responseTimeHours = medianResponseHours(figures.replyHours);
      const changed = level !== before.level;
      if (!changed && responseTimeHours === before.responseTimeHours) {
        return ok({ level, previous: before.level, responseTimeHours, changed });
      }
      await users.setLevel(tx.trx, input.userId, { level, responseTimeHours });
      tx.pagesChanged(); // the level and response time show on the seller's gigs and profile
      if (changed) {
        const rose = !isSellerLevel(before.level) || isHigher(level, before.level);
        await tx.activity(input.userId, "level_changed", { from: before.level, to: level });
        const notice: Notice = { key: rose ? "notify.levels.rose" : "notify.levels.dropped", values: { level } };
        await insertNotification(tx.trx, { userId: input.userId, kind: LEVEL_NOTIFICATION, notice });
        const reader = await preferencesOf(tx, input.userId);
        const body = sayNotice(notice, reader?.language);
        await pushUnreadCount(tx, input.userId, { kind: LEVEL_NOTIFICATION, body, orderId: null, conversationId: null });
      }
      return ok({ level, previous: before.level, responseTimeHours, changed });
    },
    { db },
  );
}

/** How many sellers are read per round of the daily recomputation. */
const BATCH = 200;

/**
 * The daily round: every freelancer, each in their own short transaction (a seller's lock is held only while
 * they are measured). Answers how many were measured and how many changed level.
 */
export async function recomputeAllLevels(
  actor: Actor,
  input: { now?: Date } = {},
  { db = getDb() }: Options = {},
): Promise<Result<{ sellers: number; changed: number }>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "recompute_levels" });
  let after = 0;
  let sellers = 0;
  let changed = 0;
  for (;;) {
    const ids: number[] = (await db("users").where({ role: "freelancer" }).andWhere("id", ">", after).orderBy("id").limit(BATCH).pluck("id")).map(Number);
    for (const userId of ids) {
      const result = await recomputeSellerLevel(actor, { userId, now: input.now }, { db });
      if (!result.ok) continue; // deleted in the meantime
      sellers++;
      if (result.value.changed) changed++;
    }
    if (ids.length < BATCH) return ok({ sellers, changed });
    after = ids[ids.length - 1]!;
  }
}
