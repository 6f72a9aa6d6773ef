/**
 * Bearer auth: Hono's `bearer-auth` middleware, answering with the envelope. The comparison costs
 * microseconds and reveals nothing through timing: the secret's bytes are encoded once at start; each
 * request's token is compared byte by byte over the token's own length (the secret is indexed modulo
 * its length), without an early exit, the length difference folded into the result. Its time depends
 * only on the token the caller sent, never on the secret's length or on how much of it matched. No
 * digest is computed per request (two WebCrypto SHA-256 digests were the largest self time of a turn
 * in a profile, issue 12). A malformed `Authorization` header is a 401 like a wrong token (CONTRACT.md:
 * missing or wrong bearer token → 401), not the middleware's default 400. Config refuses a secret with
 * characters a bearer token cannot carry (`BEARER_TOKEN_PATTERN`).
 */
import type { MiddlewareHandler } from 'hono';
import { bearerAuth as honoBearerAuth } from 'hono/bearer-auth';
import { envelopeResponse, UnauthorizedError } from './errors.js';

const encoder = new TextEncoder();

/** Whether `given` equals `expected` (non-empty); time depends on `given.length` only. */
export function constantTimeEquals(given: Uint8Array, expected: Uint8Array): boolean {
  let diff = given.length ^ expected.length;
  for (let i = 0; i < given.length; i++) diff |= given[i]! ^ expected[i % expected.length]!;
  return diff === 0;
}

/** Requires `Authorization: Bearer <secret>`. */
export function bearerAuth(secret: string): MiddlewareHandler {
  const expected = encoder.encode(secret);
  if (expected.length === 0) throw new Error('bearerAuth: the secret must not be empty');
  const unauthorized = () => envelopeResponse(new UnauthorizedError());
  return honoBearerAuth({
    verifyToken: (token) => constantTimeEquals(encoder.encode(token), expected),
    noAuthenticationHeader: { message: unauthorized },
    invalidAuthenticationHeader: { message: unauthorized },
    invalidToken: { message: unauthorized },
  });
}
