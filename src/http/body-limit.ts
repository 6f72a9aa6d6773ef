/**
 * Request body limit judged on the bytes actually received, so a chunked body (no Content-Length)
 * is counted as it arrives and refused as soon as it passes the limit, before any handler runs.
 */
import type { MiddlewareHandler } from 'hono';
import { PayloadTooLargeError } from './errors.js';

/** CONTRACT.md: bodies over 256 KiB are refused with 413. */
export const MAX_BODY_BYTES = 256 * 1024;

export function bodyLimit(maxBytes: number = MAX_BODY_BYTES): MiddlewareHandler {
  return async function bodyLimitMiddleware(c, next) {
    const body = c.req.raw.body;
    if (!body) return next();
    const declared = Number(c.req.header('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > maxBytes) throw new PayloadTooLargeError(maxBytes);

    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        // No reader.cancel(): on Node it destroys the socket before the 413 is written; the adapter
        // drains (bounded) what the client still sends after the response.
        if (size > maxBytes) throw new PayloadTooLargeError(maxBytes);
        chunks.push(value);
      }
    } finally {
      reader.releaseLock();
    }
    const buffer = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      buffer.set(chunk, offset);
      offset += chunk.byteLength;
    }
    // The handler reads the buffered copy; the original stream is spent.
    c.req.raw = new Request(c.req.raw, { body: buffer });
    return next();
  };
}
