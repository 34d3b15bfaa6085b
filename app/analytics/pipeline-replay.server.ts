/**
 * Replaying the analytics pipeline's failed set (issue 13 item 6), an admin operation: audited as
 * `pipeline.replay`. Kept apart from pipeline-stats.server.ts, which the ingest side imports and which
 * must not pull in the operations layer.
 */
import type { Job, Queue } from "bullmq";
import type { IngestJob } from "~/analytics/events";
import { INGEST_QUEUE } from "~/analytics/events";
import { describeFailed } from "~/analytics/pipeline-stats.server";
import { adminOf, conflict, forbidden, ok, transact, type Actor, type Result } from "~/operations/core.server";

/** At most this many failed jobs are replayed by one click. */
export const REPLAY_MAX = 1_000;

/**
 * Replay: every failed job (at most REPLAY_MAX, oldest failures included) goes back to waiting, where the
 * worker takes it again. Audited (`pipeline.replay`, with the job ids and their events) in a transaction
 * committed before the jobs move (the transaction touches only Postgres); nothing to replay is a conflict.
 */
export async function replayFailed(actor: Actor, queue: Queue<IngestJob>): Promise<Result<{ jobs: number; events: number }>> {
  if (!adminOf(actor)) return forbidden("pipeline.admins_only");
  const jobs = (await queue.getFailed(0, REPLAY_MAX - 1)).filter((job): job is Job<IngestJob> => Boolean(job));
  if (jobs.length === 0) return conflict("pipeline.nothing_failed");
  const described = jobs.map(describeFailed);
  const events = described.reduce((n, job) => n + job.events, 0);
  const audited = await transact(actor, async (tx) => {
    await tx.audit({ action: "pipeline.replay", targetType: "pipeline", targetId: INGEST_QUEUE, details: { jobs: described.map((j) => j.id), events } });
    return ok(null);
  });
  if (!audited.ok) return audited;
  let moved = 0;
  let movedEvents = 0;
  for (const [i, job] of jobs.entries()) {
    // A job another admin replayed a moment ago is no longer failed: retry() refuses it, which is fine.
    try {
      await job.retry("failed", { resetAttemptsMade: true, resetAttemptsStarted: true });
      moved++;
      movedEvents += described[i]!.events;
    } catch {
      /* not failed any more */
    }
  }
  return ok({ jobs: moved, events: movedEvents });
}
