/**
 * Seller levels, once a day (a scheduled job, worker/scheduled.server.ts): every seller measured again as of
 * now (ADR 049), so the windows that moved on count (a rating older than 60 days, an account that came of
 * age, a month's conversations). Completions and resolved disputes recompute their seller at once, as
 * after-commit effects; this round catches the rest. The work is the recomputeAllLevels operation.
 */
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { Knex } from "knex";
import { createDb } from "../app/server/db.server";
import type { Env } from "../app/server/env.server";
import { recomputeAllLevels } from "../app/operations/seller-levels.server";
import { systemActor } from "../app/operations/core.server";
import { failureMessage } from "../app/content/operation-messages";
import { startScheduledJob } from "./scheduled.server";
import { log } from "../app/server/log.server";

const actor = systemActor("levels");

export const LEVELS_QUEUE = "seller-levels";
export const LEVELS_SCHEDULER = "seller-levels-daily";
export const LEVELS_EVERY_MS = 24 * 60 * 60_000;

export type LevelsJob = { queue: Queue; close: () => Promise<void> };

/** Registers the daily schedule (one scheduler by its id; the first round runs when it is first registered). */
export async function startLevels(env: Env, redis: Redis, options: { db?: Knex; everyMs?: number } = {}): Promise<LevelsJob> {
  const ownDb = options.db ? undefined : createDb(env.DATABASE_URL, { min: 0, max: 2 });
  const db = options.db ?? ownDb!;
  const { queue, close } = await startScheduledJob(env, redis, {
    queue: LEVELS_QUEUE,
    scheduler: LEVELS_SCHEDULER,
    everyMs: options.everyMs ?? LEVELS_EVERY_MS,
    label: "seller-levels",
    run: async () => {
      const done = await recomputeAllLevels(actor, {}, { db });
      if (!done.ok) throw new Error(`${done.error}: ${failureMessage(done)}`);
      if (done.value.changed) log.info(`[seller-levels] ${done.value.changed} of ${done.value.sellers} sellers changed level`);
      return done.value;
    },
    onClose: async () => {
      await ownDb?.destroy();
    },
  });
  return { queue, close };
}
