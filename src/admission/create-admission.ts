/**
 * Admission control as the chat routes call it (the `Admission` interface of admission.ts):
 *
 * - admit: the bucket's stored total for today (UTC) must be below the daily limit, else 429 with
 *   `Retry-After` until 00:00 UTC; a store that cannot answer refuses the turn with 503 (never run
 *   unmetered); then moderation of the query, whose verdict may turn the turn into a canned refusal.
 * - charge: every model pass adds its tokens in one atomic upsert, also for passes cut short. A turn
 *   admitted just below the limit may overshoot it by its own passes; the next turn is refused.
 * - reviewAnswer: moderation of the final answer; a flagged one is replaced.
 */
import type { Config } from '../config.js';
import { ServiceUnavailableError, TooManyRequestsError } from '../http/errors.js';
import type { Logger } from '../logger.js';
import type { TurnRequest } from '../request/chat-request.js';
import type { Usage } from '../model/usage.js';
import { budgetBucket, type Admission, type AdmissionDecision, type Moderation, type Refusal } from './admission.js';
import { flaggedAnswerNotice, moderationRefusal, selfHarmSupport } from './replies.js';
import { secondsUntilUtcMidnight, utcDay, utcDayBefore, type TokenBudgetStore } from './token-budget.js';

export interface AdmissionOptions {
  budget: TokenBudgetStore;
  moderation: Moderation;
  config: Pick<Config, 'budget' | 'campus'>;
  logger: Logger;
  /** The clock that decides the UTC day; tests move it across a midnight. */
  now: () => Date;
}

/** Tokens a pass costs: the reported total, never less than its parts (some gateways omit the total). */
export function tokensOf(usage: Usage): number {
  const parts = Math.max(0, usage.promptTokens) + Math.max(0, usage.completionTokens);
  const total = Math.max(0, usage.totalTokens, parts);
  return Number.isFinite(total) ? Math.ceil(total) : 0;
}

/** Builds the admission control of the chat routes over a budget store and a moderation client. */
export function createAdmission(options: AdmissionOptions): Admission {
  const { budget, moderation, config, now } = options;
  const limit = config.budget.dailyTokenLimit;
  const log = options.logger.child({ component: 'admission' });
  // Pruning runs on the first charge of each UTC day seen by this process; yesterday is kept so a
  // turn that straddles midnight can still be inspected.
  let prunedFor: string | null = null;

  return {
    async admit(request: TurnRequest, signal: AbortSignal): Promise<AdmissionDecision> {
      const at = now();
      let used: number;
      try {
        used = await budget.used(budgetBucket(request), utcDay(at));
      } catch (err) {
        log.error('token budget store failed; refusing the turn', { err });
        throw new ServiceUnavailableError(
          'the token budget cannot be checked right now; please try again shortly',
          'token budget unavailable',
        );
      }
      if (used >= limit) {
        throw new TooManyRequestsError(
          `the daily token budget of ${limit} tokens is spent; it resets at 00:00 UTC`,
          secondsUntilUtcMidnight(at),
        );
      }
      const verdict = await moderation.check(request.query, signal);
      if (!verdict.flagged) return { refusal: null };
      log.info('message stopped by moderation', { category: verdict.category });
      return verdict.selfHarm
        ? { refusal: { text: selfHarmSupport(config.campus), reason: 'self_harm' } }
        : { refusal: { text: moderationRefusal(config.campus), reason: 'moderation' } };
    },

    async charge(request: TurnRequest, usage: Usage): Promise<void> {
      const tokens = tokensOf(usage);
      const at = now();
      const day = utcDay(at);
      if (tokens > 0) {
        const bucket = budgetBucket(request);
        try {
          await budget.charge(bucket, day, tokens).catch((first: unknown) => {
            // One retry: a dropped connection should not leave a pass unmetered.
            log.warn('token budget charge failed; retrying once', { err: first });
            return budget.charge(bucket, day, tokens);
          });
        } catch (err) {
          log.error('token budget charge failed; pass left unmetered', { err, tokens, estimated: usage.estimated });
        }
      }
      if (prunedFor !== day) {
        prunedFor = day;
        try {
          const removed = await budget.pruneBefore(utcDayBefore(at, 1));
          if (removed > 0) log.info('pruned old token budget days', { removed });
        } catch (err) {
          log.warn('token budget prune failed', { err });
        }
      }
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
