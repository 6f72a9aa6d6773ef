/**
 * Admission control seen from the chat routes: the daily token budget (reserved before any model call,
 * settled after every pass, the rest given back when the turn ends) and moderation of the message before the turn and of the answer before
 * `done`. Implementations live beside this file; `openAdmission` admits everything (tests, benches).
 */
import type { TurnRequest } from '../request/chat-request.js';
import type { Usage } from '../model/usage.js';

export type ModerationVerdict = { flagged: false } | { flagged: true; category: string; selfHarm: boolean };

export interface Moderation {
  /** Never throws: a provider failure or timeout is logged and answers `{flagged: false}` (fail open). */
  check(text: string, signal?: AbortSignal): Promise<ModerationVerdict>;
}

export const noModeration: Moderation = { check: async () => ({ flagged: false }) };

/**
 * A canned answer moderation put in place of the model's: `self_harm` is the supportive answer with
 * crisis resources, `moderation` the short refusal or notice. The reason decides the turn's `thought`.
 */
export interface Refusal {
  text: string;
  reason: 'moderation' | 'self_harm';
}

/**
 * One turn's share of the daily budget. Admission reserved an estimate of the first pass; each model
 * pass makes sure its own estimate is reserved before it starts, and settles its real usage after.
 */
export interface TurnBudget {
  /**
   * Before a model pass: tops the reservation up to `tokens`. Throws TooManyRequestsError (429) when the
   * budget cannot cover it, ServiceUnavailableError (503) when the budget store fails.
   */
  reserve(tokens: number): Promise<void>;
  /** After a pass (also one cut short): its usage is taken from the reservation, any excess charged. Never throws. */
  charge(usage: Usage): Promise<void>;
  /** The turn ended (answer, error, abort): what is still reserved is given back. Never throws; idempotent. */
  release(): Promise<void>;
}

/** A budget that never refuses and counts nothing (canned turns, tests, benches). */
export const unmeteredBudget: TurnBudget = {
  reserve: async () => undefined,
  charge: async () => undefined,
  release: async () => undefined,
};

export interface AdmissionDecision {
  /** Non-null when the message was stopped by moderation: the turn answers this text, no model call. */
  refusal: Refusal | null;
  /** The turn's reservation; release it when the turn ends. */
  budget: TurnBudget;
}

export interface Admission {
  /**
   * Runs before any stream starts: reserves the first pass's estimate atomically (throws
   * TooManyRequestsError 429 with Retry-After when it would pass the limit, or ServiceUnavailableError
   * 503 when the budget store fails), then moderation of the query.
   */
  admit(request: TurnRequest, signal: AbortSignal): Promise<AdmissionDecision>;
  /**
   * Charges model work done outside a turn (a title, a memory extraction) to the request's bucket
   * (`user_id` or `anonymous`). Never throws.
   */
  charge(request: Pick<TurnRequest, 'userId'>, usage: Usage): Promise<void>;
  /** Moderates the final answer; returns the replacement (and why) when flagged, else null. */
  reviewAnswer(text: string, signal: AbortSignal): Promise<Refusal | null>;
}

export const openAdmission: Admission = {
  admit: async () => ({ refusal: null, budget: unmeteredBudget }),
  charge: async () => undefined,
  reviewAnswer: async () => null,
};

/** The budget bucket of a request (CONTRACT.md: anonymous turns share `anonymous`). */
export function budgetBucket(request: Pick<TurnRequest, 'userId'>): string {
  return request.userId ?? 'anonymous';
}
