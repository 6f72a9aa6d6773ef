/**
 * createApp(deps): the middleware order, the route mounts, one onError and one notFound. Every error a
 * client can see leaves through `envelopeResponse`.
 */
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { requestId, type RequestIdVariables } from 'hono/request-id';
import type { AppDeps } from './deps.js';
import { accessLog } from './http/access-log.js';
import { bearerAuth, routePathMatcher } from './http/auth.js';
import { bodyLimit } from './http/body-limit.js';
import {
  AppError,
  BadRequestError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  envelopeResponse,
} from './http/errors.js';
import { MAX_BODY_BYTES } from './http/body-limit.js';
import { createHealthRoutes } from './routes/health.js';
import { createAgentRoutes } from './routes/agent.js';
import { createTitleRoutes } from './routes/title.js';
import { createMemoryRoutes } from './routes/memory.js';
import { createPlaygroundRoutes } from './routes/playground.js';

export type AppEnv = { Variables: RequestIdVariables };

/** Paths behind bearer auth; `/api/health` (and the dev playground page) stay open. */
const PROTECTED = ['/agent/*', '/memory/*', '/memory'] as const;

export function createApp(deps: AppDeps) {
  const { config, logger } = deps;
  const app = new Hono<AppEnv>();

  app.use(requestId());
  app.use(accessLog(logger));
  app.use(
    cors({
      origin: (origin) => (config.allowedOrigins.includes(origin) ? origin : null),
      allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
      allowHeaders: ['Authorization', 'Content-Type'],
      exposeHeaders: ['Retry-After', 'X-Request-Id'],
      maxAge: 600,
    }),
  );
  const auth = bearerAuth(config.sharedSecret, { isKnownPath: routePathMatcher(() => app.routes) });
  for (const path of PROTECTED) app.use(path, auth);
  app.use(bodyLimit(MAX_BODY_BYTES));
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (_c, methods) => envelopeResponse(new MethodNotAllowedError(methods)),
    }),
  );

  app.route('/', createHealthRoutes(deps));
  app.route('/', createAgentRoutes(deps));
  app.route('/', createTitleRoutes(deps));
  app.route('/', createMemoryRoutes(deps));
  // The dev playground page: never in production (issue 7).
  if (config.env !== 'production') app.route('/', createPlaygroundRoutes());

  app.notFound((c) => envelopeResponse(new NotFoundError(`no route for ${c.req.method} ${c.req.path}`)));

  app.onError((err, c) => {
    if (err instanceof AppError) {
      if (err.status >= 500) logger.error('request failed', { request_id: c.get('requestId'), err });
      return envelopeResponse(err);
    }
    if (err instanceof HTTPException) {
      // Framework-raised errors (malformed JSON in Hono's validator, ...) get our envelope, not theirs.
      if (err.status === 413) return envelopeResponse(new PayloadTooLargeError(MAX_BODY_BYTES));
      if (err.status === 400) return envelopeResponse(new BadRequestError('request body is not valid JSON', 'malformed JSON'));
      if (err.status === 401) return envelopeResponse(new AppError(401, 'unauthorized', 'missing or invalid bearer token'));
    }
    logger.error('unhandled error', { request_id: c.get('requestId'), err });
    return envelopeResponse(err);
  });

  return app;
}

export type App = ReturnType<typeof createApp>;
