/**
 * The shape of the turn's stages. `execute` is the source (it makes events from the prepared turn);
 * `verify` and `deliver` are stages: async generators over the turn's events that handle their own event
 * types and pass the rest through. They compose by nesting: deliver(verify(execute(prepared, ctx))).
 */
import type { TurnBudget } from '../admission/admission.js';
import type { TurnRequest } from '../request/chat-request.js';
import type { ServiceMetrics, TraceSpan } from '../telemetry/telemetry.js';
import type { TurnEvent } from './events.js';
import type { Plan } from './stages/plan.js';

/** What every stage of one turn reads; fixed before the first stage runs. */
export interface TurnContext {
  readonly request: TurnRequest;
  readonly plan: Plan;
  /**
   * Aborted when the client disconnects, the turn's deadline (TURN_TIMEOUT_MS) passes or the service
   * stops. `signal.reason` says which: an AppError when the service ended the turn (the client is told
   * with an `error` event), anything else when the client went away (nobody is left to tell).
   */
  readonly signal: AbortSignal;
  readonly requestId: string;
  /** The system prompt sent to the model this turn (verify checks the answer never repeats it). */
  readonly systemPrompt: string;
  /** The turn's share of the daily token budget (execute reserves and settles each pass). */
  readonly budget: TurnBudget;
  /** Filled by execute as the turn runs; the route that started the turn reads it after the last event. */
  readonly outcome: TurnOutcome;
  /** The turn's span (model passes and tool calls are its children) and the service's metrics. */
  readonly span: TraceSpan;
  readonly metrics: ServiceMetrics;
}

/** What a turn did beyond its events: the tokens its passes used, and whether the answer was cut. */
export interface TurnOutcome {
  promptTokens: number;
  completionTokens: number;
  /** The answer stopped at the answer cap or at the last pass's max_tokens. */
  cut: boolean;
}

export type Stage = (events: AsyncIterable<TurnEvent>, ctx: TurnContext) => AsyncGenerator<TurnEvent>;
