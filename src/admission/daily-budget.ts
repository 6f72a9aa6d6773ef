/**
 * The daily budget of tokens and money (issue 60: admission split into this holder and moderation): the
 * limits of the configuration (DAILY_TOKEN_LIMIT, DAILY_SPEND_LIMIT_USD, SERVICE_DAILY_SPEND_LIMIT_USD),
 * each model's price and the ratio the gateway showed it really costs (price-ratios.ts), and the store
 * (budget-store.ts). It reserves in ONE atomic step per bucket and day, holds what a turn or a call may
 * spend (HeldBudget: tokens and money move together), writes excesses and refunds (retried once, never
 * throwing), prunes old days on the first write of each day, and names the refusal of a spent budget.
 */
import type { Config } from '../config.js';
import { ServicePausedError, TooManyRequestsError, type AppError } from '../http/errors.js';
import type { Logger } from '../logger.js';
import type { SpendPurpose } from '../model/metered-call.js';
import { ModelPrices, reportedCost, toNanoUsd, toUsd, type TokenSplit } from '../model/model-prices.js';
import type { Usage } from '../model/usage.js';
import type { ServiceMetrics } from '../telemetry/telemetry.js';
import type { TurnBudget } from './admission.js';
import { secondsUntilUtcMidnight, utcDay, utcDayBefore, type BudgetAmount, type BudgetLimits, type BudgetStore, type Reservation } from './budget-store.js';
import { PriceRatios } from './price-ratios.js';
import { RefundWindow } from './refund-window.js';

/**
 * Tokens a pass costs the budget: the reported total, never less than its parts (some gateways omit the
 * total), with the prompt tokens the provider served from its cache counted at `cachedWeight`
 * (CACHED_TOKEN_WEIGHT): they cost a fraction of a fresh token, as providers bill them.
 */
export function tokensOf(usage: Usage, cachedWeight = 1): number {
  const parts = Math.max(0, usage.promptTokens) + Math.max(0, usage.completionTokens);
  const total = Math.max(0, usage.totalTokens, parts);
  const discount = Math.max(0, usage.cachedPromptTokens ?? 0) * (1 - Math.min(1, Math.max(0, cachedWeight)));
  const charged = total - discount;
  return Number.isFinite(charged) ? Math.ceil(charged) : 0;
}

/**
 * How often a replica with turns holding money in flight reads the ratios the other replicas recorded,
 * so a price learned elsewhere re-reserves its turns within this long.
 */
export const LIVE_RATIO_REFRESH_MS = 500;

export interface DailyBudgetOptions {
  store: BudgetStore;
  config: Pick<Config, 'budget'> & { gateway: Pick<Config['gateway'], 'prices'> };
  logger: Logger;
  metrics?: Pick<ServiceMetrics, 'spend' | 'serviceSpend' | 'priceRatio'>;
  now: () => Date;
  /** BUDGET_REFUND_WINDOW_MS: what turns give back within it is written together (refund-window.ts); 0 (the default here): each at once. */
  refundWindowMs?: number;
}

export class DailyBudget {
  private readonly store: BudgetStore;
  private readonly config: DailyBudgetOptions['config'];
  private readonly now: () => Date;
  private readonly metrics: DailyBudgetOptions['metrics'];
  private readonly log: Logger;
  private readonly prices: ModelPrices;
  private readonly limits: BudgetLimits;
  private readonly serviceCapped: boolean;
  private readonly moneyLimited: boolean;
  /** A money limit holds each model's worst case at its price times what the gateway showed it costs. */
  private readonly ratios: PriceRatios;
  /** The day the cap was last logged as reached: once a day and process, not once per refused turn. */
  private pausedLoggedFor: string | null = null;
  /**
   * Pruning runs on the first write of each UTC day seen by this process; yesterday is kept so a turn
   * that straddles midnight can still be inspected.
   */
  private prunedFor: string | null = null;
  /** Turns and calls holding money now, by model: re-reserved when their model's ratio rises. */
  private readonly live = new Map<string, Set<HeldBudget>>();
  /** Those that check their model's price (`ready`). */
  private readonly checkers = new WeakSet<HeldBudget>();
  private liveTimer: NodeJS.Timeout | null = null;
  private readonly refunds: RefundWindow;

