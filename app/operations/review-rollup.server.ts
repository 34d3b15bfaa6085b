/**
 * What follows every change to a gig's reviews (a review written, changed, deleted, hidden or shown again), in
 * the change's own transaction: the gig's and its seller's rating and count rolled up again from the visible
 * reviews (gig_search's copies follow by its trigger), the anonymous page cache dropped after the commit (ADR
 * 019), and the seller's level looked at again. Each review operation calls reviewsChanged once.
 */
import { randomUUID } from "node:crypto";
import { rollUpRatings } from "~/models/review.server";
import type { Tx } from "~/operations/core.server";
import { queueLevelRecompute } from "~/operations/seller-levels.server";

export async function reviewsChanged(tx: Tx, gig: { id: number; sellerId: number }) {
  await rollUpRatings(tx.trx, { gigId: gig.id, sellerId: gig.sellerId });
  tx.pagesChanged();
  await sellerLevelMayChange(tx, gig.sellerId);
}

/**
 * The average rating is one of a level's criteria: the seller is measured again after the commit. Every change is
 * its own event (a review may be changed, hidden and shown again), so each gets a key of its own.
 */
async function sellerLevelMayChange(tx: Tx, sellerId: number): Promise<void> {
  await queueLevelRecompute(tx, sellerId, `review:${randomUUID()}`);
}
