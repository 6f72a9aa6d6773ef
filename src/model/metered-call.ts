/**
 * One non-streamed model call (a title, a memory extraction, a fact reconciliation) paid from a user's
 * daily budget the same way a chat pass is: what it may cost (its messages as sent plus its
 * `max_tokens`, in tokens and at the model's price) is reserved before it is sent, and settled to the
 * reported usage and cost after. The budget
 * itself lives in admission/; this room only sees the `ReserveCall` function it is given.
 */
import { callReservation } from './estimate-usage.js';
import type { CompleteRequest, ModelGateway } from './gateway.js';
import type { TokenSplit } from './model-prices.js';
import type { Usage } from './usage.js';

/** What a model call is for, as spend is counted (a chat turn's passes are `chat`). */
export type SpendPurpose = 'chat' | 'title' | 'extraction';

/** Held for one call. */
export interface CallReservation {
  refused: null;
  /** After the call: its usage and cost taken from what was held (any excess charged), the rest given back. Never throws. */
  settle(usage: Usage | null): Promise<void>;
}

/**
 * A call the budget did not cover: the user's daily budget (`budget`), the service-wide cap
 * (`service`: the service is paused until `resumesAt`, the next reset), or a store that could not answer.
 */
export interface CallRefusal {
  refused: 'budget' | 'service' | 'unavailable';
  resumesAt: Date;
}

/** One call to reserve: whose budget, which model (its price), what for, and its size. */
export interface CallToReserve {
  /** Null: the `anonymous` bucket. */
  userId: string | null;
  model: string;
  purpose: Exclude<SpendPurpose, 'chat'>;
  tokens: TokenSplit;
}

/** Reserves one call from its user's budgets (and the service's cap). Never throws. */
export type ReserveCall = (call: CallToReserve) => Promise<CallReservation | CallRefusal>;

/** The budget refused the call; nothing was sent. */
export class CallNotAdmittedError extends Error {
  override name = 'CallNotAdmittedError';
  constructor(readonly refusal: CallRefusal) {
    super(refusal.refused === 'service' ? "the service's daily spending cap is reached" : 'the daily budget cannot cover this model call');
  }
}

/**
 * Sends `request` once its cost is reserved; without `reserve` (tests, benches) it is sent unmetered.
 * Throws CallNotAdmittedError when the budget refuses, and the gateway's errors as they are.
 */
export async function meteredComplete(
  gateway: ModelGateway,
  request: CompleteRequest & { maxTokens: number },
  budget: { userId: string | null; purpose: CallToReserve['purpose']; reserve?: ReserveCall | undefined },
): Promise<{ text: string; usage: Usage }> {
  const held = budget.reserve
    ? await budget.reserve({ userId: budget.userId, model: request.model, purpose: budget.purpose, tokens: callReservation(request) })
    : null;
  if (held && held.refused !== null) throw new CallNotAdmittedError(held);
  // A call that failed (gateway error, deadline) reported nothing and is given back whole.
  let usage: Usage | null = null;
  try {
    const answer = await gateway.complete(request);
    usage = answer.usage;
    return answer;
  } finally {
    await held?.settle(usage);
  }
}
