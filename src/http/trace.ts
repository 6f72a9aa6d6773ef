/**
 * The HTTP server span of every request (mounted only when telemetry is on): W3C `traceparent`
 * continued, named `METHOD /route` once the route is known (the route template, never the path: a
 * path can carry a user id), the status code recorded, status ERROR for a 5xx. The request runs with
 * its span active, so its log lines carry `trace_id` and `span_id`. A stream's span stays open until
 * the stream ends (`RequestTrace.hold`).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { noRequestTrace, type RequestTrace, type Telemetry } from '../telemetry/telemetry.js';
import type { AppEnv } from './app-env.js';

export function traceRequests(telemetry: Telemetry): MiddlewareHandler<AppEnv> {
  return async function traceMiddleware(c, next) {
    const span = telemetry.serverSpan({ method: c.req.method, path: c.req.path, headers: c.req.raw.headers });
    let holds = 1;
    const release = () => {
      if (--holds === 0) span.end();
    };
    c.set('trace', {
      span,
      hold() {
        holds++;
        let released = false;
        return () => {
          if (released) return;
          released = true;
          release();
        };
      },
    });
    try {
      await telemetry.activate(span, next);
    } finally {
      const route = c.req.routePath;
      const status = c.res.status;
      if (route && route !== '*' && route !== '/*') span.rename(`${c.req.method} ${route}`);
      span.set({ 'http.route': route, 'http.response.status_code': status });
      if (status >= 500) span.fail(String(status));
      release();
    }
  };
}

/** The request's trace; the no-op one when telemetry is off. */
export function requestTrace(c: Context<AppEnv>): RequestTrace {
  return c.get('trace') ?? noRequestTrace;
}
