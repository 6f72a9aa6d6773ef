/**
 * Structured access log: one JSON line per request with method, path, status, duration and request
 * id. Never bodies, headers, tokens or query strings (a memory search `q` is user text).
 */
import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../logger.js';

export function accessLog(logger: Logger, now: () => number = () => performance.now()): MiddlewareHandler {
  return async function accessLogMiddleware(c, next) {
    const start = now();
    try {
      await next();
    } finally {
      logger.info('request', {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        duration_ms: Math.round((now() - start) * 10) / 10,
        request_id: c.get('requestId'),
      });
    }
  };
}