  constructor(options: DailyBudgetOptions) {
    const { config } = options;
    this.store = options.store;
    this.config = config;
    this.now = options.now;
    this.metrics = options.metrics;
    this.log = options.logger.child({ component: 'admission' });
    this.prices = new ModelPrices(config.gateway.prices);
    this.limits = {
      tokens: config.budget.dailyTokenLimit,
      nanoUsd: config.budget.dailySpendLimitUsd === null ? null : toNanoUsd(config.budget.dailySpendLimitUsd),
      serviceNanoUsd: config.budget.serviceDailySpendLimitUsd === null ? null : toNanoUsd(config.budget.serviceDailySpendLimitUsd),
    };
    this.serviceCapped = this.limits.serviceNanoUsd !== null;
    this.moneyLimited = this.limits.nanoUsd !== null || this.serviceCapped;
    this.refunds = new RefundWindow(this.store, options.refundWindowMs ?? 0, this.log);
    this.ratios = new PriceRatios({
      store: this.store,
      prices: this.prices,
      logger: this.log,
      metrics: this.metrics,
      now: this.now,
      checks: this.moneyLimited,
      onRaise: (model) => this.reprice(model),
    });
  }

  /**
   * Before a reservation under a money limit: the ratios other replicas may have raised, and `model`'s
   * price checked (price-ratios.ts: the first turn of an unchecked model runs, its others wait for it).
   */
  async ready(model: string, signal?: AbortSignal): Promise<boolean> {
    return this.moneyLimited && (await this.ratios.checked(model, signal));
  }

  /**
   * Reserves what `held` holds to begin with; once held, and under a money limit, the budget follows it
   * until it is released: a rise of its model's ratio re-reserves it (or stops it). `checking`: `ready`
   * made it the check of its model's price, given back when it is refused or released having spent
   * nothing. Throws when the store fails.
   */
  async begin(held: HeldBudget, checking = false): Promise<Reservation> {
    let r: Reservation;
    try {
      r = await this.reserve(held.bucket, held.day, held.initial);
    } catch (err) {
      if (checking) this.ratios.abandon(held.model);
      throw err;
    }
    if (!r.held && checking) this.ratios.abandon(held.model);
    if (r.held && checking) this.checkers.add(held);
    if (r.held && this.moneyLimited) this.track(held);
    return r;
  }

  /** A conditional reservation; throws when the store fails. */
  private async reserve(bucket: string, day: string, amount: BudgetAmount): Promise<Reservation> {
    let r = await this.store.reserve(bucket, day, amount, this.limits);
    if (!r.held && this.refunds.pending) {
      // Refunds waiting to be written may be what fills the day: written now, the reservation asks once more.
      await this.refunds.flush();
      r = await this.store.reserve(bucket, day, amount, this.limits);
    }
    if (r.held && r.serviceNanoUsd !== null) this.metrics?.serviceSpend({ usd: toUsd(r.serviceNanoUsd), limitUsd: toUsd(this.limits.serviceNanoUsd!) });
    return r;
  }

  /** The money and tokens one bucket holds for one model's calls, `first` of them to begin with (`begin` reserves them). */
  held(bucket: string, day: string, model: string, purpose: SpendPurpose, first: TokenSplit): HeldBudget {
    const cachedWeight = this.config.budget.cachedTokenWeight;
    return new HeldBudget({ bucket, day, model }, first, {
      ratio: () => this.ratios.of(model),
      amount: (size) => ({ tokens: size.input + size.output, nanoUsd: Math.ceil(this.prices.worstCase(model, size) * this.ratios.of(model)) }),
      used: (usage) => {
        this.ratios.observe(model, usage);
        // A pass with no reported cost (an estimate of one cut short, a gateway that reports none) costs
        // its usage at the price the gateway showed, not the one configured.
        const nanoUsd = reportedCost(usage) === null ? Math.ceil(this.prices.atPrice(model, usage) * this.ratios.of(model)) : this.prices.cost(model, usage);
        this.metrics?.spend({ model, purpose, usd: toUsd(nanoUsd) });
        return { tokens: tokensOf(usage, cachedWeight), nanoUsd };
      },
      reserve: async (more) => {
        try {
          return (await this.reserve(bucket, day, more)).held;
        } catch (err) {
          this.log.warn('budget store failed; the turn finishes within what it holds', { err });
          return false;
        }
      },
      write: (amount, what) => this.write(bucket, day, amount, what),
      ended: (held) => this.untrack(held),
    });
  }

