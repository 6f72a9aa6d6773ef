/**
 * Starting a chat turn, the one way every chat encoding does it (the agent routes' JSON and SSE, the
 * OpenAI-compatible route): everything up to the first event, in CONTRACT.md's order after the guard
 * and validation: gateway configured (503) → overload (503 + Retry-After) → turns in flight (429) →
 * admission: budget (429/503) and moderation. It throws AppErrors that `onError` answers before any stream starts.
 */
import { budgetBucket, type Admission } from '../admission/admission.js';
import type { OverloadGuard } from '../lifecycle/overload.js';
import type { TurnsInFlight } from '../lifecycle/turns-in-flight.js';
import { ModelNotConfiguredError } from '../model/gateway-errors.js';
import type { ClientEvent } from '../pipeline/events.js';
import { createTurnRunner, type TurnRunnerDeps } from '../pipeline/run-turn.js';
import type { TurnOutcome } from '../pipeline/stage.js';
import type { TurnRequest } from '../request/chat-request.js';
import { TooManyRequestsError } from '../http/errors.js';
import { errorType, noRequestTrace, providerOf, type RefusalReason, type RequestTrace, type TurnOutcomeLabel } from '../telemetry/telemetry.js';

export interface TurnStartDeps extends TurnRunnerDeps {
  admission: Admission;
  turns: TurnsInFlight;
  overload: OverloadGuard;
}

export interface StartedTurn {
  /** The turn's client events, ending with `done` or `error`; the turn is counted in flight until they end. */
  events: AsyncGenerator<ClientEvent>;
  /** Aborts the turn (the stream's client went away). */
  controller: AbortController;
  /** Filled as the turn runs: what it charged, whether the answer was cut (read after the last event). */
  outcome: TurnOutcome;
}

/** What the turn's events said about how it ended, and when its first text came; read once they end. */
interface Observed {
  outcome: TurnOutcomeLabel;
  firstDeltaAt: number | null;
}

/** Notes the first text delta and how the turn ended, for its metrics (one comparison per event). */
function observer(observed: Observed): (e: ClientEvent) => void {
  return (e) => {
    if (observed.firstDeltaAt === null && e.type === 'delta') observed.firstDeltaAt = performance.now();
    else if (e.type === 'done') observed.outcome = observed.outcome === 'refused' ? 'refused' : 'completed';
    else if (e.type === 'error') observed.outcome = 'failed';
  };
}

/** Builds the turn starter once; `start` admits one request and returns its events. */
export function createTurnStarter(deps: TurnStartDeps) {
  const runner = createTurnRunner(deps);

  const metrics = deps.telemetry.metrics;

  return async function startTurn(
    request: TurnRequest,
    clientSignal: AbortSignal,
    requestId: string,
    trace: RequestTrace = noRequestTrace,
  ): Promise<StartedTurn> {
    if (!deps.gateway) throw new ModelNotConfiguredError();
    // A saturated process refuses new turns first (503 + Retry-After), before anything is held.
    deps.overload.admit();
    // The turn's own controller: aborted by the client's disconnect (request signal or stream abort).
    const controller = new AbortController();
    const abort = () => controller.abort();
    if (clientSignal.aborted) abort();
    clientSignal.addEventListener('abort', abort, { once: true });
    const startedAt = performance.now();
    // The turn's span (GenAI `invoke_agent`); the request's server span stays open until the turn ends.
    const span = trace.span.child('invoke_agent campus-assistant', {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'campus-assistant',
      'gen_ai.provider.name': providerOf(request.model),
      'gen_ai.request.model': request.model,
      'campus.user.hash': request.userId !== null && trace.span.recording ? deps.telemetry.userHash(request.userId) : undefined,
      'campus.history.turns': request.history.length,
    });
    const releaseTrace = trace.hold();
    // The turn did not start: its span ends failed (and a refusal is counted by its reason).
    const notStarted = (err: unknown, refusal?: RefusalReason) => {
      if (refusal) metrics.refusal(refusal);
      span.fail(errorType(err));
      span.end();
      releaseTrace();
    };
    // Counted from here to the turn's last event; a user at the cap is answered 429 before the budget.
    let finishInFlight: () => void;
    try {
      finishInFlight = deps.turns.start(budgetBucket(request), controller);
    } catch (err) {
      clientSignal.removeEventListener('abort', abort);
      notStarted(err, 'turns_in_flight');
      throw err;
    }
    const admission = span.child('admission');
    try {
      const decision = await deps.admission.admit(request, controller.signal, admission);
      admission.set({ 'campus.admission.refusal': decision.refusal?.reason });
      admission.end();
      if (decision.refusal) metrics.refusal('moderation');
      const outcome: TurnOutcome = { promptTokens: 0, completionTokens: 0, cut: false };
      const observed: Observed = { outcome: decision.refusal ? 'refused' : 'aborted', firstDeltaAt: null };
      metrics.turnStarted();
      const finish = () => {
        finishInFlight();
        const now = performance.now();
        metrics.turnEnded({
          outcome: observed.outcome,
          durationS: (now - startedAt) / 1000,
          firstDeltaS: observed.firstDeltaAt === null ? null : (observed.firstDeltaAt - startedAt) / 1000,
        });
        span.set({
          'campus.turn.outcome': observed.outcome,
          'gen_ai.usage.input_tokens': outcome.promptTokens,
          'gen_ai.usage.output_tokens': outcome.completionTokens,
          'campus.answer.cut': outcome.cut,
        });
        if (observed.outcome === 'failed') span.fail('turn_error');
        span.end();
        releaseTrace();
      };
      // Observed and finished inside the turn's own generator: no wrapper generator on the per-delta path.
      const events = runner.run(request, {
        signal: controller.signal,
        requestId,
        refusal: decision.refusal,
        budget: decision.budget,
        outcome,
        span,
        observe: observer(observed),
        onEnd: finish,
      });
      return { events, controller, outcome };
    } catch (err) {
      admission.fail(errorType(err));
      admission.end();
      finishInFlight();
      clientSignal.removeEventListener('abort', abort);
      // A 429 from admission is the budget (the in-flight cap answered above); a 503 is not a refusal.
      notStarted(err, err instanceof TooManyRequestsError ? 'budget' : undefined);
      throw err;
    }
  };
}
