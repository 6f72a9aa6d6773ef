/**
 * Admission control seen from the chat routes: the daily token budget (checked before any model call,
 * charged after every pass) and moderation of the message before the turn and of the answer before
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

export interface AdmissionDecision {
  /** Non-null when the message was stopped by moderation: the turn answers this text, no model call. */
  refusal: Refusal | null;
}

export interface Admission {
  /**
   * Runs before any stream starts: budget (throws TooManyRequestsError 429 with Retry-After, or
   * ServiceUnavailableError 503 when the budget store fails), then moderation of the query.
   */
  admit(request: TurnRequest, signal: AbortSignal): Promise<AdmissionDecision>;
  /** Charges one model pass to the request's bucket (`user_id` or `anonymous`). Never throws. */
  charge(request: TurnRequest, usage: Usage): Promise<void>;
  /** Moderates the final answer; returns the replacement (and why) when flagged, else null. */
  reviewAnswer(text: string, signal: AbortSignal): Promise<Refusal | null>;
}

export const openAdmission: Admission = {
  admit: async () => ({ refusal: null }),
  charge: async () => undefined,
  reviewAnswer: async () => null,
};

/** The budget bucket of a request (CONTRACT.md: anonymous turns share `anonymous`). */
export function budgetBucket(request: Pick<TurnRequest, 'userId'>): string {
  return request.userId ?? 'anonymous';
}
