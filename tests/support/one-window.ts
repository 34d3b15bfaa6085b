/**
 * A fixed-window limit counts per window of the server's own clock (the minutes since 1970 for the catalog
 * and tracking limits, ADR 021), which a test cannot set in the server's process; an in-process limiter takes
 * an injected clock instead (tests/unit/leased-limiter.test.ts). `inOneWindow` runs a scenario against the
 * server and, when it failed having straddled two windows, runs it once more at once, in the window it ended
 * in, which then has nearly all of itself ahead. Nothing waits for a window to end. The scenario is told
 * which attempt it is, to use addresses the first attempt did not.
 */
export async function inOneWindow<T>(windowMs: number, scenario: (attempt: number) => Promise<T>): Promise<T> {
  const windowOf = () => Math.floor(Date.now() / windowMs);
  for (let attempt = 1; ; attempt++) {
    const window = windowOf();
    try {
      return await scenario(attempt);
    } catch (error) {
      if (attempt > 1 || windowOf() === window) throw error;
    }
  }
}
