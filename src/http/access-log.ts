/**
 * Structured access log: one JSON line per request with method, path, status, duration and request
 * id. Never bodies, headers, tokens or query strings (a memory search `q` is user text).
 *
 * A request whose client went away before its answer (a body abandoned mid-upload, a disconnect during
 * the turn) is logged with `client_aborted: true`, and when nothing but an error was left to answer,
 * with status 499 (nginx's "client closed request") instead of the 500 nobody received: a client's
 * abort is not the service failing.
 */
import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../logger.js';

export const CLIENT_CLOSED_REQUEST = 499;

export function accessLog(logger: Logger, now: () => number = () => performance.now()): MiddlewareHandler {
  return async function accessLogMiddleware(c, next) {
    const start = now();
    try {
      await next();
    } finally {
      const aborted = c.req.raw.signal.aborted;
      logger.info('request', {
        method: c.req.method,
        path: c.req.path,
        status: aborted && c.res.status >= 500 ? CLIENT_CLOSED_REQUEST : c.res.status,
        duration_ms: Math.round((now() - start) * 10) / 10,
        request_id: c.get('requestId'),
        ...(aborted && { client_aborted: true }),
      });
    }
  };
}
