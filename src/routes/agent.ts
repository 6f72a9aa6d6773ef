/**
 * The chat routes: `POST /agent/respond` (complete response object) and `POST /agent/respond/stream`
 * (SSE). One turn generator behind both: the JSON route drains it, the stream route frames it. Order
 * before any stream starts (CONTRACT.md): auth and body size (middleware) → JSON and fields (400) →
 * gateway configured (503) → admission: budget (429/503) and moderation → the turn.
 */
import { Hono } from 'hono';
import type { Admission } from '../admission/admission.js';
import type { AppEnv } from '../app.js';
import { validate } from '../http/validate.js';
import { ModelNotConfiguredError } from '../model/gateway-errors.js';
import { drainTurn } from '../pipeline/drain-turn.js';
import { createTurnRunner, type TurnRunnerDeps } from '../pipeline/run-turn.js';
import { chatRequestSchema, toTurnRequest, type ChatRequestBody } from '../pipeline/stages/validate.js';
import { sseResponse } from '../sse/sse-response.js';

export interface AgentRouteDeps extends TurnRunnerDeps {
  admission: Admission;
}

export function createAgentRoutes(deps: AgentRouteDeps) {
  const runner = createTurnRunner(deps);

  /** Everything up to the first event; throws AppErrors that onError answers as plain envelopes. */
  async function startTurn(body: ChatRequestBody, clientSignal: AbortSignal, requestId: string) {
    if (!deps.gateway) throw new ModelNotConfiguredError();
    const request = toTurnRequest(body, deps.config.gateway.defaultModel);
    // The turn's own controller: aborted by the client's disconnect (request signal or stream cancel).
    const controller = new AbortController();
    const abort = () => controller.abort();
    if (clientSignal.aborted) abort();
    clientSignal.addEventListener('abort', abort, { once: true });
    const decision = await deps.admission.admit(request, controller.signal);
    const events = runner.run(request, { signal: controller.signal, requestId, refusal: decision.refusal });
    return { events, controller };
  }

  return new Hono<AppEnv>()
    .post('/agent/respond', validate('json', chatRequestSchema), async (c) => {
      const { events } = await startTurn(c.req.valid('json'), c.req.raw.signal, c.get('requestId'));
      return c.json(await drainTurn(events));
    })
    .post('/agent/respond/stream', validate('json', chatRequestSchema), async (c) => {
      const { events, controller } = await startTurn(c.req.valid('json'), c.req.raw.signal, c.get('requestId'));
      return sseResponse(events, { keepAliveMs: deps.config.sseKeepAliveMs, onCancel: () => controller.abort() });
    });
}
