/**
 * The daily token budget as a store of counters: one row per (bucket, UTC day) holding the tokens
 * charged so far plus those reserved by turns still running. Two implementations share this interface and one test suite: SQLite (the default,
 * one machine) and Postgres (several replicas share one budget). The clock lives with the caller:
 * every method takes the UTC day it is about, so stores stay pure data access and tests cross a
 * midnight by moving an injected clock.
 */

/** A UTC calendar day as `YYYY-MM-DD` (the key of a budget row). */
export type UtcDay = string;

export interface TokenBudgetStore {
  /** Tokens charged to `bucket` on `day` (0 when nothing was charged). Rejects when the store fails. */
  used(bucket: string, day: UtcDay): Promise<number>;
  /**
   * Adds `tokens` to the row of (`bucket`, `day`) in ONE atomic upsert, so concurrent charges never
   * lose an update; resolves to the stored total after this charge. Negative `tokens` give back an
   * unused reservation; the total never goes below 0.
   */
  charge(bucket: string, day: UtcDay, tokens: number): Promise<number>;
  /**
   * Reserves `tokens` in ONE atomic conditional upsert: added only when the total stays within `limit`.
   * Resolves to the new total, or null when the reservation would pass the limit (nothing changed).
   * Concurrent reservations are serialised by the row, so together they never pass the limit.
   */
  reserve(bucket: string, day: UtcDay, tokens: number, limit: number): Promise<number | null>;
  /** Deletes every row of a day before `day`; resolves to the number of rows removed. */
  pruneBefore(day: UtcDay): Promise<number>;
  /** Releases the connection or file handle. */
  close(): Promise<void>;
}

const DAY_MS = 86_400_000;

/** The UTC day of an instant. */
export function utcDay(at: Date): UtcDay {
  return at.toISOString().slice(0, 10);
}

/** The UTC day `days` before the day of `at` (used to keep yesterday's rows when pruning). */
export function utcDayBefore(at: Date, days: number): UtcDay {
  return utcDay(new Date(at.getTime() - days * DAY_MS));
}

/**
 * Whole seconds from `at` to the next 00:00 UTC, rounded up and at least 1: the `Retry-After` of a
 * spent budget (CONTRACT.md "Errors"). A client retrying after it never lands before the reset.
 */
export function secondsUntilUtcMidnight(at: Date): number {
  const t = at.getTime();
  const next = Math.floor(t / DAY_MS) * DAY_MS + DAY_MS;
  return Math.max(1, Math.ceil((next - t) / 1000));
}
