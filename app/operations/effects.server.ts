/**
 * The after-commit effects' own bookkeeping, for the worker (worker/effects-runner.server.ts), which is the only
 * actor allowed to take them: a row is leased, carried out, and marked done; a failure waits a doubling
 * pause and is tried again, at least once in all, until it is given up and kept for an admin to see.
 */
import type { Knex } from "knex";
import { forbidden, ok, type Actor, type Effect, type Result } from "~/operations/core.server";
import { getDb } from "~/server/db.server";

/** `requestId`: the request that queued it (ADR 057), for the worker's log lines while it runs. */
export type DueEffect = { id: number; effect: Effect; attempts: number; requestId: string | null };

const interval = (db: Knex, ms: number) => db.raw("?::interval", [`${Math.round(ms)} milliseconds`]);
const onlySystem = (actor: Actor) => (actor.kind === "system" ? null : forbidden("access.platform_only", { task: "carry_out_effects" }));

/**
 * Takes up to `limit` due effects, oldest first, each leased for `leaseMs` (no other worker takes it
 * meanwhile; if this one dies, the lease runs out and it is taken again) with its attempt counted.
 */
export async function claimDueEffects(
  actor: Actor,
  { limit = 20, leaseMs = 60_000 }: { limit?: number; leaseMs?: number } = {},
  db: Knex = getDb(),
): Promise<Result<DueEffect[]>> {
  const refused = onlySystem(actor);
  if (refused) return refused;
  const due = db("effects")
    .select("id")
    .whereNull("done_at")
    .whereNull("failed_at")
    .andWhere("run_after", "<=", db.fn.now())
    .andWhere((q) => q.whereNull("locked_until").orWhere("locked_until", "<=", db.fn.now()))
    .orderBy([{ column: "run_after" }, { column: "id" }])
    .limit(limit)
    .forUpdate()
    .skipLocked();
  const rows = await db("effects")
    .whereIn("id", due)
    .update({ attempts: db.raw("attempts + 1"), locked_until: db.raw("now() + ?", [interval(db, leaseMs)]) })
    .returning(["id", "kind", "payload", "attempts", "request_id"]);
  return ok(
    rows
      .map((r) => ({
        id: Number(r.id),
        attempts: Number(r.attempts),
        effect: { kind: r.kind, ...(r.payload as object) } as Effect,
        requestId: (r.request_id as string | null) ?? null,
      }))
      .sort((a, b) => a.id - b.id),
  );
}

/** The effect has been carried out. */
export async function markEffectDone(actor: Actor, id: number, db: Knex = getDb()): Promise<Result<null>> {
  const refused = onlySystem(actor);
  if (refused) return refused;
  await db("effects").where({ id }).update({ done_at: db.fn.now(), locked_until: null });
  return ok(null);
}

/** An attempt failed: try again after `retryInMs`, or (null) give it up. */
export async function markEffectFailed(
  actor: Actor,
  id: number,
  { error, retryInMs }: { error: string; retryInMs: number | null },
  db: Knex = getDb(),
): Promise<Result<null>> {
  const refused = onlySystem(actor);
  if (refused) return refused;
  await db("effects")
    .where({ id })
    .update({
      last_error: error.slice(0, 1000),
      locked_until: null,
      ...(retryInMs === null ? { failed_at: db.fn.now() } : { run_after: db.raw("now() + ?", [interval(db, retryInMs)]) }),
    });
  return ok(null);
}
