/**
 * Admission control as the chat routes call it (the `Admission` interface of admission.ts):
 *
 * - admit: holds the turn's reservation (turn-reservation.ts: its first pass, which may call tools,
 *   and the answer pass after it) in ONE atomic step: tokens, the money that many tokens may cost at
 *   the turn's model's price (model/model-prices.ts), and, under a service-wide cap, the service's
 *   spend, each added only while its day's total, reservations included, stays within its limit. A
 *   spent token or money budget is 429 with `Retry-After` until 00:00 UTC; a spent service cap is 503
 *   "paused until the reset" with the same `Retry-After`; a store that cannot answer refuses the turn
 *   with 503 (never run unmetered); then moderation of the query, whose verdict may turn the turn into
 *   a canned refusal.
 * - the turn's budget (TurnBudget): a pass that needs more than is held tops up with the same
 *   conditional reservation; a refused top-up is an answer to the pass (it answers within what is held),
 *   never an error. After each pass its real usage and cost are taken from what is held (only an excess
 *   is written); when the turn ends, however it ends, the rest is given back. Every pass is sent with
 *   `max_tokens`, so with a gateway that reports its usage honestly the day never passes a limit.
 * - reserveCall: titles and memory extraction reserve their call the same way and settle after it.
 * - reviewAnswer: moderation of the final answer; a flagged one is replaced.
 */
import type { Config } from '../config.js';
import { ServicePausedError, ServiceUnavailableError, TooManyRequestsError, type AppError } from '../http/errors.js';
import type { Logger } from '../logger.js';
import type { CallRefusal, CallReservation, SpendPurpose } from '../model/metered-call.js';
import { ModelPrices, toNanoUsd, toUsd, type TokenSplit } from '../model/model-prices.js';
import type { TurnRequest } from '../request/chat-request.js';
import type { Usage } from '../model/usage.js';
import { budgetBucket, type Admission, type AdmissionDecision, type Moderation, type ModerationVerdict, type Refusal, type TurnBudget } from './admission.js';
import { flaggedAnswerNotice, moderationRefusal, selfHarmSupport } from './replies.js';
import { secondsUntilUtcMidnight, utcDay, utcDayBefore, type BudgetAmount, type BudgetLimits, type Reservation, type BudgetStore } from './budget-store.js';
import { PROMPT_SIZE_FLOOR_TOKENS, requestTokens, toolPassHold } from './turn-reservation.js';
import { PriceRatios } from './price-ratios.js';
import { noSpan, spanned, type ServiceMetrics, type TraceSpan } from '../telemetry/telemetry.js';
import { ANONYMOUS_BUCKET } from '../lifecycle/turns-in-flight.js';

export interface AdmissionOptions {
  budget: BudgetStore;
  moderation: Moderation;
  config: Pick<Config, 'budget' | 'campus'> & { gateway: Pick<Config['gateway'], 'prices'> };
  logger: Logger;
  /** The spend counter and the service's spend against its cap; none by default. */
  metrics?: Pick<ServiceMetrics, 'spend' | 'serviceSpend' | 'priceRatio'>;
  /** The clock that decides the UTC day; tests move it across a midnight. */
  now: () => Date;
}

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

