/**
 * Starting a chat turn, the one way every chat encoding does it (the agent routes' JSON and SSE, the
 * OpenAI-compatible route): everything up to the first event, in CONTRACT.md's order after the guard
 * and validation: gateway configured (503) → turns in flight (429) → admission: budget (429/503) and
 * moderation. It throws AppErrors that `onError` answers before any stream starts.
 */
import { budgetBucket, type Admission } from '../admission/admission.js';
import type { TurnsInFlight } from '../lifecycle/turns-in-flight.js';
import { ModelNotConfiguredError } from '../model/gateway-errors.js';
import type { ClientEvent } from '../pipeline/events.js';
import { createTurnRunner, type TurnRunnerDeps } from '../pipeline/run-turn.js';
import type { TurnOutcome } from '../pipeline/stage.js';
import type { TurnRequest } from '../request/chat-request.js';

export interface TurnStartDeps extends TurnRunnerDeps {
  admission: Admission;
  turns: TurnsInFlight;
}

export interface StartedTurn {
  /** The turn's client events, ending with `done` or `error`; the turn is counted in flight until they end. */
  events: AsyncGenerator<ClientEvent>;
  /** Aborts the turn (the stream's client went away). */
  controller: AbortController;
  /** Filled as the turn runs: what it charged, whether the answer was cut (read after the last event). */
  outcome: TurnOutcome;
}

/** The turn's events; `finish` runs once however the consumer stops (end, return, throw). */
async function* untilFinished<T>(events: AsyncGenerator<T>, finish: () => void): AsyncGenerator<T> {
  try {
    yield* events;
  } finally {
    finish();
  }
}

/** Builds the turn starter once; `start` admits one request and returns its events. */
export function createTurnStarter(deps: TurnStartDeps) {
  const runner = createTurnRunner(deps);

  return async function startTurn(request: TurnRequest, clientSignal: AbortSignal, requestId: string): Promise<StartedTurn> {
    if (!deps.gateway) throw new ModelNotConfiguredError();
    // The turn's own controller: aborted by the client's disconnect (request signal or stream abort).
    const controller = new AbortController();
    const abort = () => controller.abort();
    if (clientSignal.aborted) abort();
    clientSignal.addEventListener('abort', abort, { once: true });
    // Counted from here to the turn's last event; a user at the cap is answered 429 before the budget.
    const finish = deps.turns.start(budgetBucket(request), controller);
    try {
      const decision = await deps.admission.admit(request, controller.signal);
      const outcome: TurnOutcome = { promptTokens: 0, completionTokens: 0, cut: false };
      const events = runner.run(request, { signal: controller.signal, requestId, refusal: decision.refusal, budget: decision.budget, outcome });
      return { events: untilFinished(events, finish), controller, outcome };
    } catch (err) {
      finish();
      clientSignal.removeEventListener('abort', abort);
      throw err;
    }
  };
}

export type TurnStarter = ReturnType<typeof createTurnStarter>;
