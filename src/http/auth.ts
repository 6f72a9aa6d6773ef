/**
 * Bearer auth with a constant-time comparison (SHA-256 digests of both sides compared in full, so
 * neither the length nor a common prefix of the secret leaks through timing). Off when no secret is
 * configured (development only: config refuses production without one).
 */
import type { MiddlewareHandler } from 'hono';
import { UnauthorizedError } from './errors.js';

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

export function bearerAuth(secret: string | null): MiddlewareHandler {
  return async function bearerAuthMiddleware(c, next) {
    if (secret === null) return next();
    if (c.req.method === 'OPTIONS') return next();
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (!match || !(await constantTimeEqual(match[1]!.trim(), secret))) throw new UnauthorizedError();
    return next();
  };
}
