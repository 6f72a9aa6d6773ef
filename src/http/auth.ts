/**
 * Bearer auth with a constant-time comparison (SHA-256 digests of both sides compared in full, so
 * neither the length nor a common prefix of the secret leaks through timing). Off when no secret is
 * configured (development only: config refuses production without one).
 */
import type { MiddlewareHandler } from 'hono';
import { NotFoundError, UnauthorizedError } from './errors.js';

const encoder = new TextEncoder();

async function digest(value: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(value)));
}

/** Compares two strings in time independent of where they differ. */
export async function constantTimeEqual(a: string, b: string): Promise<boolean> {
  const [da, db] = await Promise.all([digest(a), digest(b)]);
  let diff = 0;
  for (let i = 0; i < da.length; i++) diff |= da[i]! ^ db[i]!;
  return diff === 0;
}

export interface BearerAuthOptions {
  /**
   * Whether any route answers this path (whatever the method). Auth guards whole prefixes, so a route
   * added later is protected by default; an unauthenticated request for a path no route answers is
   * still a 404 (CONTRACT.md: every other path is a 404), which reveals nothing the contract does not.
   */
  isKnownPath?: (path: string) => boolean;
}

export function bearerAuth(secret: string | null, options: BearerAuthOptions = {}): MiddlewareHandler {
  return async function bearerAuthMiddleware(c, next) {
    if (secret === null) return next();
    if (c.req.method === 'OPTIONS') return next();
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (!match || !(await constantTimeEqual(match[1]!.trim(), secret))) {
      if (options.isKnownPath && !options.isKnownPath(c.req.path)) throw new NotFoundError(`no route for ${c.req.method} ${c.req.path}`);
      throw new UnauthorizedError();
    }
    return next();
  };
}

/**
 * A path matcher over route patterns as Hono writes them (`/memory/:user_id`, `/x/*`), built from the
 * app's registered routes on first use (routes are mounted after the middleware is).
 */
export function routePathMatcher(routes: () => ReadonlyArray<{ path: string; method: string }>): (path: string) => boolean {
  let patterns: RegExp[] | null = null;
  const compile = (path: string) =>
    new RegExp(
      '^' +
        path
          .split('/')
          .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('/') +
        '/?$',
    );
  return (path) => {
    // Middleware registrations are method ALL; only real handlers make a path known.
    patterns ??= routes()
      .filter((r) => r.method !== 'ALL')
      .map((r) => compile(r.path));
    return patterns.some((p) => p.test(path));
  };
}
