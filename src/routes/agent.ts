/**
 * The chat routes: `POST /agent/respond` (complete response object) and `POST /agent/respond/stream`
 * (SSE). One turn generator behind both: the JSON route drains it, the stream route frames it. Order
 * before any stream starts (CONTRACT.md): auth and body size (the guard) → JSON and fields (400) →
 * gateway configured (503) → turns in flight (429) → admission: budget (429/503) and moderation → the turn.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { budgetBucket, type Admission } from '../admission/admission.js';
import type { AppEnv } from '../http/app-env.js';
import type { TurnsInFlight } from '../lifecycle/turns-in-flight.js';
import { validJson } from '../http/validate.js';
import { ModelNotConfiguredError } from '../model/gateway-errors.js';
import { drainTurn } from '../pipeline/drain-turn.js';
import { clientEventData, type ClientEvent } from '../pipeline/events.js';
import { createTurnRunner, type TurnRunnerDeps } from '../pipeline/run-turn.js';
import { chatRequestSchema, toTurnRequest, type ChatRequestBody } from '../request/chat-request.js';
import { sseStream, type SseEvent } from '../sse/sse-stream.js';

export interface AgentRouteDeps extends TurnRunnerDeps {
  admission: Admission;
  turns: TurnsInFlight;
  guard: MiddlewareHandler;
}

async function* asSseEvents(events: AsyncIterable<ClientEvent>): AsyncGenerator<SseEvent> {
  for await (const e of events) yield { event: e.type, data: clientEventData(e) };
}

/** The turn's events; `finish` runs once however the consumer stops (end, return, throw). */
async function* untilFinished<T>(events: AsyncGenerator<T>, finish: () => void): AsyncGenerator<T> {
  try {
    yield* events;
  } finally {
    finish();
  }
}

export function createAgentRoutes(deps: AgentRouteDeps) {
  const runner = createTurnRunner(deps);

  /** Everything up to the first event; throws AppErrors that onError answers as plain envelopes. */
  async function startTurn(body: ChatRequestBody, clientSignal: AbortSignal, requestId: string) {
    if (!deps.gateway) throw new ModelNotConfiguredError();
    const request = toTurnRequest(body, deps.config.gateway.defaultModel);
    // The turn's own controller: aborted by the client's disconnect (request signal or stream abort).
    const controller = new AbortController();
    const abort = () => controller.abort();
    if (clientSignal.aborted) abort();
    clientSignal.addEventListener('abort', abort, { once: true });
    // Counted from here to the turn's last event; a user at the cap is answered 429 before the budget.
    const finish = deps.turns.start(budgetBucket(request), controller);
    try {
      const decision = await deps.admission.admit(request, controller.signal);
      const events = runner.run(request, { signal: controller.signal, requestId, refusal: decision.refusal, budget: decision.budget });
      return { events: untilFinished(events, finish), controller };
    } catch (err) {
      finish();
      clientSignal.removeEventListener('abort', abort);
      throw err;
    }
  }

  return new Hono<AppEnv>()
    .post('/agent/respond', deps.guard, validJson(chatRequestSchema), async (c) => {
      const { events } = await startTurn(c.req.valid('json'), c.req.raw.signal, c.get('requestId'));
      return c.json(await drainTurn(events));
    })
    .post('/agent/respond/stream', deps.guard, validJson(chatRequestSchema), async (c) => {
      const requestId = c.get('requestId');
      const { events, controller } = await startTurn(c.req.valid('json'), c.req.raw.signal, requestId);
      return sseStream(c, asSseEvents(events), {
        keepAliveMs: deps.config.sseKeepAliveMs,
        onAbort: () => controller.abort(),
        onError: (err) => deps.logger.error('turn stream failed', { request_id: requestId, err }),
      });
    });
}
