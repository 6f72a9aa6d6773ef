/**
 * The API described where tools can read it (issue 49): `GET /openapi.json`, an OpenAPI 3.1 document
 * that hono-openapi generates from the routes themselves (each route's validators give its body, path
 * and query; its `describeRoute` its responses, route-docs.ts), and `GET /docs`, Swagger UI served
 * from the installed `swagger-ui-dist` package (never a CDN; its validator badge, which would call
 * validator.swagger.io, is off).
 *
 * Outside production both are open, like the playground. In production the document is behind the
 * bearer token, and the page is off unless API_DOCS=on; the page then asks for the token before it loads
 * the document. The document is made once per app, at start (server.ts asks for it before listening),
 * never per request; `npm run openapi` writes the same document to `openapi.json` at the repository root.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Hono, type MiddlewareHandler } from 'hono';
import { generateSpecs } from 'hono-openapi';
import { z } from 'zod';
import type { Config } from '../config.js';
import type { AppEnv } from '../http/app-env.js';
import { NotFoundError } from '../http/errors.js';
import { validParam } from '../http/validate.js';
import { EXAMPLES } from './examples.js';
import { errors, GUARDED_GET, json, route } from './route-docs.js';

/** The document's `info`; `version` is the API's, raised when a shape changes. */
export const API_INFO = {
  title: 'Campus assistant agent service',
  version: '1.2.0',
  license: { name: 'Proprietary: the university\'s; not for redistribution', identifier: 'LicenseRef-Proprietary' },
  contact: { name: 'The campus assistant backend team (the repository\'s issues)' },
  description:
    'The chat turn (JSON, Server-Sent Events and the OpenAI chat completions protocol), chat titles, long-term memory and ' +
    'health. Every error is the envelope `{"error", "detail"}`; the `/v1` routes answer OpenAI\'s error shape instead. ' +
    'A path no route answers is 404 and a known path with another method 405 (with `Allow`), on every path.',
} as const;

/** Paths the app may serve that are not the API: the sandbox playground's page (never in production). */
export const NOT_THE_API = ['/'] as const;

type Document = Awaited<ReturnType<typeof generateSpecs>>;

// hono-openapi keeps the paths it is collecting in one module-level map: one document is made at a time.
let generating: Promise<unknown> = Promise.resolve();
const documents = new WeakMap<Hono<AppEnv>, Promise<Document>>();

/** The OpenAPI document of `app`, made on the first call and kept. */
export function apiDocument(app: Hono<AppEnv>): Promise<Document> {
  let document = documents.get(app);
  if (!document) {
    document = generating.then(() =>
      generateSpecs(app, {
        documentation: {
          info: API_INFO,
          // Relative: the service's own origin, wherever it is deployed.
          servers: [{ url: '/', description: 'this service (the origin that serves this document)' }],
          tags: [
            { name: 'chat', description: 'A chat turn: one JSON object, or Server-Sent Events' },
            { name: 'runs', description: 'Streamed turns apart from their connections: state, resume, cancel' },
            { name: 'memory', description: "A user's long-term facts and their history" },
            { name: 'openai', description: "OpenAI's chat completions protocol, under /v1 and at the root" },
            { name: 'operations', description: 'Health, this document and its page' },
          ],
          components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'AGENT_SHARED_SECRET' } } },
        },
        exclude: [...NOT_THE_API],
        // `/openapi.json` ends like a file name; it is a route of its own here.
        excludeStaticFile: false,
        // hono-openapi would add a 400 of its validator's own shape; every route lists its 400, the envelope.
        defaultValidationErrorResponse: false,
      }),
    );
    generating = document.catch(() => undefined);
    documents.set(app, document);
  }
  return document;
}

/** Swagger UI's files, read from the installed package on first use (never in a process that does not serve the page). */
const ASSETS: Record<string, string> = { 'swagger-ui.css': 'text/css; charset=utf-8', 'swagger-ui-bundle.js': 'text/javascript; charset=utf-8' };
const assetCache = new Map<string, string>();
function asset(file: string): string {
  let text = assetCache.get(file);
  if (text === undefined) {
    const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    text = readFileSync(join(dir, file), 'utf8');
    assetCache.set(file, text);
  }
  return text;
}

