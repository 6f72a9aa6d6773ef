/**
 * Errors of the OpenAI-compatible routes (`/v1/*`) in OpenAI's shape, `{"error": {"message", "type",
 * "code"}}`, with the statuses and headers (`Retry-After`, `Allow`) every other route answers with, so
 * OpenAI SDKs raise their typed errors (AuthenticationError, BadRequestError, RateLimitError, ...) and
 * retry where they should. Every error is still made once, as the envelope, by the guard, `onError`,
 * `notFound` and the 405 handler; this middleware only re-shapes the body on the way out.
 */
import type { MiddlewareHandler } from 'hono';
import type { Envelope } from './errors.js';

const isEnvelope = (body: unknown): body is Envelope =>
  typeof body === 'object' && body !== null && typeof (body as Envelope).error === 'string' && typeof (body as Envelope).detail === 'string';

/** Re-shapes an envelope response of the routes below it with `shape`. */
export function openAIErrorShape(shape: (status: number, envelope: Envelope) => unknown): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const res = c.res;
    if (res.status < 400 || !(res.headers.get('content-type') ?? '').includes('application/json')) return;
    const body: unknown = await res.clone().json().catch(() => null);
    if (!isEnvelope(body)) return;
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    c.res = new Response(JSON.stringify(shape(res.status, body)), { status: res.status, headers });
  };
}
