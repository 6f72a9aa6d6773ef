/**
 * `GET /`: the playground page, mounted only outside production. Public like health (the page itself
 * holds nothing secret; it asks for the bearer token and sends it on its own requests). A strict
 * Content-Security-Policy with a per-response nonce allows only the page's own inline style and script
 * and requests back to this origin.
 */
import { Hono } from 'hono';
import { randomBytes } from 'node:crypto';
import { playgroundPage } from './playground-page.js';

/** Routes of the playground; `nonce` is injectable so a test can check the header and page agree. */
export function createPlaygroundRoutes(options: { nonce?: () => string } = {}) {
  const nonce = options.nonce ?? (() => randomBytes(16).toString('base64'));
  return new Hono().get('/', (c) => {
    const n = nonce();
    return c.html(playgroundPage(n), 200, {
      'Content-Security-Policy': `default-src 'none'; script-src 'nonce-${n}'; style-src 'nonce-${n}'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    });
  });
}
