/**
 * The chat routes: `POST /agent/respond` (complete response object) and `POST /agent/respond/stream`
 * (SSE). One turn generator behind both: the JSON route drains it, the stream route frames it. Order
 * before any stream starts (CONTRACT.md): auth and body size (the guard) → JSON and fields (400) →
 * gateway configured (503) → turns in flight (429) → admission: budget (429/503) and moderation → the turn.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/app-env.js';
import { requestTrace } from '../http/trace.js';
import { validJson } from '../http/validate.js';
import { drainTurn } from '../pipeline/drain-turn.js';
import { clientEventData, type ClientEvent } from '../pipeline/events.js';
import { chatRequestSchema, toTurnRequest } from '../request/chat-request.js';
import { sseStream, type SseEvent } from '../sse/sse-stream.js';
import { createTurnStarter, type TurnStartDeps } from './turn-start.js';

export interface AgentRouteDeps extends TurnStartDeps {
  guard: MiddlewareHandler;
}

/** A client event as its SSE frame (CONTRACT.md "Stream"). */
const asSseEvent = (e: ClientEvent): SseEvent => ({ event: e.type, data: JSON.stringify(clientEventData(e)) });

export function createAgentRoutes(deps: AgentRouteDeps) {
  const startTurn = createTurnStarter(deps);
  const request = (body: Parameters<typeof toTurnRequest>[0]) => toTurnRequest(body, deps.config.gateway.defaultModel);

  return new Hono<AppEnv>()
    .post('/agent/respond', deps.guard, validJson(chatRequestSchema), async (c) => {
      const { events } = await startTurn(request(c.req.valid('json')), c.req.raw.signal, c.get('requestId'), requestTrace(c));
      return c.json(await drainTurn(events));
    })
    .post('/agent/respond/stream', deps.guard, validJson(chatRequestSchema), async (c) => {
      const requestId = c.get('requestId');
      const { events, controller } = await startTurn(request(c.req.valid('json')), c.req.raw.signal, requestId, requestTrace(c));
      return sseStream(c, events, {
        frame: asSseEvent,
        keepAliveMs: deps.config.sseKeepAliveMs,
        onAbort: () => controller.abort(),
        onError: (err) => deps.logger.error('turn stream failed', { request_id: requestId, err }),
      });
    });
}