/** The page: Swagger UI over the document, asking for the token when the document answers 401. */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${API_INFO.title}: API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<style>#token{font:16px system-ui,sans-serif;margin:2rem}#token input{width:24rem}</style>
</head>
<body>
<form id="token" hidden><label>Bearer token (AGENT_SHARED_SECRET) <input id="secret" type="password" autocomplete="off"></label> <button>Show the API</button></form>
<div id="swagger"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>
async function show(token) {
  const res = await fetch('/openapi.json', token ? { headers: { authorization: 'Bearer ' + token } } : {});
  const form = document.getElementById('token');
  if (res.status === 401) { form.hidden = false; return; }
  form.hidden = true;
  const ui = SwaggerUIBundle({ spec: await res.json(), dom_id: '#swagger', validatorUrl: null, deepLinking: false });
  if (token) ui.preauthorizeApiKey('bearerAuth', token);
}
document.getElementById('token').addEventListener('submit', (e) => { e.preventDefault(); show(document.getElementById('secret').value); });
show(null);
</script>
</body>
</html>
`;

export interface ApiDocsDeps {
  config: Pick<Config, 'env' | 'apiDocs'>;
  /** The bearer guard of the protected routes: the document is behind it in production. */
  guard: MiddlewareHandler;
  /** The document of the app these routes are mounted in. */
  document: () => Promise<Document>;
}

const text = (description: string, media: string, example: string) => ({ description, content: { [media]: { schema: { type: 'string' as const }, example } } });
const docs = {
  document: route({
    summary: 'This OpenAPI 3.1 document',
    description: 'Open outside production; behind the bearer token in production.',
    tags: ['operations'],
    responses: { 200: json('the document', z.looseObject({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) }), EXAMPLES.document), ...errors(GUARDED_GET) },
  }),
  page: route({
    summary: 'Swagger UI over this document',
    description: 'Served when API_DOCS is on (the default outside production); 404 otherwise.',
    tags: ['operations'],
    open: true,
    responses: { 200: text('the page', 'text/html', EXAMPLES.page), ...errors([404]) },
  }),
  asset: route({
    summary: "One of Swagger UI's files, from the installed swagger-ui-dist package",
    description: 'Only the files the page loads; anything else is a 404.',
    tags: ['operations'],
    open: true,
    responses: {
      200: { description: 'the file', content: { 'text/css': { schema: { type: 'string' }, example: EXAMPLES.asset }, 'text/javascript': { schema: { type: 'string' }, example: 'window.SwaggerUIBundle=function(){};' } } },
      ...errors([400, 404]),
    },
  }),
};

const assetParam = z.object({ file: z.string().max(64).meta({ examples: ['swagger-ui.css'] }) });

export function createApiDocsRoutes(deps: ApiDocsDeps) {
  const production = deps.config.env === 'production';
  const open: MiddlewareHandler = async (_c, next) => next();
  // The page's routes are mounted in every configuration (the document is the same everywhere) and
  // answer 404 while API_DOCS is off.
  const page: MiddlewareHandler = async (c, next) => {
    if (!deps.config.apiDocs) throw new NotFoundError(`no route for GET ${c.req.path}`);
    await next();
  };
  return new Hono<AppEnv>()
    .get('/openapi.json', production ? deps.guard : open, docs.document, async (c) => c.json(await deps.document()))
    .get('/docs', page, docs.page, (c) => c.html(PAGE))
    .get('/docs/assets/:file', page, validParam(assetParam), docs.asset, (c) => {
      const { file } = c.req.valid('param');
      const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
      if (!type) throw new NotFoundError(`no route for GET ${c.req.path}`);
      return c.body(asset(file), 200, { 'content-type': type, 'cache-control': 'public, max-age=86400' });
    });
}
