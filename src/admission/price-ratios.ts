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
 * A ratio never goes below 1: the configured price stays the floor. A pass in flight when the ratio is
 * learned still settles its real cost (money spent is recorded as spent); its next pass, and every later
 * turn, holds the new worst case.
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

export interface PriceRatiosOptions {
  store: Pick<BudgetStore, 'priceRatios' | 'raisePriceRatio'>;
  prices: ModelPrices;
  logger: Logger;
  metrics?: Pick<ServiceMetrics, 'priceRatio'>;
  now: () => Date;
  refreshMs?: number;
}

export class PriceRatios {
  private readonly ratios = new Map<string, number>();
  /** The day each model's warning was last logged. */
  private readonly warned = new Map<string, string>();
  private readAt = -Infinity;
  private readDay: string | null = null;
  private reading: Promise<void> | null = null;
  private readonly refreshMs: number;

  constructor(private readonly options: PriceRatiosOptions) {
    this.refreshMs = options.refreshMs ?? PRICE_RATIO_REFRESH_MS;
  }

  /** The multiple of the configured price `model`'s reservations hold (1 until its reported cost ran above it). */
  of(model: string): number {
    return this.ratios.get(model) ?? 1;
  }

  /**
   * Reads the ratios every replica recorded, when the last read is older than `refreshMs` or of another
   * day; one read at a time. Never rejects: a store that cannot answer leaves the ratios as they are.
   */
  refresh(): Promise<void> {
    const at = this.options.now();
    const day = utcDay(at);
    if (this.reading) return this.reading;
    if (day === this.readDay && at.getTime() - this.readAt < this.refreshMs) return Promise.resolve();
    this.reading = this.options.store
      .priceRatios(day)
      .then((stored) => {
        // A new day starts from what the store carries (today and yesterday), not from this process's past.
        if (day !== this.readDay) this.ratios.clear();
        for (const [model, ratio] of stored) if (ratio > this.of(model)) this.record(model, ratio);
        this.readDay = day;
        this.readAt = at.getTime();
      })
      .catch((err: unknown) => this.options.logger.warn('model price ratios could not be read; reservations keep the ratios known', { err }))
      .finally(() => {
        this.reading = null;
      });
    return this.reading;
  }

  /** A settled call of `model`: its reported cost, if any, against the configured price. */
  observe(model: string, usage: Usage): void {
    const reported = reportedCost(usage);
    if (reported === null) return;
    const priced = this.options.prices.atPrice(model, usage);
    if (priced <= 0) return;
    const observed = reported / priced;
    if (observed <= this.of(model) * (1 + PRICE_TOLERANCE)) return;
    // Rounded up to a hundredth: the hold is never below what was seen.
    const ratio = Math.ceil(observed * 100) / 100;
    this.record(model, ratio);
    const day = utcDay(this.options.now());
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
    this.options.store.raisePriceRatio(model, day, ratio).then(
      (stored) => {
        if (stored > this.of(model)) this.record(model, stored);
      },
      (err: unknown) => this.options.logger.warn('model price ratio could not be stored; this replica keeps it', { err, model }),
    );
  }

  private record(model: string, ratio: number): void {
    this.ratios.set(model, ratio);
    this.options.metrics?.priceRatio({ model, ratio });
  }
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;
