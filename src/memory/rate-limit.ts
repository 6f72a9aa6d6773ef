/**
 * Per-user rate limit for background extraction: at most one run per user per interval. A chatty
 * user otherwise costs one extraction call per message; facts rarely change that fast.
 */

/** Default spacing of extractions for one user. */
export const EXTRACTION_INTERVAL_MS = 30_000;

export interface RateLimiter {
  /** True (and records the use) when `key` may run now. */
  tryAcquire(key: string): boolean;
}

export function createRateLimiter(options: { intervalMs?: number; now?: () => number } = {}): RateLimiter {
  const intervalMs = options.intervalMs ?? EXTRACTION_INTERVAL_MS;
  const now = options.now ?? Date.now;
  const last = new Map<string, number>();
  return {
    tryAcquire(key) {
      const t = now();
      // Forget keys whose interval has passed, so the map holds only recently active users.
      if (last.size > 1000) for (const [k, at] of last) if (t - at >= intervalMs) last.delete(k);
      const previous = last.get(key);
      if (previous !== undefined && t - previous < intervalMs) return false;
      last.set(key, t);
      return true;
    },
  };
}
