/**
 * The one rule for waiting before trying again: exponential backoff. Attempt 0 waits `initialMs`, each
 * attempt after it twice as long, never more than `maxMs`; `jitter` (0 to 1) spreads each wait over
 * ±that share, so callers that failed together do not all come back together.
 * Used by the worker's drains and ingest, the payment polls and the browser's tracker.
 */
export type Backoff = { initialMs: number; maxMs: number; jitter?: number };

/** The wait before retry number `attempt + 1` (attempt 0 is the first retry). */
export function backoffDelay(attempt: number, { initialMs, maxMs, jitter = 0 }: Backoff): number {
  const base = Math.min(maxMs, initialMs * 2 ** Math.min(Math.max(attempt, 0), 30));
  return jitter > 0 ? base * (1 - jitter + 2 * jitter * Math.random()) : base;
}

/**
 * The wait after the `attempts`-th attempt failed (attempts counts from 1), or null once `maxAttempts` have
 * been made: give up.
 */
export function retryDelay(attempts: number, policy: Backoff & { maxAttempts: number }): number | null {
  return attempts >= policy.maxAttempts ? null : backoffDelay(attempts - 1, policy);
}
