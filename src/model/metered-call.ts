/**
 * One non-streamed model call (a title, a memory extraction, a fact reconciliation) paid from a user's
 * daily budget the same way a chat pass is: what it may cost (its messages as sent plus its
 * `max_tokens`) is reserved before it is sent, and settled to the reported usage after. The budget
 * itself lives in admission/; this room only sees the `ReserveCall` function it is given.
 */
import { callReservation } from './estimate-usage.js';
import type { CompleteRequest, ModelGateway } from './gateway.js';
import type { Usage } from './usage.js';

/** Tokens held for one call. */
export interface CallReservation {
  /** After the call: its usage taken from what was held (any excess charged), the rest given back. Never throws. */
  settle(usage: Usage | null): Promise<void>;
}

/** Reserves `tokens` from the bucket of `userId` (null: `anonymous`); null when the budget cannot cover them. Never throws. */
export type ReserveCall = (userId: string | null, tokens: number) => Promise<CallReservation | null>;

/** The budget refused the call; nothing was sent. */
export class CallNotAdmittedError extends Error {
  override name = 'CallNotAdmittedError';
  constructor() {
    super('the daily token budget cannot cover this model call');
  }
}

/**
 * Sends `request` once its cost is reserved; without `reserve` (tests, benches) it is sent unmetered.
 * Throws CallNotAdmittedError when the budget refuses, and the gateway's errors as they are.
 */
export async function meteredComplete(
  gateway: ModelGateway,
  request: CompleteRequest & { maxTokens: number },
  budget: { userId: string | null; reserve?: ReserveCall | undefined },
): Promise<{ text: string; usage: Usage }> {
  const held = budget.reserve ? await budget.reserve(budget.userId, callReservation(request)) : null;
  if (budget.reserve && !held) throw new CallNotAdmittedError();
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