  private track(held: HeldBudget): void {
    let set = this.live.get(held.model);
    if (!set) this.live.set(held.model, (set = new Set()));
    set.add(held);
    // Another replica may learn a higher price while these turns run: read its ratios while any does.
    this.liveTimer ??= setInterval(() => void this.ratios.refresh(LIVE_RATIO_REFRESH_MS), LIVE_RATIO_REFRESH_MS).unref();
  }

  private untrack(held: HeldBudget): void {
    if (this.checkers.delete(held) && !held.charged) this.ratios.abandon(held.model);
    const set = this.live.get(held.model);
    if (!set?.delete(held)) return;
    if (set.size === 0) this.live.delete(held.model);
    if (this.live.size === 0 && this.liveTimer) {
      clearInterval(this.liveTimer);
      this.liveTimer = null;
    }
  }

  /** `model`'s ratio rose: each of its turns in flight holds its money at the new ratio, or stops. */
  private reprice(model: string): void {
    const set = this.live.get(model);
    if (!set) return;
    let stopped = 0;
    const all = [...set].map((held) => held.reprice().then((ok) => void (ok || stopped++)));
    void Promise.all(all).then(() => {
      if (stopped > 0) this.log.warn("turns stopped: their model's observed price leaves no room under a spending limit", { model, stopped, in_flight: all.length });
    });
  }

  /** The error of a refused turn: which limit, and until when. */
  refused(refusedBy: 'tokens' | 'spend' | 'service'): AppError {
    const retryAfter = secondsUntilUtcMidnight(this.now());
    if (refusedBy === 'service') {
      const day = utcDay(this.now());
      if (this.pausedLoggedFor !== day) {
        this.pausedLoggedFor = day;
        this.log.warn('service-wide daily spending cap reached; turns are refused until 00:00 UTC', { limit_usd: this.config.budget.serviceDailySpendLimitUsd });
      }
      return new ServicePausedError(retryAfter);
    }
    return refusedBy === 'spend'
      ? new TooManyRequestsError(`the daily spending limit of $${this.config.budget.dailySpendLimitUsd} is reached; it resets at 00:00 UTC`, retryAfter)
      : new TooManyRequestsError(`the daily token budget of ${this.limits.tokens} tokens is spent; it resets at 00:00 UTC`, retryAfter);
  }

  /** Writes the refunds still waiting (shutdown, after the turns ended); later refunds are written at once. */
  close(): Promise<void> {
    return this.refunds.close();
  }

  /** One unconditional write (an excess now, a refund within the refund window: refund-window.ts); retried once; never throws. */
  private async write(bucket: string, day: string, amount: BudgetAmount, what: 'excess' | 'refund'): Promise<void> {
    const { store, log } = this;
    if (what === 'refund') await this.refunds.give(bucket, day, -amount.tokens, -amount.nanoUsd, this.serviceCapped);
    else if (amount.tokens !== 0 || amount.nanoUsd !== 0) await this.refunds.now({ bucket, day, tokens: amount.tokens, nanoUsd: amount.nanoUsd, service: this.serviceCapped });
    if (this.prunedFor !== day) {
      this.prunedFor = day;
      try {
        const removed = await store.pruneBefore(utcDayBefore(this.now(), 1));
        if (removed > 0) log.info('pruned old token budget days', { removed });
      } catch (err) {
        log.warn('token budget prune failed', { err });
      }
    }
  }
}

interface HeldWrites {
  /** The multiple of the configured price the model's money is held at now. */
  ratio(): number;
  /** What a size of call holds: its tokens and their worst-case cost at the model's price. */
  amount(size: TokenSplit): BudgetAmount;
  /** What a finished pass used: its tokens as the budget counts them and what it cost (also counted as spend). */
  used(usage: Usage): BudgetAmount;
  /** A conditional reservation of `more`; false when refused. Never throws. */
  reserve(more: BudgetAmount): Promise<boolean>;
  /** An unconditional write (positive: charge, negative: refund); never throws. */
  write(amount: BudgetAmount, what: 'excess' | 'refund'): Promise<void>;
  /** Released: the budget no longer follows it. */
  ended(held: HeldBudget): void;
}

