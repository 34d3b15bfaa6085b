/**
 * The loop of the worker's table drains (the mail outbox, the effects; worker/jobs.server.ts): take a round
 * of due rows and carry them out; after a round that found nothing, wait `pollMs`; while the database is
 * away, say so now and then and keep looking. `close` stops taking rows, lets the round in hand finish, and
 * resolves.
 */
import { setTimeout as sleep } from "node:timers/promises";
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
      try {
        found = await round();
        failedLooks = 0;
      } catch (error) {
        if (failedLooks++ % logEveryFailures === 0) console.error(`[${name}] ${maskUrlCredentials((error as Error).message)}`);
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
