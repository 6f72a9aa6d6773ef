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
 *
 * The tokens and money themselves (limits, prices, the store's writes, a refusal's error) are the
 * DailyBudget's (daily-budget.ts); this module composes it with moderation and the prompt's size.
 */
import type { Config } from '../config.js';
import { ServiceUnavailableError } from '../http/errors.js';
import type { Logger } from '../logger.js';
import type { CallRefusal, CallReservation } from '../model/metered-call.js';
import type { TurnRequest } from '../request/chat-request.js';
import { budgetBucket, type Admission, type AdmissionDecision, type Moderation, type ModerationVerdict, type Refusal, type TurnBudget } from './admission.js';
import { flaggedAnswerNotice, moderationRefusal, selfHarmSupport } from './replies.js';
import { secondsUntilUtcMidnight, utcDay, type BudgetStore, type Reservation } from './budget-store.js';
import { DailyBudget } from './daily-budget.js';
import { PROMPT_SIZE_FLOOR_TOKENS, requestTokens, toolPassHold } from './turn-reservation.js';
import { noSpan, spanned, type ServiceMetrics, type TraceSpan } from '../telemetry/telemetry.js';

export interface AdmissionOptions {
  budget: BudgetStore;
  moderation: Moderation;
  config: Pick<Config, 'budget' | 'campus'> & { gateway: Pick<Config['gateway'], 'prices'> };
  logger: Logger;
  /** The spend counter and the service's spend against its cap; none by default. */
  metrics?: Pick<ServiceMetrics, 'spend' | 'serviceSpend' | 'priceRatio'>;
  /** The clock that decides the UTC day; tests move it across a midnight. */
  now: () => Date;
  /** BUDGET_REFUND_WINDOW_MS (refund-window.ts); 0, the default here: each refund written when its turn ends. */
  refundWindowMs?: number;
}

/** Builds the admission control of the chat routes over a budget store and a moderation client. */
export function createAdmission(options: AdmissionOptions): Admission {
  const { moderation, config, now } = options;
  const daily = new DailyBudget({
    store: options.budget,
    config,
    logger: options.logger,
    now,
    ...(options.metrics && { metrics: options.metrics }),
    ...(options.refundWindowMs !== undefined && { refundWindowMs: options.refundWindowMs }),
  });
  const log = options.logger.child({ component: 'admission' });
  // The largest system prompt and tool definitions a prepared turn had (a measured floor until the
  // first): the service's own text, the same for every user (the memory block in it is bounded), so
  // one user's long message never raises what another's turn must hold.
  let promptSize = PROMPT_SIZE_FLOOR_TOKENS;
  let promptSeen = false;
  const maxOutput = config.budget.maxOutputTokens;

  /**
   * The verdict on the message: null, or the canned answer that replaces the model's (its reservation
   * goes back at once: a canned answer uses no model). Never rejects: moderation fails open.
   */
  async function moderate(request: TurnRequest, signal: AbortSignal, span: TraceSpan, turnBudget: TurnBudget): Promise<Refusal | null> {
    const moderationSpan = span.child('moderation');
    const verdict = await spanned(moderationSpan, moderation.check(request.query, signal, request.seen?.images.map((i) => i.dataUrl)), (v) => moderationSpan.set({ 'campus.moderation.flagged': v.flagged })).catch(
      (): ModerationVerdict => ({ flagged: false }),
    );
    if (!verdict.flagged) return null;
    log.info('message stopped by moderation', { category: verdict.category });
    await turnBudget.release();
    return verdict.selfHarm
      ? { text: selfHarmSupport(config.campus), reason: 'self_harm' }
      : { text: moderationRefusal(config.campus), reason: 'moderation' };
  }

  return {
    async admit(request: TurnRequest, signal: AbortSignal, span: TraceSpan = noSpan): Promise<AdmissionDecision> {
      const bucket = budgetBucket(request);
      const checking = await daily.ready(request.model, signal);
      const day = utcDay(now());
      const first = toolPassHold(requestTokens(request) + promptSize, maxOutput);
      const turnBudget = daily.held(bucket, day, request.model, 'chat', first);
      let reservation: Reservation;
      try {
        const amount = turnBudget.initial;
        reservation = await spanned(span.child('budget', { 'campus.budget.tokens_held': amount.tokens }), daily.begin(turnBudget, checking));
      } catch (err) {
        log.error('budget store failed; refusing the turn', { err });
        throw new ServiceUnavailableError('the token budget cannot be checked right now; please try again shortly', 'token budget unavailable');
      }
      if (!reservation.held) throw daily.refused(reservation.refusedBy);
      // Moderation runs beside the turn's preparation (issue 46): the verdict is a promise the turn awaits
      // before its first model call, not a wait before anything else starts.
      return { refusal: moderate(request, signal, span, turnBudget), budget: turnBudget };
    },

    async reserveCall(call): Promise<CallReservation | CallRefusal> {
      const bucket = budgetBucket(call);
      const checking = await daily.ready(call.model);
      const at = now();
      const day = utcDay(at);
      const resumesAt = new Date(at.getTime() + secondsUntilUtcMidnight(at) * 1000);
      const held = daily.held(bucket, day, call.model, call.purpose, call.tokens);
      try {
        const reservation = await daily.begin(held, checking);
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

    close: () => daily.close(),
  };
}
