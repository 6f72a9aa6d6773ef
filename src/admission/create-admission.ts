/**
 * Admission control as the chat routes call it (the `Admission` interface of admission.ts):
 *
 * - admit: holds the turn's reservation (turn-reservation.ts: its first pass, which may call tools,
 *   and the answer pass after it) in ONE atomic conditional upsert (the store adds it only while the
 *   day's total, reservations included, stays within the limit), else 429 with `Retry-After` until
 *   00:00 UTC; a store that cannot answer refuses the turn with 503 (never run unmetered); then
 *   moderation of the query, whose verdict may turn the turn into a canned refusal.
 * - the turn's budget (TurnBudget): a pass that needs more than is held tops up with the same
 *   conditional reservation; a refused top-up is an answer to the pass (it answers within what is held),
 *   never an error. After each pass its real usage is taken from what is held (only an excess is
 *   written); when the turn ends, however it ends, the rest is given back. Every pass is sent with
 *   `max_tokens`, so with a gateway that reports its usage honestly the day never passes the limit.
 * - reserveCall: titles and memory extraction reserve their call the same way and settle after it.
 * - reviewAnswer: moderation of the final answer; a flagged one is replaced.
 */
import type { Config } from '../config.js';
import { ServiceUnavailableError, TooManyRequestsError } from '../http/errors.js';
import type { Logger } from '../logger.js';
import type { CallReservation } from '../model/metered-call.js';
import type { TurnRequest } from '../request/chat-request.js';
import type { Usage } from '../model/usage.js';
import { budgetBucket, type Admission, type AdmissionDecision, type Moderation, type Refusal, type TurnBudget } from './admission.js';
import { flaggedAnswerNotice, moderationRefusal, selfHarmSupport } from './replies.js';
import { secondsUntilUtcMidnight, utcDay, utcDayBefore, type TokenBudgetStore } from './token-budget.js';
import { PROMPT_SIZE_FLOOR_TOKENS, requestTokens, toolPassHold } from './turn-reservation.js';
import { noSpan, spanned, type TraceSpan } from '../telemetry/telemetry.js';
import { ANONYMOUS_BUCKET } from '../lifecycle/turns-in-flight.js';

export interface AdmissionOptions {
  budget: TokenBudgetStore;
  moderation: Moderation;
  config: Pick<Config, 'budget' | 'campus'>;
  logger: Logger;
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
  const limit = config.budget.dailyTokenLimit;
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

  /** A conditional reservation: the new total, or null when it would pass the limit; throws when the store fails. */
  const reserveIn = (bucket: string, day: string, tokens: number) => budget.reserve(bucket, day, tokens, limit);

  /** One unconditional write (a charge, an excess, a refund); retried once; never throws. */
  const write = async (bucket: string, day: string, tokens: number, what: 'excess' | 'refund'): Promise<void> => {
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
    async admit(request: TurnRequest, signal: AbortSignal, span: TraceSpan = noSpan): Promise<AdmissionDecision> {
      const bucket = budgetBucket(request);
      const day = utcDay(now());
      const first = toolPassHold(requestTokens(request) + promptSize, maxOutput);
      let total: number | null;
      try {
        total = await spanned(span.child('budget', { 'campus.budget.tokens_held': first }), reserveIn(bucket, day, first));
      } catch (err) {
        log.error('token budget store failed; refusing the turn', { err });
        throw new ServiceUnavailableError('the token budget cannot be checked right now; please try again shortly', 'token budget unavailable');
      }
      if (total === null) {
        throw new TooManyRequestsError(`the daily token budget of ${limit} tokens is spent; it resets at 00:00 UTC`, secondsUntilUtcMidnight(now()));
      }
      const turnBudget = createHeldTokens(first, {
        reserve: async (tokens) => {
          try {
            return (await reserveIn(bucket, day, tokens)) !== null;
          } catch (err) {
            log.warn('token budget store failed; the turn finishes within what it holds', { err });
            return false;
          }
        },
        write: (tokens, what) => write(bucket, day, tokens, what),
      }, cachedWeight);
      const moderationSpan = span.child('moderation');
      try {
        const verdict = await spanned(moderationSpan, moderation.check(request.query, signal), (v) =>
          moderationSpan.set({ 'campus.moderation.flagged': v.flagged }),
        );
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

    async reserveCall(userId, tokens): Promise<CallReservation | null> {
      const bucket = userId ?? ANONYMOUS_BUCKET;
      const day = utcDay(now());
      try {
        if ((await reserveIn(bucket, day, tokens)) === null) return null;
      } catch (err) {
        log.warn('token budget store failed; the model call is not made', { err });
        return null;
      }
      const held = createHeldTokens(tokens, { reserve: async () => false, write: (n, what) => write(bucket, day, n, what) }, cachedWeight);
      return {
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

interface BudgetWrites {
  /** A conditional reservation of `tokens` more; false when refused. Never throws. */
  reserve(tokens: number): Promise<boolean>;
  /** An unconditional write (positive: charge, negative: refund); never throws. */
  write(tokens: number, what: 'excess' | 'refund'): Promise<void>;
}

/** Tokens held in the store for one turn or call, `initial` to begin with; cached prompt tokens count at `cachedWeight`. */
function createHeldTokens(initial: number, store: BudgetWrites, cachedWeight: number): TurnBudget {
  let held = initial;
  let released = false;
  return {
    get held() {
      return held;
    },
    async hold(tokens) {
      const more = Math.ceil(tokens) - held;
      if (more <= 0) return true;
      if (released || !(await store.reserve(more))) return false;
      held += more;
      return true;
    },
    async charge(usage) {
      const used = tokensOf(usage, cachedWeight);
      if (used <= held) {
        // Already counted in the store as held: nothing to write.
        held -= used;
        return;
      }
      const excess = used - held;
      held = 0;
      await store.write(excess, 'excess');
    },
    async release() {
      if (released) return;
      released = true;
      const back = held;
      held = 0;
      await store.write(-back, 'refund');
    },
  };
}
