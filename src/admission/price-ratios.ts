/**
 * What a model really costs against MODEL_PRICES (issue 61). A money budget reserves each pass's worst
 * case at the configured price; a gateway that reports `usage.cost` above that price (a price written
 * down too low, a provider's change) would settle every turn past what it held, turn after turn, and a
 * cap would be passed by as much as the turns in flight could spend. So each settled call with a
 * reported cost is compared with its cost at the configured price; once the ratio runs above
 * `1 + TOLERANCE`, the model's reservations hold its worst case times the observed ratio:
 *
 * - per model and UTC day, only ever raised within a day (the highest ratio seen), and carried into the
 *   next day (a store answers for the day and the one before), so a new day does not learn it again;
 * - shared through the budget store: the Postgres budget's replicas read each other's ratios (at most
 *   `refreshMs` old when a turn is admitted), the SQLite budget's processes on one machine the same;
 * - a warning once per model and day naming both prices, and the ratio as the `campus.model.price_ratio`
 *   gauge.
 *
 * A ratio never goes below 1: the configured price stays the floor.
 *
 * Issue 74, item 3: a cap must hold at any concurrency, and a ratio is only learned when a call settles.
 * So under a money limit a model's price is **checked before the cap trusts it**: while the store has
 * no ratio of the model for today or yesterday, one turn across every replica claims the check
 * (`claimPriceCheck`, a lease of PRICE_CHECK_LEASE_MS) and runs; the model's other turns wait at
 * admission (polling the store every PRICE_CHECK_POLL_MS) until its first call settles and records the
 * ratio, 1 when the reported cost matches the price or when the gateway reports no cost. The wait
 * ends at the lease (a check that never settles, say a turn refused by moderation, costs its model's
 * turns one lease, not the day). Each process records a model's ratio once a day, so a steady price is
 * carried day to day and checked again only after a day without traffic.
 *
 * When a ratio rises (a call settled here, or the store showed another replica's), `onRaise` is told:
 * the daily budget re-reserves every turn of that model in flight at the new ratio and stops those
 * that no longer fit (daily-budget.ts).
 */
import type { Logger } from '../logger.js';
import { reportedCost, type ModelPrices } from '../model/model-prices.js';
import type { Usage } from '../model/usage.js';
import type { ServiceMetrics } from '../telemetry/telemetry.js';
import { utcDay, type BudgetStore } from './budget-store.js';

/** A reported cost within this share above the configured price is rounding or a provider fee, not a wrong price. */
export const PRICE_TOLERANCE = 0.05;

/** How old the ratios read from the store may be when a call is admitted. */
export const PRICE_RATIO_REFRESH_MS = 5_000;

/** How long one turn's check of a model's price holds its model's other turns at most. */
export const PRICE_CHECK_LEASE_MS = 10_000;

/** How often a turn waiting for a price check reads the store. */
export const PRICE_CHECK_POLL_MS = 100;

export interface PriceRatiosOptions {
  store: Pick<BudgetStore, 'priceRatios' | 'raisePriceRatio' | 'claimPriceCheck' | 'releasePriceCheck'>;
  prices: ModelPrices;
  logger: Logger;
  metrics?: Pick<ServiceMetrics, 'priceRatio'>;
  now: () => Date;
  refreshMs?: number;
  /** Under a money limit: prices are checked before turns are let in, and a steady ratio is recorded daily. */
  checks?: boolean;
  /** Told when a model's ratio rises (observed here or read from the store). */
  onRaise?: (model: string, ratio: number) => void;
  checkLeaseMs?: number;
}

export class PriceRatios {
  private readonly ratios = new Map<string, number>();
  /** The day each model's warning was last logged. */
  private readonly warned = new Map<string, string>();
  private readAt = -Infinity;
  private readDay: string | null = null;
  private reading: Promise<void> | null = null;
  private readonly refreshMs: number;
  private readonly leaseMs: number;
  /** The day each model's ratio was last written by this process. */
  private readonly storedDay = new Map<string, string>();
  /** Per model, until when a check claimed here (or being claimed) holds the model's other turns. */
  private readonly checkingUntil = new Map<string, number>();

  constructor(private readonly options: PriceRatiosOptions) {
    this.refreshMs = options.refreshMs ?? PRICE_RATIO_REFRESH_MS;
    this.leaseMs = options.checkLeaseMs ?? PRICE_CHECK_LEASE_MS;
  }

  /** The multiple of the configured price `model`'s reservations hold (1 until its reported cost ran above it). */
  of(model: string): number {
    return this.ratios.get(model) ?? 1;
  }

  /** Whether `model`'s price is known today (checked, here or by another replica, today or yesterday). */
  known(model: string): boolean {
    return this.ratios.has(model);
  }