/** Why a turn's budget stopped it: its model's observed price leaves its passes no room under a cap. */
export class SpendStop extends Error {
  constructor() {
    super('the spending limit leaves no room for this turn at its model\'s observed price');
    this.name = 'SpendStop';
  }
}

/**
 * Tokens and money held in the store for one turn or call, `initial` of them to begin with. The two
 * move together: a top-up reserves what either lacks, a pass takes its usage from both, and the rest of
 * both goes back when the turn ends.
 */
export class HeldBudget implements TurnBudget {
  private tokens: number;
  private nanoUsd: number;
  /** The ratio `nanoUsd` was held at. */
  private heldAt: number;
  private released = false;
  private settled = false;
  private readonly stop = new AbortController();
  readonly initial: BudgetAmount;
  readonly bucket: string;
  readonly day: string;
  readonly model: string;

  constructor(where: { bucket: string; day: string; model: string }, first: TokenSplit, private readonly store: HeldWrites) {
    ({ bucket: this.bucket, day: this.day, model: this.model } = where);
    this.heldAt = store.ratio();
    this.initial = store.amount(first);
    this.tokens = this.initial.tokens;
    this.nanoUsd = this.initial.nanoUsd;
  }

  get held(): number {
    return this.tokens;
  }

  /** A pass was settled against it. */
  get charged(): boolean {
    return this.settled;
  }

  get stopped(): AbortSignal {
    return this.stop.signal;
  }

  async hold(size: TokenSplit, final = false): Promise<boolean> {
    const ratio = this.store.ratio();
    const want = this.store.amount(size);
    const more = { tokens: Math.max(0, Math.ceil(want.tokens) - this.tokens), nanoUsd: Math.max(0, want.nanoUsd - this.nanoUsd) };
    if (more.tokens === 0 && more.nanoUsd === 0) return true;
    if (this.released || this.stop.signal.aborted || !(await this.store.reserve(more))) {
      // The last pass cannot be paid at a price above the configured one (admission held it at the
      // configured price): the turn stops rather than spend what no cap left it.
      if (final && ratio > 1 && want.nanoUsd > this.nanoUsd) this.stop.abort(new SpendStop());
      return false;
    }
    this.tokens += more.tokens;
    this.nanoUsd += more.nanoUsd;
    this.heldAt = Math.max(this.heldAt, ratio);
    return true;
  }

  /**
   * Its model's ratio rose: what it holds is held again at the new ratio (the difference reserved), or,
   * when that does not fit under a limit, the turn is stopped (`stopped` aborts). False when stopped.
   */
  async reprice(): Promise<boolean> {
    const to = this.store.ratio();
    if (this.released || this.stop.signal.aborted) return !this.stop.signal.aborted;
    if (to <= this.heldAt) return true;
    const more = Math.ceil(this.nanoUsd * (to / this.heldAt - 1));
    this.heldAt = to;
    if (more <= 0) return true;
    if (!(await this.store.reserve({ tokens: 0, nanoUsd: more }))) {
      this.stop.abort(new SpendStop());
      return false;
    }
    // Released while the reservation ran: what was just reserved goes back with the rest.
    if (this.released) await this.store.write({ tokens: 0, nanoUsd: -more }, 'refund');
    else this.nanoUsd += more;
    return true;
  }

  async charge(usage: Usage): Promise<void> {
    this.settled = true;
    const used = this.store.used(usage);
    // What was held is already counted in the store: only what passes it is written.
    const excess = { tokens: Math.max(0, used.tokens - this.tokens), nanoUsd: Math.max(0, used.nanoUsd - this.nanoUsd) };
    this.tokens = Math.max(0, this.tokens - used.tokens);
    this.nanoUsd = Math.max(0, this.nanoUsd - used.nanoUsd);
    if (excess.tokens > 0 || excess.nanoUsd > 0) await this.store.write(excess, 'excess');
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    this.store.ended(this);
    const back = { tokens: -this.tokens, nanoUsd: -this.nanoUsd };
    this.tokens = 0;
    this.nanoUsd = 0;
    await this.store.write(back, 'refund');
  }
}
