/**
 * The daily budget as a store of counters: one row per (bucket, UTC day) holding the tokens and the
 * money (whole nano-dollars, model/model-prices.ts) charged so far plus those reserved by turns still
 * running, and, under a service-wide cap, one row of the service's own (SERVICE_BUCKET). Two implementations share this interface and one test suite: SQLite (the default,
 * one machine) and Postgres (several replicas share one budget). The clock lives with the caller:
 * every method takes the UTC day it is about, so stores stay pure data access and tests cross a
 * midnight by moving an injected clock.
 */

/** A UTC calendar day as `YYYY-MM-DD` (the key of a budget row). */
export type UtcDay = string;

/**
 * The bucket of the whole service's spend (SERVICE_DAILY_SPEND_LIMIT_USD). `#` is outside the user id
 * alphabet (CONTRACT.md), so no user's bucket can be this one.
 */
export const SERVICE_BUCKET = '#service';

/** What a reservation holds: tokens, and money in whole nano-dollars. */
export interface BudgetAmount {
  tokens: number;
  nanoUsd: number;
}

/** The limits a reservation must stay within; a null money limit is no limit. */
export interface BudgetLimits {
  tokens: number;
  /** The bucket's own daily spend (DAILY_SPEND_LIMIT_USD). */
  nanoUsd: number | null;
  /** The service's daily spend (SERVICE_DAILY_SPEND_LIMIT_USD); when set, the service row is held too. */
  serviceNanoUsd: number | null;
}

/** One unconditional write of `chargeAll`: tokens and money added to (`bucket`, `day`), and to the service row when `service`. */
export interface BudgetCharge {
  bucket: string;
  day: UtcDay;
  tokens: number;
  nanoUsd: number;
  service: boolean;
}

/** A reservation's outcome: held, or which limit refused it (nothing changed). */
export type Reservation =
  | { held: true; /** The service's spend after this hold; null without a service cap. */ serviceNanoUsd: number | null }
  | { held: false; refusedBy: 'tokens' | 'spend' | 'service' };

export interface BudgetStore {
  /** Tokens charged to `bucket` on `day` (0 when nothing was charged). Rejects when the store fails. */
  used(bucket: string, day: UtcDay): Promise<number>;
  /** Nano-dollars charged to `bucket` (SERVICE_BUCKET: the service) on `day`. Rejects when the store fails. */
  spent(bucket: string, day: UtcDay): Promise<number>;
  /**
   * Adds `tokens` (and `spend.nanoUsd`) to the row of (`bucket`, `day`) atomically, so concurrent
   * charges never lose an update; with `spend.service`, to the service row as well, in the same call.
   * Resolves to the bucket's token total after this charge. Negative amounts give back an unused
   * reservation; no total goes below 0.
   */
  charge(bucket: string, day: UtcDay, tokens: number, spend?: { nanoUsd: number; service: boolean }): Promise<number>;
  /**
   * Every charge of `charges`, each as `charge` would make it, in ONE transaction (one statement in
   * Postgres), in the order given: all or none. The refunds of a window are written this way
   * (refund-window.ts); given sorted by day and bucket, concurrent writers take the rows in one order.
   */
  chargeAll(charges: readonly BudgetCharge[]): Promise<void>;
  /**
   * Reserves `amount` in ONE atomic step (one statement or transaction, one round trip): added to the
   * bucket (and, with a service cap, to the service row) only when every total stays within `limits`.
   * Concurrent reservations are serialised by the rows (the service row first), so together they never
   * pass a limit.
   */
  reserve(bucket: string, day: UtcDay, amount: BudgetAmount, limits: BudgetLimits): Promise<Reservation>;
  /**
   * Per model, the highest ratio of the gateway's reported cost to the cost at MODEL_PRICES recorded on
   * `day` or the day before (issue 61: a price written too low). Models never seen above their price
   * are absent. Rejects when the store fails.
   */
  priceRatios(day: UtcDay): Promise<Map<string, number>>;
  /** Raises `model`'s ratio of `day` to `ratio` when that is higher (atomically); resolves to the ratio now stored. */
  raisePriceRatio(model: string, day: UtcDay, ratio: number): Promise<number>;
  /**
   * Claims the check of `model`'s price on `day` (price-ratios.ts): true for exactly one caller across
   * every replica while the model has no ratio of `day` and no unexpired claim (`leaseMs` old at most);
   * a claim is a ratio row of 0, which `priceRatios` leaves out and any recorded ratio replaces.
   */
  claimPriceCheck(model: string, day: UtcDay, leaseMs: number): Promise<boolean>;
  /** Gives a claimed check back (its call was refused or made no model call): the next caller may claim it. */
  releasePriceCheck(model: string, day: UtcDay): Promise<void>;
  /** Deletes every row (budgets and price ratios) of a day before `day`; resolves to the number of rows removed. */
  pruneBefore(day: UtcDay): Promise<number>;
  /** Releases the connection or file handle. */
  close(): Promise<void>;
}

const DAY_MS = 86_400_000;

/** The UTC day of an instant. */
export function utcDay(at: Date): UtcDay {
  return at.toISOString().slice(0, 10);
}

/** The day before `day` (`YYYY-MM-DD`). */
export function dayBefore(day: UtcDay): UtcDay {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) - DAY_MS));
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
