/**
 * The guard of every protected route, in CONTRACT.md's order: the bearer token (401), then the body
 * size (413), then a body that is not JSON (415, before it is read); validation (400) follows on the
 * route. Mounted on each protected route rather than on path prefixes, so a path no route answers is a
 * 404 with or without a token.
 */
import type { MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import { bearerAuth } from './auth.js';
import { bodyLimit, MAX_BODY_BYTES } from './body-limit.js';
import { requireJsonBody } from './validate.js';

/**
 * `secret` null: auth off (development only; config refuses production without one). `gate` (the chat
 * routes' large-body gate) runs after auth and before the body is read.
 */
export function createRouteGuard(secret: string | null, maxBodyBytes: number = MAX_BODY_BYTES, gate?: MiddlewareHandler): MiddlewareHandler {
  const body = gate ? [gate, bodyLimit(maxBodyBytes), requireJsonBody] : [bodyLimit(maxBodyBytes), requireJsonBody];
  return secret === null ? every(...body) : every(bearerAuth(secret), ...body);
}
