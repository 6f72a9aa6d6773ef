/**
 * createApp(deps): the middleware order, the route mounts, one onError and one notFound. Every error a
 * client can see leaves through `envelopeResponse`.
 *
 * Order: request id → server span (telemetry on) → access log → CORS → (per protected route: bearer auth → body limit → validation).
 * Auth sits on each protected route (`guard`), so a path no route answers is a 404 with or without a
 * token; `/api/health` and the sandbox playground page are open.
 */
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { requestId } from 'hono/request-id';
import type { AppDeps } from './deps.js';
import { accessLog } from './http/access-log.js';
import type { AppEnv } from './http/app-env.js';
import { AppError, BadRequestError, MethodNotAllowedError, NotFoundError, envelopeResponse } from './http/errors.js';
import { largeBodyGate, MAX_CHAT_BODY_BYTES } from './http/body-limit.js';
import { createRouteGuard } from './http/guard.js';
import { OPENAI_ERROR_PATHS, openAIErrorShape } from './http/openai-errors.js';
import { traceRequests } from './http/trace.js';
import { createAgentRoutes } from './routes/agent.js';
import { apiDocument, createApiDocsRoutes } from './routes/api-docs.js';
import { createHealthRoutes } from './routes/health.js';
import { createMemoryRoutes } from './routes/memory.js';
import { createRunRoutes } from './routes/runs.js';
import { createOpenAIRoutes } from './routes/openai.js';
import { createTitleRoutes } from './routes/title.js';

export function createApp(deps: AppDeps) {
  const { config, logger } = deps;
  const app = new Hono<AppEnv>();
  const guard = createRouteGuard(config.sharedSecret);
  // The chat routes take the whole chat (earlier attachments included), a few large bodies at a time.
  const chatGuard = createRouteGuard(config.sharedSecret, MAX_CHAT_BODY_BYTES, largeBodyGate());
  const envelope = (err: unknown) => envelopeResponse(err, deps.leaks);

  app.use(requestId());
  // The server span (only with telemetry on): first, so the access log line carries its trace id.
  if (deps.telemetry.enabled) app.use(traceRequests(deps.telemetry));
  app.use(accessLog(logger));
  app.use(
    cors({
      origin: (origin) => (config.allowedOrigins.includes(origin) ? origin : null),
      allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
      // Last-Event-ID: a browser's resume of a run (CONTRACT.md "Resuming a stream") sends it.
      allowHeaders: ['Authorization', 'Content-Type', 'X-User-Id', 'Last-Event-ID'],
      // X-Run-Id: the front end on its own origin reads it to resume a stream it lost.
      exposeHeaders: ['Retry-After', 'X-Request-Id', 'X-Should-Retry', 'X-Run-Id'],
      maxAge: 600,
    }),
  );
  // The OpenAI-compatible routes answer errors in OpenAI's shape (outside the 405 handler, so it too).
  for (const path of OPENAI_ERROR_PATHS) app.use(path, openAIErrorShape());
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (_c, methods) => envelope(new MethodNotAllowedError(methods)),
    }),
  );

  app.route('/', createHealthRoutes(deps));
  app.route('/', createAgentRoutes({ ...deps, guard: chatGuard }));
  app.route('/', createRunRoutes({ ...deps, guard }));
  app.route('/', createTitleRoutes({ ...deps, guard }));
  app.route('/', createMemoryRoutes({ ...deps, guard }));
  app.route('/', createOpenAIRoutes({ ...deps, guard, chatGuard }));
  // The OpenAPI document of the routes above and its docs page (issue 49).
  app.route('/', createApiDocsRoutes({ config, guard, document: () => apiDocument(app) }));
  // The sandbox playground page, when the sandbox is running (never in production).
  if (deps.playground) app.route('/', deps.playground);

  app.notFound((c) => envelope(new NotFoundError(`no route for ${c.req.method} ${c.req.path}`)));

  app.onError((err, c) => {
    if (c.req.raw.signal.aborted) {
      // The client went away (its request ended the turn): nobody reads this answer; not a failure.
      logger.debug('client went away before the answer', { request_id: c.get('requestId') });
      return envelope(err);
    }
    if (err instanceof AppError) {
      // An expected refusal (a spent budget or cap, overload) is counted where it is made and noted at
      // info, without a stack: a spent cap refuses every turn until the reset.
      if (err.refusal) logger.info('request refused', { request_id: c.get('requestId'), reason: err.refusal, status: err.status });
      else if (err.status >= 500) logger.error('request failed', { request_id: c.get('requestId'), err });
      return envelope(err);
    }
    if (err instanceof HTTPException) {
      // Hono's validator raises a 400 for malformed JSON; its message is Hono's, ours is the envelope.
      if (err.status === 400) return envelope(new BadRequestError('request body is not valid JSON', 'malformed JSON'));
      // The guard's middleware answer with envelope responses of their own (401, 413): pass those on.
      if (err.res) return err.getResponse();
    }
    logger.error('unhandled error', { request_id: c.get('requestId'), err });
    return envelope(err);
  });

  return app;
}

export type App = ReturnType<typeof createApp>;