/** Builds the admission control of the chat routes over a budget store and a moderation client. */
export function createAdmission(options: AdmissionOptions): Admission {
  const { budget, moderation, config, now } = options;
  const metrics = options.metrics;
  const prices = new ModelPrices(config.gateway.prices);
  const limits: BudgetLimits = {
    tokens: config.budget.dailyTokenLimit,
    nanoUsd: config.budget.dailySpendLimitUsd === null ? null : toNanoUsd(config.budget.dailySpendLimitUsd),
    serviceNanoUsd: config.budget.serviceDailySpendLimitUsd === null ? null : toNanoUsd(config.budget.serviceDailySpendLimitUsd),
  };
  const serviceCapped = limits.serviceNanoUsd !== null;
  // A money limit holds each model's worst case at its price times what the gateway showed it costs.
  const ratios = new PriceRatios({ store: budget, prices, logger: options.logger.child({ component: 'admission' }), metrics, now });
  const moneyLimited = limits.nanoUsd !== null || serviceCapped;
  // The day the cap was last logged as reached: once a day and process, not once per refused turn.
  let pausedLoggedFor: string | null = null;
  const log = options.logger.child({ component: 'admission' });
  // Pruning runs on the first charge of each UTC day seen by this process; yesterday is kept so a
  // turn that straddles midnight can still be inspected.
  let prunedFor: string | null = null;
  // The largest system prompt and tool definitions a prepared turn had (a measured floor until the
  // first): the service's own text, the same for every user (the memory block in it is bounded), so
  // one user's long message never raises what another's turn must hold.
  let promptSize = PROMPT_SIZE_FLOOR_TOKENS;
  let promptSeen = false;
  const maxOutput = config.budget.maxOutputTokens;
  const cachedWeight = config.budget.cachedTokenWeight;

  /** A conditional reservation; throws when the store fails. */
  const reserveIn = async (bucket: string, day: string, amount: BudgetAmount): Promise<Reservation> => {
    const r = await budget.reserve(bucket, day, amount, limits);
    if (r.held && r.serviceNanoUsd !== null) metrics?.serviceSpend({ usd: toUsd(r.serviceNanoUsd), limitUsd: toUsd(limits.serviceNanoUsd!) });
    return r;
  };

  /** One unconditional write (an excess, a refund); retried once; never throws. */
  const write = async (bucket: string, day: string, amount: BudgetAmount, what: 'excess' | 'refund'): Promise<void> => {
    if (amount.tokens !== 0 || amount.nanoUsd !== 0) {
      const spend = { nanoUsd: amount.nanoUsd, service: serviceCapped };
      try {
        await budget.charge(bucket, day, amount.tokens, spend).catch((first: unknown) => {
          // One retry: a dropped connection should not leave a pass unmetered (or a reservation held).
          log.warn('token budget write failed; retrying once', { err: first, what });
          return budget.charge(bucket, day, amount.tokens, spend);
        });
      } catch (err) {
        log.error('token budget write failed; left as it was', { err, tokens: amount.tokens, nano_usd: amount.nanoUsd, what });
      }
    }
    if (prunedFor !== day) {
      prunedFor = day;
      try {
        const removed = await budget.pruneBefore(utcDayBefore(now(), 1));
        if (removed > 0) log.info('pruned old token budget days', { removed });
      } catch (err) {
        log.warn('token budget prune failed', { err });
      }
    }
  };

  /** The money and tokens one bucket holds for one model's calls, written through this admission's store. */
  const heldFor = (bucket: string, day: string, model: string, purpose: SpendPurpose, first: TokenSplit) =>
    new HeldBudget(first, {
      amount: (size) => ({ tokens: size.input + size.output, nanoUsd: Math.ceil(prices.worstCase(model, size) * ratios.of(model)) }),
      used: (usage) => {
        ratios.observe(model, usage);
        const nanoUsd = prices.cost(model, usage);
        metrics?.spend({ model, purpose, usd: toUsd(nanoUsd) });
        return { tokens: tokensOf(usage, cachedWeight), nanoUsd };
      },
      reserve: async (more) => {
        try {
          return (await reserveIn(bucket, day, more)).held;
        } catch (err) {
          log.warn('budget store failed; the turn finishes within what it holds', { err });
          return false;
        }
      },
      write: (amount, what) => write(bucket, day, amount, what),
    });

  /**
   * The verdict on the message: null, or the canned answer that replaces the model's (its reservation
   * goes back at once: a canned answer uses no model). Never rejects: moderation fails open.
   */
  async function moderate(request: TurnRequest, signal: AbortSignal, span: TraceSpan, turnBudget: TurnBudget): Promise<Refusal | null> {
    const moderationSpan = span.child('moderation');
    const verdict = await spanned(moderationSpan, moderation.check(request.query, signal), (v) => moderationSpan.set({ 'campus.moderation.flagged': v.flagged })).catch(
      (): ModerationVerdict => ({ flagged: false }),
    );
    if (!verdict.flagged) return null;
    log.info('message stopped by moderation', { category: verdict.category });
    await turnBudget.release();
    return verdict.selfHarm
      ? { text: selfHarmSupport(config.campus), reason: 'self_harm' }
      : { text: moderationRefusal(config.campus), reason: 'moderation' };
  }

  /** The error of a refused turn: which limit, and until when. */
  const refusedTurn = (refusedBy: 'tokens' | 'spend' | 'service'): AppError => {
    const retryAfter = secondsUntilUtcMidnight(now());
    if (refusedBy === 'service') {
      const day = utcDay(now());
      if (pausedLoggedFor !== day) {
        pausedLoggedFor = day;
        log.warn('service-wide daily spending cap reached; turns are refused until 00:00 UTC', { limit_usd: config.budget.serviceDailySpendLimitUsd });
      }
      return new ServicePausedError(retryAfter);
    }
    return refusedBy === 'spend'
      ? new TooManyRequestsError(`the daily spending limit of $${config.budget.dailySpendLimitUsd} is reached; it resets at 00:00 UTC`, retryAfter)
      : new TooManyRequestsError(`the daily token budget of ${limits.tokens} tokens is spent; it resets at 00:00 UTC`, retryAfter);
  };

  return {
    async admit(request: TurnRequest, signal: AbortSignal, span: TraceSpan = noSpan): Promise<AdmissionDecision> {
      const bucket = budgetBucket(request);
      if (moneyLimited) await ratios.refresh();
      const day = utcDay(now());
      const first = toolPassHold(requestTokens(request) + promptSize, maxOutput);
      const turnBudget = heldFor(bucket, day, request.model, 'chat', first);
      let reservation: Reservation;
      try {
        const amount = turnBudget.initial;
        reservation = await spanned(span.child('budget', { 'campus.budget.tokens_held': amount.tokens }), reserveIn(bucket, day, amount));
      } catch (err) {
        log.error('budget store failed; refusing the turn', { err });
        throw new ServiceUnavailableError('the token budget cannot be checked right now; please try again shortly', 'token budget unavailable');
      }
      if (!reservation.held) throw refusedTurn(reservation.refusedBy);
      // Moderation runs beside the turn's preparation (issue 46): the verdict is a promise the turn awaits
      // before its first model call, not a wait before anything else starts.
      return { refusal: moderate(request, signal, span, turnBudget), budget: turnBudget };
    },

    async reserveCall(call): Promise<CallReservation | CallRefusal> {
      const bucket = call.userId ?? ANONYMOUS_BUCKET;
      if (moneyLimited) await ratios.refresh();
      const at = now();
      const day = utcDay(at);
      const resumesAt = new Date(at.getTime() + secondsUntilUtcMidnight(at) * 1000);
      const held = heldFor(bucket, day, call.model, call.purpose, call.tokens);
      try {
        const reservation = await reserveIn(bucket, day, held.initial);
        if (!reservation.held) return { refused: reservation.refusedBy === 'service' ? 'service' : 'budget', resumesAt };
      } catch (err) {
        log.warn('budget store failed; the model call is not made', { err });
        return { refused: 'unavailable', resumesAt };
      }
      return {
        refused: null,
        async settle(usage) {
          if (usage) await held.charge(usage);
          await held.release();
        },
      };
    },

    notePromptSize(tokens: number): void {
      if (!promptSeen || tokens > promptSize) promptSize = tokens;
      promptSeen = true;
    },

    async reviewAnswer(text: string, signal: AbortSignal): Promise<Refusal | null> {
      const verdict = await moderation.check(text, signal);
      if (!verdict.flagged) return null;
      log.info('answer replaced by moderation', { category: verdict.category });
      // An answer flagged for self-harm means the conversation is about it: crisis resources are
      // kinder than a bare notice.
      return verdict.selfHarm
        ? { text: selfHarmSupport(config.campus), reason: 'self_harm' }
        : { text: flaggedAnswerNotice(config.campus), reason: 'moderation' };
    },
  };
}

