/**
 * Admission control as the chat routes call it (the `Admission` interface of admission.ts):
 *
 * - admit: reserves an estimate of the turn's first pass (at least what the last turn's first pass
 *   asked for) in ONE atomic conditional upsert (the store
 *   adds it only while the day's total, reservations included, stays within the limit), else 429 with
 *   `Retry-After` until 00:00 UTC; a store that cannot answer refuses the turn with 503 (never run
 *   unmetered); then moderation of the query, whose verdict may turn the turn into a canned refusal.
 * - the turn's budget (TurnBudget): each pass tops the reservation up to its own estimate (prompt
 *   estimate + TOKEN_RESERVE_PER_PASS) before it starts and is refused mid-turn like at admission;
 *   after the pass its real usage is taken from the reservation (only an excess is written); when the
 *   turn ends, however it ends, the rest is given back. Concurrent turns therefore never spend past the
 *   limit by more than one pass's excess over its estimate.
 * - charge: titles and memory extraction, charged to the user after the fact.
 * - reviewAnswer: moderation of the final answer; a flagged one is replaced.
 */
import type { Config } from '../config.js';
import { ServiceUnavailableError, TooManyRequestsError } from '../http/errors.js';
import type { Logger } from '../logger.js';
import type { TurnRequest } from '../request/chat-request.js';
import type { Usage } from '../model/usage.js';
import { reservationTokens } from '../model/estimate-usage.js';
import { budgetBucket, type Admission, type AdmissionDecision, type Moderation, type Refusal, type TurnBudget } from './admission.js';
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

/** The first pass's estimate, known before the prompt is built: the user's text plus one pass's allowance. */
export function firstPassEstimate(request: Pick<TurnRequest, 'query' | 'history'>, reservePerPass: number): number {
  return reservationTokens(request.query) + request.history.reduce((n, t) => n + reservationTokens(t.content), 0) + reservePerPass;
}

/** Builds the admission control of the chat routes over a budget store and a moderation client. */
export function createAdmission(options: AdmissionOptions): Admission {
  const { budget, moderation, config, now } = options;
  const limit = config.budget.dailyTokenLimit;
  const log = options.logger.child({ component: 'admission' });
  // Pruning runs on the first charge of each UTC day seen by this process; yesterday is kept so a
  // turn that straddles midnight can still be inspected.
  let prunedFor: string | null = null;
  // What the last turn's first pass asked to reserve (prompt, tools, allowance; doubled when it offered
  // tools): admission reserves at least that, so a turn let in can usually run its passes instead of
  // being stopped halfway when concurrent admissions took the rest.
  let lastFirstPass = 0;

  /** One unconditional write (a charge, an excess, a refund); retried once; never throws. */
  const write = async (bucket: string, day: string, tokens: number, what: 'charge' | 'excess' | 'refund'): Promise<void> => {
    if (tokens !== 0) {
      try {
        await budget.charge(bucket, day, tokens).catch((first: unknown) => {
          // One retry: a dropped connection should not leave a pass unmetered (or a reservation held).
          log.warn('token budget write failed; retrying once', { err: first, what });
          return budget.charge(bucket, day, tokens);
        });
      } catch (err) {
        log.error('token budget write failed; left as it was', { err, tokens, what });
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

  return {
    async admit(request: TurnRequest, signal: AbortSignal): Promise<AdmissionDecision> {
      const at = now();
      const bucket = budgetBucket(request);
      const day = utcDay(at);
      const refuse = () =>
        new TooManyRequestsError(`the daily token budget of ${limit} tokens is spent; it resets at 00:00 UTC`, secondsUntilUtcMidnight(now()));
      const reserve = async (tokens: number): Promise<void> => {
        let total: number | null;
        try {
          total = await budget.reserve(bucket, day, tokens, limit);
        } catch (err) {
          log.error('token budget store failed; refusing the turn', { err });
          throw new ServiceUnavailableError(
            'the token budget cannot be checked right now; please try again shortly',
            'token budget unavailable',
          );
        }
        if (total === null) throw refuse();
      };
      const first = Math.max(firstPassEstimate(request, config.budget.reservePerPass), lastFirstPass);
      await reserve(first);
      const turnBudget = createTurnBudget(first, {
        reserve,
        write: (tokens, what) => write(bucket, day, tokens, what),
        firstPass: (tokens) => {
          lastFirstPass = tokens;
        },
      });
      try {
        const verdict = await moderation.check(request.query, signal);
        if (!verdict.flagged) return { refusal: null, budget: turnBudget };
        log.info('message stopped by moderation', { category: verdict.category });
        // A canned answer uses no model: the reservation goes back at once.
        await turnBudget.release();
        return verdict.selfHarm
          ? { refusal: { text: selfHarmSupport(config.campus), reason: 'self_harm' }, budget: turnBudget }
          : { refusal: { text: moderationRefusal(config.campus), reason: 'moderation' }, budget: turnBudget };
      } catch (err) {
        await turnBudget.release();
        throw err;
      }
    },

    async charge(request, usage): Promise<void> {
      const at = now();
      await write(budgetBucket(request), utcDay(at), tokensOf(usage), 'charge');
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

interface BudgetWrites {
  /** A conditional reservation of `tokens` more; throws 429/503 when refused. */
  reserve(tokens: number): Promise<void>;
  /** An unconditional write (positive: charge, negative: refund); never throws. */
  write(tokens: number, what: 'excess' | 'refund'): Promise<void>;
  /** Told what the turn's first pass asked to reserve. */
  firstPass(tokens: number): void;
}

/** The budget of one admitted turn, holding `reserved` tokens to begin with. */
function createTurnBudget(initial: number, store: BudgetWrites): TurnBudget {
  let reserved = initial;
  let released = false;
  let first = true;
  return {
    async reserve(tokens) {
      if (first) store.firstPass(Math.ceil(tokens));
      first = false;
      if (released) return;
      const more = Math.ceil(tokens) - reserved;
      if (more <= 0) return;
      await store.reserve(more);
      reserved += more;
    },
    async charge(usage) {
      const used = tokensOf(usage);
      if (used <= reserved) {
        // Already counted in the store as reserved: nothing to write.
        reserved -= used;
        return;
      }
      const excess = used - reserved;
      reserved = 0;
      await store.write(excess, 'excess');
    },
    async release() {
      if (released) return;
      released = true;
      const back = reserved;
      reserved = 0;
      await store.write(-back, 'refund');
    },
  };
}
