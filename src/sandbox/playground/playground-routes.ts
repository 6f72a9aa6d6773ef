/**
 * The playground, mounted only outside production: `GET /` the page, `GET /playground/markdown-it.js`
 * the Markdown renderer it uses (markdown-it's browser build, read from the project's own
 * dependencies: no CDN, no build step) and `GET /favicon.svg` (also answering `/favicon.ico`). Public
 * like health (the page holds nothing secret; it asks for the bearer token and sends it on its own
 * requests). A strict Content-Security-Policy with a per-response nonce allows only the page's own
 * inline style and scripts (the renderer is loaded with the nonce too) and requests back to this origin.
 */
import { Hono, type Context } from 'hono';
import { randomBytes } from 'node:crypto';
import { FAVICON_SVG, playgroundPage } from './playground-page.js';

export interface PlaygroundOptions {
  /** The renderer's script text (start-sandbox.ts reads it from node_modules). */
  markdownScript: string;
  /** Injectable so a test can check the header and the page agree. */
  nonce?: () => string;
}

const ASSET_HEADERS = { 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' };

/** Routes of the playground. */
export function createPlaygroundRoutes(options: PlaygroundOptions) {
  const nonce = options.nonce ?? (() => randomBytes(16).toString('base64'));
  const favicon = (c: Context) => c.body(FAVICON_SVG, 200, { ...ASSET_HEADERS, 'Content-Type': 'image/svg+xml' });
  return new Hono()
    .get('/', (c) => {
      const n = nonce();
      return c.html(playgroundPage(n), 200, {
        'Content-Security-Policy': `default-src 'none'; script-src 'nonce-${n}'; style-src 'nonce-${n}'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
      });
    })
    .get('/playground/markdown-it.js', (c) =>
      c.body(options.markdownScript, 200, { ...ASSET_HEADERS, 'Content-Type': 'text/javascript; charset=utf-8' }),
    )
    .get('/favicon.svg', favicon)
    .get('/favicon.ico', favicon);
}
