/**
 * The request body limit: Hono's `body-limit` middleware with the envelope. It counts the bytes
 * actually received: a chunked body (no Content-Length) is read and refused as soon as it passes the
 * limit; with a Content-Length the HTTP parser delivers exactly that many bytes, so the declared
 * length is what is received.
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit as honoBodyLimit } from 'hono/body-limit';
import { envelopeResponse, PayloadTooLargeError } from './errors.js';

/** CONTRACT.md: bodies over 256 KiB are refused with 413. */
export const MAX_BODY_BYTES = 256 * 1024;

export function bodyLimit(maxBytes: number = MAX_BODY_BYTES): MiddlewareHandler {
  return honoBodyLimit({ maxSize: maxBytes, onError: () => envelopeResponse(new PayloadTooLargeError(maxBytes)) });
}
