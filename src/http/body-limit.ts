/**
 * The request body limits: Hono's `body-limit` middleware with the envelope. It counts the bytes
 * actually received: a chunked body (no Content-Length) is read and refused as soon as it passes the
 * limit; with a Content-Length the HTTP parser delivers exactly that many bytes, so the declared
 * length is what is received.
 *
 * Two limits (CONTRACT.md "Chat request"): 256 KiB on every route, and MAX_CHAT_BODY_BYTES on the chat
 * routes, whose body carries the whole chat: an earlier attachment of a few hundred KB rides along in
 * every later turn, and must not make the chat unusable. A large body is held whole while it is read
 * and parsed (its bytes, its text, the parsed object: about three times its size), so the bodies over
 * 256 KiB taken in at once per process are held to MAX_LARGE_BODY_BYTES together (four bodies at the
 * chat limit, or about twenty-four messages with a 512 KB photo each); one that does not fit is
 * answered 503 with `Retry-After` before it is read. The worst case stays four 4 MiB bodies, far below
 * the heap limit (tests/http-large-bodies.test.ts measures it; bench/photos.bench.ts a burst of photos).
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit as honoBodyLimit } from 'hono/body-limit';
import { AppError, envelopeResponse, PayloadTooLargeError } from './errors.js';

/** CONTRACT.md: bodies over 256 KiB are refused with 413 (every route but the chat routes). */
export const MAX_BODY_BYTES = 256 * 1024;

/** The chat routes' limit: a chat carrying earlier attachments of a few hundred KB each goes on. */
export const MAX_CHAT_BODY_BYTES = 4 * 1024 * 1024;

/** Bytes of the bodies over MAX_BODY_BYTES read and parsed at once in one process: four at the chat limit. */
export const MAX_LARGE_BODY_BYTES = 4 * MAX_CHAT_BODY_BYTES;

/** Seconds a client whose large body was turned away is asked to wait: reading one takes far less. */
export const LARGE_BODY_RETRY_AFTER_S = 1;

export class LargeBodiesBusyError extends AppError {
  override readonly refusal = 'overload';

  constructor() {
    super(503, 'service overloaded', 'several large requests are being read right now; please try again in a moment', {
      'Retry-After': String(LARGE_BODY_RETRY_AFTER_S),
    });
  }
}

export function bodyLimit(maxBytes: number = MAX_BODY_BYTES): MiddlewareHandler {
  return honoBodyLimit({ maxSize: maxBytes, onError: () => envelopeResponse(new PayloadTooLargeError(maxBytes)) });
}

/**
 * Admits requests whose body is over `threshold` bytes while their sizes together stay within `budget`;
 * the bytes are held until the route has answered (the body parsed, the turn started; a stream's request
 * keeps only what validation made of the body, see validate.ts). A declared length decides at once. A
 * chunked body (no length) is read here up to `maxBytes`: it holds its bytes from when it passes
 * `threshold`, as they arrive (one that no longer fits is refused then, before the rest is read), and
 * reaches the route as the bytes read, with their length.
 */
export function largeBodyGate(budget: number = MAX_LARGE_BODY_BYTES, threshold: number = MAX_BODY_BYTES, maxBytes: number = MAX_CHAT_BODY_BYTES): MiddlewareHandler {
  let inFlight = 0;
  return async (c, next) => {
    const declared = c.req.header('content-length');
    let held = 0;
    /** Holds `bytes` more for this request; false when they do not fit. */
    const hold = (bytes: number) => {
      if (inFlight + bytes > budget) return false;
      inFlight += bytes;
      held += bytes;
      return true;
    };
    try {
      if (declared !== undefined) {
        const size = Number(declared);
        if (size > threshold && !hold(size)) return envelopeResponse(new LargeBodiesBusyError());
      } else if (c.req.raw.body) {
        const chunks: Uint8Array[] = [];
        let size = 0;
        const reader = c.req.raw.body.getReader();
        for (let r = await reader.read(); !r.done; r = await reader.read()) {
          size += r.value.byteLength;
          if (size > maxBytes) {
            await reader.cancel().catch(() => undefined);
            return envelopeResponse(new PayloadTooLargeError(maxBytes));
          }
          if (size > threshold && !hold(size - held)) {
            await reader.cancel().catch(() => undefined);
            return envelopeResponse(new LargeBodiesBusyError());
          }
          chunks.push(r.value);
        }
        const body = Buffer.concat(chunks);
        const headers = new Headers(c.req.raw.headers);
        headers.set('content-length', String(body.byteLength));
        c.req.raw = new Request(c.req.raw.url, { method: c.req.raw.method, headers, body, signal: c.req.raw.signal });
      }
      await next();
    } finally {
      inFlight -= held;
    }
  };
}
