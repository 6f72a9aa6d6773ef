/**
 * The OpenAI chat protocol as a third encoding of a turn: `POST /v1/chat/completions` and
 * `GET /v1/models`, behind the same guard (bearer = the shared secret, body limit) and the same turn
 * start (turns in flight, budget, moderation) as the agent routes, served by the same turn generator.
 * Non-streamed, the events are drained into one `chat.completion`; streamed, each `delta` becomes a
 * `chat.completion.chunk` on bare `data:` frames ending with `data: [DONE]`, keep-alive comments on
 * silence. The map and memory events become a Markdown tail (openai-shapes.ts); `finish_reason` is
 * `length` when the answer was cut. Errors take OpenAI's shape (http/openai-errors.ts) with the agent
 * routes' statuses and headers; a failure after the stream started ends it with an error frame the
 * SDKs raise.
 */
import { z } from 'zod';
import { Hono, type MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/app-env.js';
import { requestTrace } from '../http/trace.js';
import { validHeader, validJson } from '../http/validate.js';
import { turnError } from '../pipeline/drain-turn.js';
import { createTurnStarter, type StartedTurn, type TurnDeps } from '../pipeline/turn.js';
import type { ClientEvent } from '../pipeline/events.js';
import { CAMPUS_AGENT_MODEL, openAIChatRequestSchema, toChatRequestBody } from '../request/openai-request.js';
import { toTurnRequest, userIdSchema } from '../request/chat-request.js';
import type { ModelAllowlist } from '../model/model-allowlist.js';
import { sseStream, type SseEvent } from '../sse/sse-stream.js';
import { INTERNAL_ERROR } from '../http/errors.js';
import { chatCompletionSchema, modelListSchema } from './response-schemas.js';
import { EXAMPLE_USER_ID, EXAMPLES } from './examples.js';
import { errors, eventStream, GUARDED, GUARDED_GET, json, openAIStreamFrameSchema, route } from './route-docs.js';
import {
  completionChunk,
  completionObject,
  interruptedNote,
  markdownTail,
  usageChunk,
  type CompletionIdentity,
  type TurnExtras,
} from './openai-shapes.js';
import { openAIError } from '../http/openai-errors.js';

export interface OpenAIRouteDeps extends TurnDeps {
  guard: MiddlewareHandler;
  /** The chat routes' guard: the larger body limit and its gate (http/body-limit.ts). */
  chatGuard: MiddlewareHandler;
  models: ModelAllowlist;
}

/**
 * Where the OpenAI-compatible routes answer: under `/v1`, and at the root too, for a client configured
 * with the service's base URL without `/v1` (the front end's settings dialog accepts one). Neither root
 * path is one of the agent's own (CONTRACT.md "Routes").
 */
export const OPENAI_PREFIXES = ['/v1', ''] as const;

/** `created` of the models listed: the day this protocol was added (a fixed, honest date). */
const MODEL_CREATED = Math.floor(Date.UTC(2026, 10, 23) / 1000);

/**
 * `GET /v1/models`: `campus-agent` (the default model behind the campus agent), then exactly the models a
 * request may name (ALLOWED_MODELS; under `*`, the default model alone: any other id is accepted but
 * not listed).
 */
function modelList(models: ModelAllowlist) {
  const model = (id: string, owner: string) => ({ id, object: 'model', created: MODEL_CREATED, owned_by: owner });
  return { object: 'list', data: [model(CAMPUS_AGENT_MODEL, 'campus-assistant'), ...models.ids.map((id) => model(id, id.slice(0, id.indexOf('/'))))] };
}

/** Reads a map or memory event into the turn's extras; true when it was one. */
function noteExtra(e: ClientEvent, extras: TurnExtras): boolean {
  if (e.type === 'map') extras.map = e.map;
  else if (e.type === 'memory') extras.memory.push(e.data.text);
  else return false;
  return true;
}

/** The streamed encoding: chunks of the turn's deltas, then the tail, the finish, the usage and [DONE]. */
async function* asChunks(turn: StartedTurn, who: CompletionIdentity, includeUsage: boolean): AsyncGenerator<SseEvent> {
  const frame = (data: unknown): SseEvent => ({ data: JSON.stringify(data) });
  const extras: TurnExtras = { map: null, memory: [] };
  yield frame(completionChunk(who, { role: 'assistant', content: '' }));
  let wrote = false;
  for await (const e of turn.events) {
    if (e.type === 'delta') {
      wrote = true;
      yield frame(completionChunk(who, { content: e.text }));
    } else if (noteExtra(e, extras)) continue;
    else if (e.type === 'error') {
      // Text already sent stays with the client: it is marked as cut off, never left as a whole answer.
      if (wrote) yield frame(completionChunk(who, { content: interruptedNote(e.envelope.detail) }));
      // After the stream started the status is gone: the SDKs raise an error frame as an APIError.
      yield frame(openAIError(e.status ?? 500, e.envelope));
      return;
    } else if (e.type === 'done') {
      const tail = markdownTail(extras);
      if (tail) yield frame(completionChunk(who, { content: tail }));
      const outcome = await turn.outcome;
      yield frame(completionChunk(who, {}, outcome.cut ? 'length' : 'stop'));
      if (includeUsage) yield frame(usageChunk(who, outcome));
      yield { data: '[DONE]' };
      return;
    }
  }
}

/** `X-User-Id`: the user, when the body's `user` does not name one (a client that cannot set `user`). */
const userHeader = z.object({
  'x-user-id': userIdSchema.optional().meta({ description: 'the user id (the format of the agent routes\' `user_id`), when the body\'s `user` is absent; neither: anonymous, no memory', examples: [EXAMPLE_USER_ID] }),
});

/** What the OpenAPI document says of the OpenAI-compatible routes (route-docs.ts); errors in OpenAI's shape. */
const docs = (prefix: string) => {
  const alias = prefix === '' ? ' (the same route without `/v1`, for a client given the base URL alone)' : '';
  return {
    models: route({
      summary: `The models a request may name: campus-agent, then ALLOWED_MODELS${alias}`,
      description: 'An OpenAI model list; `campus-agent` is the assistant with its tools and memory, the others the same assistant on that model.',
      tags: ['openai'],
      responses: { 200: json('the model list', modelListSchema, EXAMPLES.modelList), ...errors(GUARDED_GET, 'openai') },
    }),
    completions: route({
      summary: `One chat turn in OpenAI's chat completions protocol${alias}`,
      description: '`stream: true` answers Server-Sent Events of `chat.completion.chunk` ending `data: [DONE]`; otherwise one `chat.completion`.',
      tags: ['openai'],
      responses: {
        200: {
          description: 'the answer',
          content: {
            ...json('', chatCompletionSchema, EXAMPLES.chatCompletion).content,
            ...eventStream('', openAIStreamFrameSchema, EXAMPLES.chatCompletionFrame).content,
          },
        },
        ...errors([...GUARDED, 400, 429, 503], 'openai', { model: true }),
      },
    }),
  };
};

export function createOpenAIRoutes(deps: OpenAIRouteDeps) {
  const startTurn = createTurnStarter(deps);
  const { models } = deps;
  const listed = modelList(models);

  const routes = new Hono<AppEnv>();
  for (const prefix of OPENAI_PREFIXES) {
    const described = docs(prefix);
    routes.get(`${prefix}/models`, deps.guard, described.models, (c) => c.json(listed));
    routes.post(`${prefix}/chat/completions`, deps.chatGuard, validJson(openAIChatRequestSchema, [EXAMPLES.openAIRequest]), validHeader(userHeader), described.completions, async (c) => {
      const body = c.req.valid('json');
      const request = toTurnRequest(toChatRequestBody(body, c.req.valid('header')['x-user-id']), models);
      const requestId = c.get('requestId');
      const turn = await startTurn(request, { signal: c.req.raw.signal, requestId, trace: requestTrace(c) });
      const who: CompletionIdentity = { id: `chatcmpl-${requestId}`, created: Math.floor(deps.now().getTime() / 1000), model: body.model };

      if (body.stream) {
        return sseStream(c, asChunks(turn, who, body.stream_options?.include_usage === true), {
          keepAliveMs: deps.config.sseKeepAliveMs,
          onAbort: () => turn.abort(),
          onError: (err) => deps.logger.error('turn stream failed', { request_id: requestId, err }),
          failure: { data: JSON.stringify(openAIError(500, INTERNAL_ERROR)) },
        });
      }
      const extras: TurnExtras = { map: null, memory: [] };
      for await (const e of turn.events) {
        if (noteExtra(e, extras)) continue;
        if (e.type === 'error') throw turnError(e);
        if (e.type === 'done') {
          const content = e.response.response_text + markdownTail(extras);
          const outcome = await turn.outcome;
          return c.json(completionObject(who, content, outcome.cut ? 'length' : 'stop', outcome));
        }
      }
      throw turnError(null);
    });
  }
  return routes;
}
