/**
 * The loop of the worker's table drains (the mail outbox, the effects): take a round of due rows and carry
 * them out; after a round that found nothing, wait `pollMs`; while the database is away, say so now and
 * then and keep looking. `close` stops taking rows, lets the round in hand finish, and resolves.
 */
import { maskUrlCredentials } from "../app/utils/mask-url";

export type Drain = { close: () => Promise<void> };

/** `round` takes and carries out what is due and says how many it took. */
export function startDrain(name: string, { pollMs, logEveryFailures = 30 }: { pollMs: number; logEveryFailures?: number }, round: () => Promise<number>): Drain {
  let closed = false;
  let wake: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const running = (async () => {
    let failedLooks = 0;
    while (!closed) {
      let found = 0;
      try {
        found = await round();
        failedLooks = 0;
      } catch (error) {
        if (failedLooks++ % logEveryFailures === 0) console.error(`[${name}] ${maskUrlCredentials((error as Error).message)}`);
      }
      if (found === 0 && !closed) await sleep(pollMs);
    }
  })();

  return {
    close: async () => {
      closed = true;
      wake?.();
      await running;
    },
  };
}

/** The pause before attempt `attempts + 1`: doubling from `initialMs`, at most `maxMs`; null after the last attempt. */
export function retryDelay(attempts: number, { initialMs, maxMs, maxAttempts }: { initialMs: number; maxMs: number; maxAttempts: number }): number | null {
  return attempts >= maxAttempts ? null : Math.min(maxMs, initialMs * 2 ** (attempts - 1));
}
