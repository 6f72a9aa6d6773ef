/**
 * The chat routes: `POST /agent/respond` (complete response object) and `POST /agent/respond/stream`
 * (SSE). One turn generator behind both: the JSON route drains it, the stream route frames it. Order
 * before any stream starts (CONTRACT.md): auth and body size (the guard) → JSON and fields, the model on
 * the allowlist (400) → gateway configured (503) → overload (503 + Retry-After) → turns in flight (429) →
 * admission: budget (429), the service's spending cap (503) and moderation → the turn (pipeline/turn.ts).
 */
import { Hono, type MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/app-env.js';
import { requestTrace } from '../http/trace.js';
import { validJson } from '../http/validate.js';
import { drainTurn } from '../pipeline/drain-turn.js';
import { clientEventData, type ClientEvent } from '../pipeline/events.js';
import { createTurnStarter, type TurnDeps } from '../pipeline/turn.js';
import { ModelAllowlist } from '../model/model-allowlist.js';
import { chatRequestSchema, toTurnRequest } from '../request/chat-request.js';
import { sseStream, type SseEvent } from '../sse/sse-stream.js';
import { completeResponseSchema } from './response-schemas.js';
import { agentStreamFrameSchema, errors, eventStream, GUARDED_BODY, json, route } from './route-docs.js';

export interface AgentRouteDeps extends TurnDeps {
  guard: MiddlewareHandler;
}

/** A client event as its SSE frame (CONTRACT.md "Stream"). */
const asSseEvent = (e: ClientEvent): SseEvent => ({ event: e.type, data: JSON.stringify(clientEventData(e)) });

/** What the OpenAPI document says of the chat routes (route-docs.ts). */
const TURN_ERRORS = [...GUARDED_BODY, 400, 429, 503] as const;
const docs = {
  respond: route({
    summary: 'One chat turn, answered as one JSON object',
    tags: ['chat'],
    responses: { 200: json('the complete response object', completeResponseSchema), ...errors(TURN_ERRORS) },
  }),
  stream: route({
    summary: 'One chat turn, streamed as Server-Sent Events',
    description:
      'Events `status`, `delta`, `map`, `memory`, then `done` (the complete response object) or `error` (the envelope); ' +
      '`: keep-alive` comments at least every 15 s. Refusals (400, 429, 503, ...) answer with the envelope before any stream starts.',
    tags: ['chat'],
    responses: { 200: eventStream('the turn as a stream of events', agentStreamFrameSchema), ...errors(TURN_ERRORS) },
  }),
};

export function createAgentRoutes(deps: AgentRouteDeps) {
  const startTurn = createTurnStarter(deps);
  const models = new ModelAllowlist(deps.config.gateway);
  const request = (body: Parameters<typeof toTurnRequest>[0]) => toTurnRequest(body, models);

  return new Hono<AppEnv>()
    .post('/agent/respond', deps.guard, validJson(chatRequestSchema), docs.respond, async (c) => {
      const turn = await startTurn(request(c.req.valid('json')), { signal: c.req.raw.signal, requestId: c.get('requestId'), trace: requestTrace(c) });
      return c.json(await drainTurn(turn.events));
    })
    .post('/agent/respond/stream', deps.guard, validJson(chatRequestSchema), docs.stream, async (c) => {
      const requestId = c.get('requestId');
      const turn = await startTurn(request(c.req.valid('json')), { signal: c.req.raw.signal, requestId, trace: requestTrace(c) });
      return sseStream(c, turn.events, {
        frame: asSseEvent,
        keepAliveMs: deps.config.sseKeepAliveMs,
        onAbort: () => turn.abort(),
        onError: (err) => deps.logger.error('turn stream failed', { request_id: requestId, err }),
      });
    });
}
