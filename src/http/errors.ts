/**
 * Typed errors with a status and a client-safe message, and the one envelope every client-visible
 * error uses: `{"error": "...", "detail": "..."}` (CONTRACT.md). Thrown where a problem is found and
 * turned into a response once, by `onError` in app.ts (or into an `error` event inside a stream).
 */
import { baseLeakPolicy, type LeakPolicy } from '../security/leak-policy.js';
import type { RefusalReason } from '../telemetry/telemetry.js';

export interface Envelope {
  error: string;
  detail: string;
}

export class AppError extends Error {
  /**
   * Set on the service's expected refusals (a spent budget or cap, overload, too many turns): the service
   * chose to say no, nothing failed. Counted by this reason and logged at `info` without a stack (a spent
   * cap refuses every turn until the reset: one `error` line each flooded the log, issue 61).
   */
  readonly refusal: RefusalReason | null = null;

  constructor(
    readonly status: 400 | 401 | 404 | 405 | 413 | 415 | 429 | 500 | 503,
    readonly error: string,
    readonly detail: string = error,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${status} ${error}: ${detail}`);
    this.name = new.target.name;
  }

  toEnvelope(): Envelope {
    return { error: this.error, detail: this.detail };
  }
}

export class BadRequestError extends AppError {
  constructor(detail: string, error = 'bad request') {
    super(400, error, detail);
  }
}

export class UnauthorizedError extends AppError {
  constructor() {
    super(401, 'unauthorized', 'missing or invalid bearer token', { 'WWW-Authenticate': 'Bearer' });
  }
}

export class NotFoundError extends AppError {
  constructor(detail = 'no such resource') {
    super(404, 'not found', detail);
  }
}

export class MethodNotAllowedError extends AppError {
  constructor(allow: string[]) {
    super(405, 'method not allowed', `allowed: ${allow.join(', ')}`, { Allow: allow.join(', ') });
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limitBytes: number) {
    // Connection: close — the rest of an oversized body is not read, so the socket is not reused.
    super(413, 'payload too large', `request bodies are limited to ${Math.floor(limitBytes / 1024)} KiB`, {
      Connection: 'close',
    });
  }
}

/**
 * A body that is not JSON on a JSON route (a form, text/plain, XML, or no content type at all), refused
 * before it is read. Those are the bodies a page on another site can send without a CORS preflight: with
 * auth off, accepting them let any web page run a turn or save a fact (issue 63).
 */
export class UnsupportedMediaTypeError extends AppError {
  constructor(mediaType: string) {
    super(415, 'unsupported media type', `send the body as JSON (Content-Type: application/json), not ${mediaType ? JSON.stringify(mediaType.slice(0, 60)) : 'without a content type'}`);
  }
}

/**
 * A spent daily budget. Not a transient rate limit: `Retry-After` is hours (until the budget resets), and
 * `X-Should-Retry: false` tells OpenAI-compatible clients (the official `openai` package obeys it, as it
 * does for OpenAI's own quota errors) to return the error at once instead of sleeping until then. The
 * short-lived refusals (turns in flight, overload) leave clients to retry after their short Retry-After.
 */
export class TooManyRequestsError extends AppError {
  override readonly refusal = 'budget';

  constructor(detail: string, retryAfterSeconds: number) {
    super(429, 'daily token budget exhausted', detail, { 'Retry-After': String(retryAfterSeconds), 'X-Should-Retry': 'false' });
  }
}

/**
 * The 503 of a spent service-wide cap: the assistant is paused for everyone until the reset. Not a
 * transient overload: `X-Should-Retry: false` keeps OpenAI clients from sleeping on it.
 */
export class ServicePausedError extends AppError {
  override readonly refusal = 'service_cap';

  constructor(retryAfterSeconds: number) {
    super(503, 'assistant paused', "the assistant has reached today's spending cap and is paused until 00:00 UTC; please try again after the reset", {
      'Retry-After': String(retryAfterSeconds),
      'X-Should-Retry': 'false',
    });
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(detail: string, error = 'service unavailable') {
    super(503, error, detail);
  }
}

/** The envelope for a failure whose cause must stay in the log. */
export const INTERNAL_ERROR: Envelope = {
  error: 'internal error',
  detail: 'something went wrong on our side; please try again',
};

/**
 * Maps any thrown value to a status and envelope safe to show a client. Details can quote the request
 * (a path, a field name), so the envelope passes through the leak policy like every other exit.
 */
export function toClientError(
  err: unknown,
  leaks: LeakPolicy = baseLeakPolicy,
): { status: AppError['status']; envelope: Envelope; headers: Record<string, string> } {
  if (err instanceof AppError) {
    const { error, detail } = err.toEnvelope();
    return { status: err.status, envelope: { error: leaks.redact(error), detail: leaks.redact(detail) }, headers: err.headers };
  }
  return { status: 500, envelope: INTERNAL_ERROR, headers: {} };
}

/** A JSON Response carrying the envelope. */
export function envelopeResponse(err: unknown, leaks?: LeakPolicy): Response {
  const { status, envelope, headers } = toClientError(err, leaks);
  return new Response(JSON.stringify(envelope), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  });
}
