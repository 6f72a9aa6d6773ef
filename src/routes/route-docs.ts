/**
 * What each route tells the OpenAPI document (issue 49), as hono-openapi `describeRoute` middleware: its
 * responses by status with the zod schemas of response-schemas.ts (the request side comes from the
 * validators themselves, http/validate.ts), the headers an error carries (`Retry-After`,
 * `X-Should-Retry`, `Allow`) and the bearer scheme. The middleware only marks the route; at run time it
 * passes straight through.
 */
import type { MiddlewareHandler } from 'hono';
import { describeRoute, resolver } from 'hono-openapi';
import { z } from 'zod';
import {
  chatCompletionChunkSchema,
  envelopeSchema,
  openAIErrorSchema,
  streamEventSchemas,
} from './response-schemas.js';

type Schema = Parameters<typeof resolver>[0];

/**
 * The statuses an operation answers with, and when (CONTRACT.md "Errors"). A wrong method (405 with
 * `Allow`) and an unknown path (404) are the app's, not an operation's: the document's description says
 * so. An unexpected failure is each operation's `default` response: 500 with the envelope.
 */
/** A 400's causes; a model outside ALLOWED_MODELS and an attachment only on the chat routes (which take a model). */
const badRequest = (takesModel: boolean) =>
  `malformed JSON, an invalid field or parameter${takesModel ? ', a model outside ALLOWED_MODELS, an attachment over its limits (8 a message, an image 512 KB, a text file 400 KB, 2 MB in all) or one that cannot be read (not a JPEG, PNG, WebP, GIF or HEIC by its bytes, a drawing such as SVG, a damaged file, over 25 million pixels)' : ''}; or a request the HTTP parser refuses before any route (a malformed or duplicated header, Transfer-Encoding with Content-Length)`;

const ERROR_STATUS: Record<string, string> = {
  400: badRequest(false),
  401: 'missing or wrong bearer token',
  404: 'no such item (for a run: unknown, expired or another user\'s, all alike)',
  413: 'body over the route\'s limit',
  431: 'request headers over 16 KB, refused by the HTTP parser before any route',
  415: 'a body not sent as JSON (`Content-Type: application/json`): a form, `text/plain`, XML or no content type, refused before it is read (on every protected route, whatever its method: a page elsewhere can send such a body without a CORS preflight)',
  429: 'the daily token or spending budget is spent (`Retry-After` until 00:00 UTC, `X-Should-Retry: false`), or too many turns of this user in flight (`Retry-After` a few seconds)',
  default: 'unexpected failure: 500, with a generic message; the cause goes to the log only',
  503: 'saturated (`Retry-After` seconds), the service-wide spending cap reached (`assistant paused`, `Retry-After` until 00:00 UTC), a dependency unavailable (memory store, budget store, run log, no model gateway), or the turn timed out',
};

const header = (description: string) => ({ description, schema: { type: 'string' as const } });
const HEADERS: Record<string, Record<string, ReturnType<typeof header>>> = {
  413: { 'Retry-After': header('seconds, when the limit was a moment\'s load on large bodies') },
  429: { 'Retry-After': header('seconds to wait'), 'X-Should-Retry': header('`false` for a spent daily budget: a quota, not a transient limit') },
  503: { 'Retry-After': header('seconds to wait'), 'X-Should-Retry': header('`false` when the assistant is paused until the daily reset') },
};

/** A JSON response of `schema`, with its example (routes/examples.ts). */
export function json(description: string, schema: Schema, example?: unknown) {
  return { description, content: { 'application/json': { schema: resolver(schema), ...(example !== undefined && { example }) } } };
}

/** What the HTTP parser refuses on any path, before a route sees the request (node-http-server.ts). */
const PARSER_REFUSALS = [400, 431] as const;

/**
 * The error responses of a route, each the envelope (or, on `/v1`, OpenAI's error shape) with its
 * headers: its own, the parser's (400, 431), and the `default` (500) every operation may answer.
 */
export function errors(statuses: readonly number[], shape: 'envelope' | 'openai' = 'envelope', options: { /** The route takes a `model`. */ model?: boolean } = {}) {
  const body = shape === 'openai' ? openAIErrorSchema : envelopeSchema;
  const all = [...new Set([...statuses, ...PARSER_REFUSALS])].sort((a, b) => a - b);
  const described = (status: string) => (status === '400' ? badRequest(options.model === true) : (ERROR_STATUS[status] ?? 'error'));
  return Object.fromEntries(
    [...all.map(String), 'default'].map((status) => [status, { ...json(described(status), body), ...(HEADERS[status] && { headers: HEADERS[status] }) }]),
  );
}

/**
 * What the guard of a protected route answers (http/guard.ts): a wrong token, a body over the limit,
 * and a body that is not JSON, whatever the method (a DELETE sent with a form is refused as a POST is).
 * A GET's body is never read, so the limit does not apply to it; its label is still checked.
 */
export const GUARDED = [401, 413, 415] as const;
export const GUARDED_GET = [401, 415] as const;

/** One route's description; `open` routes carry no bearer requirement. */
export function route(spec: {
  summary: string;
  description?: string;
  tags: string[];
  responses: Record<string, unknown>;
  open?: boolean;
  /** The JSON body may be left out (its validator documents its schema; the operation marks it not required). */
  optionalBody?: boolean;
}): MiddlewareHandler {
  return describeRoute({
    summary: spec.summary,
    ...(spec.description && { description: spec.description }),
    ...(spec.optionalBody && { requestBody: { required: false, content: {} } }),
    tags: spec.tags,
    security: spec.open ? [] : [{ bearerAuth: [] }],
    responses: spec.responses as Parameters<typeof describeRoute>[0]['responses'],
  });
}

/**
 * One frame of `POST /agent/respond/stream` as the document describes it: `event: <name>` and one line of
 * JSON `data`, a schema per event. The body is a sequence of these (plus `: keep-alive` comments).
 */
export const agentStreamFrameSchema = z
  .union(
    (Object.keys(streamEventSchemas) as (keyof typeof streamEventSchemas)[]).map((event) =>
      z.object({ id: z.string().describe('`<run_id>:<seq>`, seq counting the run\'s frames from 1'), event: z.literal(event), data: streamEventSchemas[event] }),
    ) as unknown as [z.ZodObject, z.ZodObject, ...z.ZodObject[]],
  )
  .meta({ id: 'AgentStreamFrame', description: 'one SSE frame: `event: <event>`, `data: <data as one line of JSON>`, then `id: <run_id>:<seq>`' });

/** One frame of a streamed `/v1/chat/completions`: a chunk, an error, or the final `[DONE]`. */
export const openAIStreamFrameSchema = z
  .object({ data: z.union([chatCompletionChunkSchema, openAIErrorSchema, z.literal('[DONE]')]) })
  .meta({ id: 'ChatCompletionStreamFrame', description: 'one SSE frame with no event name: `data: <chunk as JSON>`, last `data: [DONE]`' });

/** An SSE response whose frames are described by `frame`, with an example frame. */
export function eventStream(description: string, frame: Schema, example?: unknown) {
  return { description, content: { 'text/event-stream': { schema: resolver(frame), ...(example !== undefined && { example }) } } };
}
