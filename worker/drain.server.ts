/**
 * The loop of the worker's table drains (the mail outbox, the effects; worker/jobs.server.ts): take a round
 * of due rows and carry them out; after a round that found nothing, wait `pollMs`; while the database is
 * away, say so now and then and keep looking. `close` stops taking rows, lets the round in hand finish, and
 * resolves.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { log } from "../app/server/log.server";
import { jobDuration, jobRuns } from "../app/server/metrics.server";
import { maskUrlCredentials } from "../app/utils/mask-url";

export type Drain = { close: () => Promise<void> };

/** `round` takes and carries out what is due and says how many it took. */
export function startDrain(
  name: string,
  { pollMs, logEveryFailures = 30 }: { pollMs: number; logEveryFailures?: number },
  round: () => Promise<number>,
): Drain {
  const closing = new AbortController();

  const running = (async () => {
    let failedLooks = 0;
    while (!closing.signal.aborted) {
      let found = 0;
      const started = performance.now();
      try {
        found = await round();
        failedLooks = 0;
        // A round that took rows is a job run (ADR 057): one line and its metrics; an empty look is neither.
        if (found > 0) {
          const ms = performance.now() - started;
          jobRuns.inc({ job: name, outcome: "ok" });
          jobDuration.observe({ job: name }, ms / 1000);
          log.info({ job: name, outcome: "ok", ms: Math.round(ms), counts: { taken: found } }, `[${name}] round done`);
        }
      } catch (error) {
        jobRuns.inc({ job: name, outcome: "failed" });
        if (failedLooks++ % logEveryFailures === 0)
          log.error({ job: name, outcome: "failed", err: error }, `[${name}] ${maskUrlCredentials((error as Error).message)}`);
      }
      // close() ends the wait at once.
      if (found === 0) await sleep(pollMs, undefined, { signal: closing.signal }).catch(() => undefined);
    }
  })();

  return {
    close: async () => {
      closing.abort();
      await running;
    },
  };
}
