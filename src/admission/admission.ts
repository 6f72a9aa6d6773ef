/**
 * Admission control seen from the chat routes: the daily budgets in tokens and money (held before any model call,
 * settled after every call, the rest given back when the turn ends) and moderation of the message before the turn and of the answer before
 * `done`. Implementations live beside this file; `openAdmission` admits everything (tests, benches).
 */
import type { TurnRequest } from '../request/chat-request.js';
import type { ReserveCall } from '../model/metered-call.js';
import type { TokenSplit } from '../model/model-prices.js';
import type { Usage } from '../model/usage.js';
import type { TraceSpan } from '../telemetry/telemetry.js';
import { principalOf } from '../security/principal.js';

export type ModerationVerdict = { flagged: false } | { flagged: true; category: string; selfHarm: boolean };

export interface Moderation {
  /**
   * Never throws: a provider failure or timeout is logged and answers `{flagged: false}` (fail open).
   * `images`: data URLs of the images a model will see, moderated with the text.
   */
  check(text: string, signal?: AbortSignal, images?: readonly string[]): Promise<ModerationVerdict>;
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
 * One turn's share of the daily budget. Admission held enough for a pass that may call tools and the
 * answer pass after it (turn-reservation.ts); before each pass the turn makes sure what that pass may
 * cost is held (topping up when it can), and settles the pass's real usage after it.
 */
export interface TurnBudget {
  /** Tokens held for this turn and not yet spent (Infinity when unmetered). */
  readonly held: number;
  /**
   * Makes sure a pass of `size` (its input and `max_tokens`) is held for what comes next, in tokens and
   * in money at the turn's model's price, reserving the difference atomically. False when a daily budget
   * cannot cover it (or its store cannot answer): the turn then finishes within what it holds. Never throws.
   */
  hold(size: TokenSplit, final?: boolean): Promise<boolean>;
  /**
   * Aborted when the turn's model turned out to cost more than its configured price and the turn's
   * passes no longer fit under a spending limit at the observed price (daily-budget.ts): the turn ends
   * now with the spend note, charged for what it used. `final` on the answer pass's `hold` may stop it
   * the same way. Absent: never stopped.
   */
  readonly stopped?: AbortSignal;
  /** After a pass (also one cut short): its usage is taken from what is held, any excess charged. Never throws. */
  charge(usage: Usage): Promise<void>;
  /** The turn ended (answer, error, abort): what is still held is given back. Never throws; idempotent. */
  release(): Promise<void>;
}

/** A budget that never refuses and counts nothing (canned turns, tests, benches). */
export const unmeteredBudget: TurnBudget = {
  held: Infinity,
  hold: async () => true,
  charge: async () => undefined,
  release: async () => undefined,
};

export interface AdmissionDecision {
  /**
   * Moderation's verdict on the message, still running when admission returns (the turn prepares
   * beside it): non-null when the message was stopped, and the turn answers this text with no model
   * call. Never rejects.
   */
  refusal: Promise<Refusal | null>;
  /** The turn's reservation; release it when the turn ends. */
  budget: TurnBudget;
}

export interface Admission {
  /**
   * Runs before any stream starts: holds the turn's reservation atomically (a tool pass and the answer
   * after it; throws TooManyRequestsError 429 with Retry-After when it would pass the limit, or
   * ServiceUnavailableError 503 when the budget store fails), then starts moderation of the query.
   */
  /** `span`: the turn's admission span; the budget check and moderation are its children. */
  admit(request: TurnRequest, signal: AbortSignal, span?: TraceSpan): Promise<AdmissionDecision>;
  /** Reserves one model call outside a turn (a title, a memory extraction) from the user's bucket. */
  reserveCall: ReserveCall;
  /**
   * Told the size (reservation tokens) of a prepared turn's system prompt and tool definitions: the part
   * of a first pass that is not the user's text, which admission must hold before the prompt exists.
   */
  notePromptSize(tokens: number): void;
  /** Moderates the final answer; returns the replacement (and why) when flagged, else null. */
  reviewAnswer(text: string, signal: AbortSignal): Promise<Refusal | null>;
  /** Shutdown, after the turns ended: writes the budget's refunds still waiting (refund-window.ts). */
  close(): Promise<void>;
}

export const openAdmission: Admission = {
  admit: async () => ({ refusal: Promise.resolve(null), budget: unmeteredBudget }),
  reserveCall: async () => ({ refused: null, settle: async () => undefined }),
  notePromptSize: () => undefined,
  reviewAnswer: async () => null,
  close: async () => undefined,
};

/** The budget bucket of a request: its principal (CONTRACT.md: signed-out turns share `anonymous`). */
export function budgetBucket(request: Pick<TurnRequest, 'userId'>): string {
  return principalOf(request.userId);
}
