/**
 * Bearer auth: Hono's `bearer-auth` middleware, answering with the envelope. The comparison is in
 * constant time: the configured secret's SHA-256 digest is computed once, each request's token is
 * digested and the two digests compared in full, so neither the secret's length nor a common prefix
 * leaks through timing. A malformed `Authorization` header is a 401 like a wrong token (CONTRACT.md:
 * missing or wrong bearer token → 401), not the middleware's default 400. Config refuses a secret with
 * characters a bearer token cannot carry (`BEARER_TOKEN_PATTERN`).
 */
import type { MiddlewareHandler } from 'hono';
import { bearerAuth as honoBearerAuth } from 'hono/bearer-auth';
import { envelopeResponse, UnauthorizedError } from './errors.js';

const encoder = new TextEncoder();

async function digest(value: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(value)));
}

/** Equal digests, compared without an early exit. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ (b[i] ?? 0);
  return diff === 0;
}

/** Requires `Authorization: Bearer <secret>`. */
export function bearerAuth(secret: string): MiddlewareHandler {
  const expected = digest(secret);
  const unauthorized = () => envelopeResponse(new UnauthorizedError());
  return honoBearerAuth({
    verifyToken: async (token) => sameBytes(await expected, await digest(token)),
    noAuthenticationHeader: { message: unauthorized },
    invalidAuthenticationHeader: { message: unauthorized },
    invalidToken: { message: unauthorized },
  });
}
