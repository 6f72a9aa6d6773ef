/**
 * The chat routes: `POST /agent/respond` (complete response object) and `POST /agent/respond/stream`
 * (SSE). One turn generator behind both: the JSON route drains it, the stream route makes it a resumable
 * run (runs/runs.ts) and frames the run's events. Order
 * before any stream starts (CONTRACT.md): auth and body size (the guard) → JSON and fields, the model on
 * the allowlist (400) → gateway configured (503) → overload (503 + Retry-After) → turns in flight (429) →
 * admission: budget (429), the service's spending cap (503) and moderation → the turn (pipeline/turn.ts).
 */
import { Hono, type MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/app-env.js';
import { requestTrace } from '../http/trace.js';
import { validJson } from '../http/validate.js';
import { budgetBucket } from '../admission/admission.js';
import { drainTurn } from '../pipeline/drain-turn.js';
import { createTurnStarter, type TurnDeps } from '../pipeline/turn.js';
import type { Runs } from '../runs/runs.js';
import { sseFrameOf } from '../runs/run-log.js';
import type { ModelAllowlist } from '../model/model-allowlist.js';
import { chatRequestSchema, toTurnRequest } from '../request/chat-request.js';
import { sseStream } from '../sse/sse-stream.js';
import { completeResponseSchema } from './response-schemas.js';
import { EXAMPLES } from './examples.js';
import { agentStreamFrameSchema, errors, eventStream, GUARDED, json, route } from './route-docs.js';

export interface AgentRouteDeps extends TurnDeps {
  guard: MiddlewareHandler;
  runs: Runs;
  models: ModelAllowlist;
}

/**
 * A streamed turn is a run (runs/runs.ts): its client going away does not end it, the run's grace does
 * (RUN_DETACHED_GRACE_MS), so the turn is started with a signal nothing aborts.
 */
const RUN_OWNED = new AbortController().signal;

/** What the OpenAPI document says of the chat routes (route-docs.ts). */
const TURN_ERRORS = [...GUARDED, 400, 429, 503] as const;
const docs = {
  respond: route({
    summary: 'One chat turn, answered as one JSON object',
    description: 'The whole turn (tools, memory, grounding) answered once it is done: the complete response object. Refusals (400, 429, 503) are the envelope.',
    tags: ['chat'],
    responses: { 200: json('the complete response object', completeResponseSchema, EXAMPLES.completeResponse), ...errors(TURN_ERRORS, 'envelope', { model: true }) },
  }),
  stream: route({
    summary: 'One chat turn, streamed as Server-Sent Events',
    description:
      'Events `status`, `delta`, `map`, `memory`, then `done` (the complete response object) or `error` (the envelope); ' +
      '`: keep-alive` comments at least every 15 s. Refusals (400, 429, 503, ...) answer with the envelope before any stream starts. ' +
      'Every frame has `id: <run_id>:<seq>` and the response the header `X-Run-Id`: a client that lost the stream resumes it with `GET /agent/runs/{run_id}/stream`.',
    tags: ['chat'],
    responses: {
      200: { ...eventStream('the turn as a stream of events', agentStreamFrameSchema, EXAMPLES.deltaFrame), headers: { 'X-Run-Id': { description: 'the run this stream is, for resuming it', schema: { type: 'string' as const } } } },
      ...errors(TURN_ERRORS, 'envelope', { model: true }),
    },
  }),
};

export function createAgentRoutes(deps: AgentRouteDeps) {
  const startTurn = createTurnStarter(deps);
  const request = (body: Parameters<typeof toTurnRequest>[0]) => toTurnRequest(body, deps.models);

  return new Hono<AppEnv>()
    .post('/agent/respond', deps.guard, validJson(chatRequestSchema, [EXAMPLES.chatRequest]), docs.respond, async (c) => {
      const turn = await startTurn(request(c.req.valid('json')), { signal: c.req.raw.signal, requestId: c.get('requestId'), trace: requestTrace(c) });
      return c.json(await drainTurn(turn.events));
    })
    .post('/agent/respond/stream', deps.guard, validJson(chatRequestSchema, [EXAMPLES.chatRequest]), docs.stream, async (c) => {
      const requestId = c.get('requestId');
      const turnRequest = request(c.req.valid('json'));
      const turn = await startTurn(turnRequest, { signal: RUN_OWNED, requestId, trace: requestTrace(c) });
      const run = await deps.runs.start(budgetBucket(turnRequest), turn);
      const follower = run.follow(0);
      c.header('X-Run-Id', run.id);
      return sseStream(c, follower.frames, {
        frame: sseFrameOf(run.id),
        keepAliveMs: deps.config.sseKeepAliveMs,
        onAbort: follower.detach,
        onError: (err) => deps.logger.error('turn stream failed', { request_id: requestId, run_id: run.id, err }),
      });
    });
}
