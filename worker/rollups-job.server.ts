/**
 * The builder of the reports' derived tables (app/analytics/rollups.server.ts, ADR 018), once a minute on
 * one worker (a BullMQ job scheduler, as housekeeping): each round builds the days whose build is missing
 * or behind, and the days that got late events since (named in Redis by the ingest after its inserts).
 * A worker process's first round looks for days with events over all of history (a new install, or days
 * missed while no worker ran); later rounds from yesterday on, since older days change only by late events.
 */
import type { ClickHouseClient } from "@clickhouse/client";
import type { Redis } from "ioredis";
import { buildRollups, returnLateDays, takeLateDays } from "../app/analytics/rollups.server";
import { clickHouseErrorMessage } from "../app/analytics/clickhouse-sql.server";
import type { Env } from "../app/server/env.server";
import { startScheduledJob, type Scheduled } from "./scheduled.server";
import { log } from "../app/server/log.server";

export const ROLLUPS_QUEUE = "analytics-rollups";
const ROLLUPS_SCHEDULER = "analytics-rollups-every-minute";
export const ROLLUPS_EVERY_MS = 60_000;

export async function startRollups(
  env: Env,
  redis: Redis,
  clickhouse: ClickHouseClient,
  { everyMs = ROLLUPS_EVERY_MS }: { everyMs?: number } = {},
): Promise<Scheduled> {
  let searched = false;
  const stopping = new AbortController();
  const scheduled = await startScheduledJob(env, redis, {
    queue: ROLLUPS_QUEUE,
    scheduler: ROLLUPS_SCHEDULER,
    everyMs,
    label: "rollups",
    run: async () => {
      const late = await takeLateDays(redis, env.QUEUE_PREFIX);
      const yesterday = new Date(Date.now() - 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
      try {
        const round = await buildRollups(clickhouse, { dirty: late, since: searched ? yesterday : undefined, signal: stopping.signal });
        searched = true;
        if (round.built.length > 0) {
          const ms = round.built.reduce((n, b) => n + b.ms, 0);
          log.info(`[rollups] built ${round.built.length} day(s) in ${ms} ms: ${round.built.map((b) => b.day).join(", ")}`);
        }
        return { built: round.built.length };
      } catch (error) {
        // The late days stay named for the next round.
        await returnLateDays(redis, env.QUEUE_PREFIX, late);
        throw new Error(clickHouseErrorMessage(error));
      }
    },
  });
  return {
    ...scheduled,
    // A round in progress stops after the day it is building, so a shutdown waits for one day at most.
    close: async () => {
      stopping.abort();
      await scheduled.close();
    },
  };
}
