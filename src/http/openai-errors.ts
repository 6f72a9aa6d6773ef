/**
 * Errors of the OpenAI-compatible routes (`/v1/*`) in OpenAI's shape, `{"error": {"message", "type",
 * "code"}}`, with the statuses and headers (`Retry-After`, `Allow`) every other route answers with, so
 * OpenAI SDKs raise their typed errors (AuthenticationError, BadRequestError, RateLimitError, ...) and
 * retry where they should. Every error is still made once, as the envelope, by the guard, `onError`,
 * `notFound` and the 405 handler; this middleware only re-shapes the body on the way out. The shape
 * is made here once, for the routes (a stream's `error` frame), the app's middleware and the Node
 * server's own refusals (node-http-server.ts), which answer before the app sees the request.
 */
import type { MiddlewareHandler } from 'hono';
import type { Envelope } from './errors.js';

const isEnvelope = (body: unknown): body is Envelope =>
  typeof body === 'object' && body !== null && typeof (body as Envelope).error === 'string' && typeof (body as Envelope).detail === 'string';

/** The paths whose errors are in OpenAI's shape (Hono patterns): `/v1/*`, and the root aliases of its two routes. */
export const OPENAI_ERROR_PATHS = ['/v1/*', '/chat/completions', '/models'] as const;

/** Whether a request path is one of OPENAI_ERROR_PATHS (for errors made before the app sees the request). */
export function speaksOpenAI(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/') || path === '/chat/completions' || path === '/models';
}

/** OpenAI's error `type` for a status, so SDKs and UIs read the kind they expect. */
function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** The service's envelope in OpenAI's error shape: the detail as the message, the error as the code. */
export function openAIError(status: number, envelope: Envelope) {
  return { error: { message: envelope.detail, type: errorType(status), code: envelope.error.replace(/\W+/g, '_') } };
}

/** Re-shapes an envelope response of the routes below it into OpenAI's error shape. */
export function openAIErrorShape(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const res = c.res;
    if (res.status < 400 || !(res.headers.get('content-type') ?? '').includes('application/json')) return;
    const body: unknown = await res.clone().json().catch(() => null);
    if (!isEnvelope(body)) return;
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    c.res = new Response(JSON.stringify(openAIError(res.status, body)), { status: res.status, headers });
  };
}
