/**
 * Replaying the analytics pipeline's dead letters (ADR 036), an admin operation: audited as `pipeline.replay`.
 * Kept apart from pipeline-stats.server.ts, which the ingest side imports and which must not pull in the
 * operations layer.
 */
import type { Redis } from "ioredis";
import { deadLetters, replayDeadLetters } from "~/analytics/ingest-stream.server";
import { adminOf, conflict, forbidden, ok, transact, type Actor, type Result } from "~/operations/core.server";

/** At most this many dead letters are replayed by one click. */
export const REPLAY_MAX = 1_000;

/**
 * Replay: the dead letters (at most REPLAY_MAX, oldest first) go back into the ingest stream, where the
 * worker reads them again: what ClickHouse now takes goes in, the rest comes back to the dead letters.
 * Audited (`pipeline.replay`, with the entries' ids and their events) in a transaction committed before the
 * entries move (the transaction touches only Postgres); nothing to replay is a conflict.
 */
export async function replayFailed(actor: Actor, redis: Redis, prefix: string): Promise<Result<{ entries: number; events: number }>> {
  if (!adminOf(actor)) return forbidden("pipeline.admins_only");
  const failed = await deadLetters(redis, prefix, { limit: REPLAY_MAX, newest: false });
  if (failed.length === 0) return conflict("pipeline.nothing_failed");
  const events = failed.reduce((n, entry) => n + entry.events, 0);
  const audited = await transact(actor, async (tx) => {
    await tx.audit({ action: "pipeline.replay", targetType: "pipeline", targetId: "analytics-ingest", details: { entries: failed.map((e) => e.id), events } });
    return ok(null);
  });
  if (!audited.ok) return audited;
  // An entry another admin replayed a moment ago is no longer there: it is not moved twice.
  const moved = new Set(
    await replayDeadLetters(
      redis,
      prefix,
      failed.map((e) => e.id),
    ),
  );
  return ok({ entries: moved.size, events: failed.reduce((n, e) => n + (moved.has(e.id) ? e.events : 0), 0) });
}