  /**
   * Before a call of `model` under a money limit: resolves once its price is known, or at once with
   * `true` for the call that checks it (see the module note; it must `abandon` the check if it makes no
   * model call), or when the wait reaches the lease or `signal` aborts. While a check runs elsewhere each
   * process reads the store, and tries to claim an abandoned check, once per PRICE_CHECK_POLL_MS. Never
   * rejects: a store that cannot answer lets the call go on to its reservation (which then fails).
   */
  async checked(model: string, signal?: AbortSignal): Promise<boolean> {
    await this.refresh();
    if (!this.options.checks) return false;
    const deadline = Date.now() + this.leaseMs;
    for (;;) {
      if (this.known(model)) return false;
      if ((this.checkingUntil.get(model) ?? 0) <= Date.now()) {
        // Nobody here checks it: claim it (one try a poll for the whole process).
        this.checkingUntil.set(model, Date.now() + PRICE_CHECK_POLL_MS);
        try {
          if (await this.options.store.claimPriceCheck(model, utcDay(this.options.now()), this.leaseMs)) {
            this.checkingUntil.set(model, Date.now() + this.leaseMs);
            this.options.logger.info("checking a model's price against the gateway's reported cost; its other turns wait for this call", { model });
            return true;
          }
        } catch (err) {
          this.options.logger.warn("a model's price check could not be claimed; the call goes on", { err, model });
          return false;
        }
      }
      if (Date.now() >= deadline || signal?.aborted) return false;
      await pause(PRICE_CHECK_POLL_MS, signal);
      await this.refresh(PRICE_CHECK_POLL_MS);
    }
  }

  /** The call that checks `model`'s price made no model call (refused, stopped by moderation): another may. */
  abandon(model: string): void {
    this.checkingUntil.delete(model);
    this.options.store
      .releasePriceCheck(model, utcDay(this.options.now()))
      .catch((err: unknown) => this.options.logger.warn("a model's price check could not be given back; it ends with its lease", { err, model }));
  }

  /**
   * Reads the ratios every replica recorded, when the last read is older than `maxAgeMs` (`refreshMs`
   * by default) or of another day; one read at a time. Never rejects: a store that cannot answer leaves
   * the ratios as they are.
   */
  refresh(maxAgeMs = this.refreshMs): Promise<void> {
    const at = this.options.now();
    const day = utcDay(at);
    if (this.reading) return this.reading;
    if (day === this.readDay && at.getTime() - this.readAt < maxAgeMs) return Promise.resolve();
    this.reading = this.options.store
      .priceRatios(day)
      .then((stored) => {
        // A new day starts from what the store carries (today and yesterday), not from this process's past.
        if (day !== this.readDay) this.ratios.clear();
        for (const [model, ratio] of stored) if (!this.known(model) || ratio > this.of(model)) this.record(model, ratio);
        this.readDay = day;
        this.readAt = at.getTime();
      })
      .catch((err: unknown) => this.options.logger.warn('model price ratios could not be read; reservations keep the ratios known', { err }))
      .finally(() => {
        this.reading = null;
      });
    return this.reading;
  }

  /**
   * A settled call of `model`: its reported cost, if any, against the configured price. A call with no
   * reported cost (or one at the price) checks the price too: as configured, since nothing says otherwise.
   */
  observe(model: string, usage: Usage): void {
    const reported = reportedCost(usage);
    const priced = this.options.prices.atPrice(model, usage);
    const observed = reported === null || priced <= 0 ? null : reported / priced;
    const day = utcDay(this.options.now());
    if (observed === null || observed <= this.of(model) * (1 + PRICE_TOLERANCE)) {
      if (!this.options.checks) return;
      if (!this.known(model)) this.record(model, this.of(model));
      if (this.storedDay.get(model) !== day) this.store(model, day, this.of(model));
      return;
    }
    // Rounded up to a hundredth: the hold is never below what was seen.
    const ratio = Math.ceil(observed * 100) / 100;
    this.record(model, ratio);
    if (this.warned.get(model) !== day) {
      this.warned.set(model, day);
      const price = this.options.prices.of(model);
      this.options.logger.warn("the gateway's reported cost is above MODEL_PRICES for a model; its calls are reserved at the observed ratio", {
        model,
        ratio,
        configured_usd_per_mtok: { input: price.input, output: price.output },
        observed_usd_per_mtok: { input: round(price.input * ratio), output: round(price.output * ratio) },
      });
    }
    this.store(model, day, ratio);
  }

  private store(model: string, day: string, ratio: number): void {
    this.storedDay.set(model, day);
    this.options.store.raisePriceRatio(model, day, ratio).then(
      (stored) => {
        if (stored > this.of(model)) this.record(model, stored);
      },
      (err: unknown) => {
        this.storedDay.delete(model);
        this.options.logger.warn('model price ratio could not be stored; this replica keeps it', { err, model });
      },
    );
  }

  private record(model: string, ratio: number): void {
    const before = this.ratios.get(model);
    this.ratios.set(model, ratio);
    this.options.metrics?.priceRatio({ model, ratio });
    if (ratio > (before ?? 1)) this.options.onRaise?.(model, ratio);
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;