interface HeldWrites {
  /** What a size of call holds: its tokens and their worst-case cost at the model's price. */
  amount(size: TokenSplit): BudgetAmount;
  /** What a finished pass used: its tokens as the budget counts them and what it cost (also counted as spend). */
  used(usage: Usage): BudgetAmount;
  /** A conditional reservation of `more`; false when refused. Never throws. */
  reserve(more: BudgetAmount): Promise<boolean>;
  /** An unconditional write (positive: charge, negative: refund); never throws. */
  write(amount: BudgetAmount, what: 'excess' | 'refund'): Promise<void>;
}

/**
 * Tokens and money held in the store for one turn or call, `initial` of them to begin with. The two
 * move together: a top-up reserves what either lacks, a pass takes its usage from both, and the rest of
 * both goes back when the turn ends.
 */
class HeldBudget implements TurnBudget {
  private tokens: number;
  private nanoUsd: number;
  private released = false;
  readonly initial: BudgetAmount;

  constructor(first: TokenSplit, private readonly store: HeldWrites) {
    this.initial = store.amount(first);
    this.tokens = this.initial.tokens;
    this.nanoUsd = this.initial.nanoUsd;
  }

  get held(): number {
    return this.tokens;
  }

  async hold(size: TokenSplit): Promise<boolean> {
    const want = this.store.amount(size);
    const more = { tokens: Math.max(0, Math.ceil(want.tokens) - this.tokens), nanoUsd: Math.max(0, want.nanoUsd - this.nanoUsd) };
    if (more.tokens === 0 && more.nanoUsd === 0) return true;
    if (this.released || !(await this.store.reserve(more))) return false;
    this.tokens += more.tokens;
    this.nanoUsd += more.nanoUsd;
    return true;
  }

  async charge(usage: Usage): Promise<void> {
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
    const back = { tokens: -this.tokens, nanoUsd: -this.nanoUsd };
    this.tokens = 0;
    this.nanoUsd = 0;
    await this.store.write(back, 'refund');
  }
}
