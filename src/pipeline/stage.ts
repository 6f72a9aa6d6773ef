/**
 * The shape of a pipeline stage: an async generator over the turn's events that handles its own event
 * types and passes the rest through. Stages compose by nesting: deliver(verify(execute(...))).
 */
import type { Plan, TurnEvent, TurnRequest } from './types.js';

export interface TurnContext {
  request: TurnRequest;
  plan: Plan;
  /** Aborted when the client disconnects or the turn's deadline passes. */
  signal: AbortSignal;
  requestId: string;
  /** The system prompt sent to the model this turn (verify checks the answer never repeats it). */
  systemPrompt: string;
}

export type Stage = (events: AsyncIterable<TurnEvent>, ctx: TurnContext) => AsyncGenerator<TurnEvent>;
